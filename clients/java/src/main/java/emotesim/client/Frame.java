package emotesim.client;

import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One frame (protocol.md §6): the tick, its events in the server's order, the packet entries for a
 * subscriber with {@code packets} (render.md §6), and how many frames a lossy subscription dropped
 * before it.
 */
public record Frame(long tick, List<JsonObject> events, List<PacketEntry> packets, long dropped) {
  /** The entries whose {@code to} lists {@code player}, in list order. */
  public List<PacketEntry> packetsFor(String player) {
    List<PacketEntry> out = new ArrayList<>();
    for (PacketEntry e : packets) {
      if (e.to().contains(player)) {
        out.add(e);
      }
    }
    return out;
  }

  /** The events of type {@code type}, or of every type starting with it when it ends in '.'. */
  public List<JsonObject> events(String type) {
    List<JsonObject> out = new ArrayList<>();
    for (JsonObject e : events) {
      String t = e.has("type") ? e.get("type").getAsString() : "";
      if (type.endsWith(".") ? t.startsWith(type) : t.equals(type)) {
        out.add(e);
      }
    }
    return out;
  }
}
