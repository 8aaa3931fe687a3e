package emotesim.client;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.List;

/**
 * The fields of {@code subscribe} (protocol.md §4): event filters, and {@code packets} for the
 * viewers' packet entries (render.md §6). A later subscribe replaces the whole subscription; after a
 * reconnect the client subscribes again with the last one.
 */
public final class Subscription {
  final JsonObject fields = new JsonObject();

  public static Subscription of() {
    return new Subscription();
  }

  /** Event type names or prefixes ending in '.' ("display."). */
  public Subscription events(List<String> types) {
    fields.add("events", array(types));
    return this;
  }

  public Subscription dimensions(List<String> dimensions) {
    fields.add("dimensions", array(dimensions));
    return this;
  }

  /** Only events about these players and their sessions (a non-empty list). */
  public Subscription players(List<String> players) {
    fields.add("players", array(players));
    return this;
  }

  public Subscription lossy(boolean lossy) {
    fields.addProperty("lossy", lossy);
    return this;
  }

  public Subscription emptyFrames(boolean emptyFrames) {
    fields.addProperty("empty_frames", emptyFrames);
    return this;
  }

  public Subscription matrix(boolean matrix) {
    fields.addProperty("matrix", matrix);
    return this;
  }

  /** The viewers' packet entries (render.md §6); every viewer is resynced. Not with lossy. */
  public Subscription packets(boolean packets) {
    fields.addProperty("packets", packets);
    return this;
  }

  /**
   * With {@code packets}: each recipient list is sent once per frame and entries name it by index
   * (render.md §6.1), which the client resolves, so {@link PacketEntry#to()} reads the same.
   */
  public Subscription audiences(boolean audiences) {
    fields.addProperty("audiences", audiences);
    return this;
  }

  public JsonObject toJson() {
    return fields.deepCopy();
  }

  private static JsonArray array(List<String> items) {
    JsonArray a = new JsonArray();
    items.forEach(a::add);
    return a;
  }
}
