package emotesim.client;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.util.Map;

/**
 * Player state fields for {@code player.join} and {@code player.update} (protocol.md §5), with the
 * viewer fields of render.md §2. Every setter returns this; {@link #set} sends any other field of
 * players.md §1.1 or molang.md §5.2 under its own name.
 */
public final class PlayerState {
  final JsonObject fields = new JsonObject();

  public static PlayerState of() {
    return new PlayerState();
  }

  public PlayerState position(double x, double y, double z) {
    JsonArray a = new JsonArray();
    a.add(x);
    a.add(y);
    a.add(z);
    fields.add("position", a);
    return this;
  }

  public PlayerState yaw(double yaw) {
    return set("yaw", new JsonPrimitive(yaw));
  }

  public PlayerState pitch(double pitch) {
    return set("pitch", new JsonPrimitive(pitch));
  }

  public PlayerState dimension(String dimension) {
    return set("dimension", new JsonPrimitive(dimension));
  }

  public PlayerState gameMode(String gameMode) {
    return set("game_mode", new JsonPrimitive(gameMode));
  }

  public PlayerState onGround(boolean onGround) {
    return set("on_ground", new JsonPrimitive(onGround));
  }

  public PlayerState sneaking(boolean sneaking) {
    return set("sneaking", new JsonPrimitive(sneaking));
  }

  public PlayerState invisible(boolean invisible) {
    return set("invisible", new JsonPrimitive(invisible));
  }

  /** Permission nodes granted (true) or denied (false) (players.md §1.1, §6.4). */
  public PlayerState permissions(Map<String, Boolean> permissions) {
    JsonObject o = new JsonObject();
    permissions.forEach(o::addProperty);
    return set("permissions", o);
  }

  /** render.md §2: the protocol at the injection point; null stops the player being a viewer. */
  public PlayerState protocol(Integer protocol) {
    return set("protocol", protocol == null ? JsonNull.INSTANCE : new JsonPrimitive(protocol));
  }

  /** render.md §2: the player's own entity id as its viewers' clients know it (for §5.5). */
  public PlayerState entityId(int entityId) {
    return set("entity_id", new JsonPrimitive(entityId));
  }

  /** render.md §2: the client's view distance in chunks, 2..32. */
  public PlayerState viewDistance(int chunks) {
    return set("view_distance", new JsonPrimitive(chunks));
  }

  /** render.md §2: the username, used in profiles. */
  public PlayerState name(String name) {
    return set("name", new JsonPrimitive(name));
  }

  public PlayerState glowing(boolean glowing) {
    return set("glowing", new JsonPrimitive(glowing));
  }

  /**
   * render.md §2 {@code skin_textures}: key {@code "<part>:<order>"} or {@code "default"} to a signed
   * texture property ({@code value}, {@code signature} may be null).
   */
  public PlayerState skinTextures(Map<String, String[]> valueAndSignature) {
    JsonObject o = new JsonObject();
    valueAndSignature.forEach((key, vs) -> {
      JsonObject t = new JsonObject();
      t.addProperty("value", vs[0]);
      if (vs.length > 1 && vs[1] != null) {
        t.addProperty("signature", vs[1]);
      }
      o.add(key, t);
    });
    return set("skin_textures", o);
  }

  /** render.md §2 {@code render_reset}: the client lost its entities (a backend switch). */
  public PlayerState renderReset() {
    return set("render_reset", new JsonPrimitive(true));
  }

  /** Any other state field under its protocol name. */
  public PlayerState set(String field, JsonElement value) {
    fields.add(field, value);
    return this;
  }

  /** A copy of the fields as sent. */
  public JsonObject toJson() {
    return fields.deepCopy();
  }
}
