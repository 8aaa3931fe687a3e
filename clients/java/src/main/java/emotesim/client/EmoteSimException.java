package emotesim.client;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.OptionalLong;

/**
 * An error reply (protocol.md §3): {@link #code()} is one of {@link ErrorCodes#ALL}, {@link #path()}
 * the JSON path of the offending field ("" when the server named none), {@link #remainingTicks()}
 * the cooldown left on a {@code cooldown} error.
 */
public class EmoteSimException extends RuntimeException {
  private final String code;
  private final String path;
  private final OptionalLong remainingTicks;
  private final transient JsonObject reply;

  public EmoteSimException(JsonObject reply) {
    super(describe(reply));
    this.reply = reply;
    JsonObject error = error(reply);
    this.code = string(error, "code", "internal");
    this.path = string(error, "path", "");
    JsonElement r = error.get("remaining_ticks");
    this.remainingTicks = r != null && r.isJsonPrimitive() ? OptionalLong.of(r.getAsLong()) : OptionalLong.empty();
  }

  public String code() {
    return code;
  }

  public String path() {
    return path;
  }

  public OptionalLong remainingTicks() {
    return remainingTicks;
  }

  /** The whole reply line, as received. */
  public JsonObject reply() {
    return reply;
  }

  private static JsonObject error(JsonObject reply) {
    JsonElement e = reply.get("error");
    return e != null && e.isJsonObject() ? e.getAsJsonObject() : new JsonObject();
  }

  private static String string(JsonObject o, String key, String fallback) {
    JsonElement e = o.get(key);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : fallback;
  }

  private static String describe(JsonObject reply) {
    JsonObject error = error(reply);
    String text = string(error, "code", "internal") + ": " + string(error, "message", "(no message)");
    String path = string(error, "path", "");
    return path.isEmpty() ? text : text + " (at " + path + ")";
  }
}
