package emotesim.client;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.Map;
import java.util.TreeMap;

/**
 * The play-state packet ids of one Minecraft protocol, as the server's {@code welcome} lists them
 * (protocol.md §2 {@code minecraft}), the byte serializer id and the player's shared-flags
 * metadata index; -1 where the version has no such packet.
 */
public record PacketIds(int protocol, String version, int bundleDelimiter, int spawnEntity,
                        int entityMetadata, int entityDestroy, int entityEquipment,
                        int byteSerializer, int playerFlagsIndex) {

  /** Every protocol of a welcome's {@code minecraft} member, ascending. */
  public static Map<Integer, PacketIds> fromWelcome(JsonObject welcome) {
    Map<Integer, PacketIds> out = new TreeMap<>();
    JsonElement m = welcome.get("minecraft");
    if (m == null || !m.isJsonObject()) {
      throw new IllegalArgumentException(
          "the welcome has no \"minecraft\" packet ids (an emote-sim older than this client)");
    }
    for (Map.Entry<String, JsonElement> e : m.getAsJsonObject().entrySet()) {
      int protocol = Integer.parseInt(e.getKey());
      JsonObject v = e.getValue().getAsJsonObject();
      JsonObject p = v.getAsJsonObject("packets");
      out.put(protocol, new PacketIds(protocol, v.get("version").getAsString(),
          id(p, "bundle_delimiter"), id(p, "spawn_entity"), id(p, "entity_metadata"),
          id(p, "entity_destroy"), id(p, "entity_equipment"), v.get("byte_serializer").getAsInt(),
          v.get("player_flags_index").getAsInt()));
    }
    return out;
  }

  private static int id(JsonObject packets, String name) {
    JsonElement e = packets.get(name);
    return e == null ? -1 : e.getAsInt();
  }
}
