package emotesim.client;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.OptionalLong;

/**
 * An error reply (protocol.md §3): {@link #code()} is one of {@link ErrorCodes#ALL}, {@link #text()}
 * the text for a person (for {@code emote.play} the mod's refusal message), {@link #detail()} the
 * text for a developer (naming the op and the subject), {@link #path()} the JSON path of the
 * offending field ("" when the server named none), {@link #op()}, {@link #player()} and
 * {@link #emote()} what it refers to ("" when the request named none), {@link #remainingTicks()}
 * the cooldown left on a {@code cooldown} error. {@link #getMessage()} is {@code CODE: DETAIL}. The
 * JavaScript and Python clients use the same names (docs/guide/bots.md, Errors).
 */
public class EmoteSimException extends RuntimeException {
  private final String code;
  private final String text;
  private final String detail;
  private final String path;
  private final String op;
  private final String player;
  private final String emote;
  private final OptionalLong remainingTicks;
  private final transient JsonObject reply;

  public EmoteSimException(JsonObject reply) {
    super(string(error(reply), "code", "internal") + ": " + detail(error(reply)));
    this.reply = reply;
    JsonObject error = error(reply);
    this.code = string(error, "code", "internal");
    this.text = string(error, "message", "");
    this.detail = detail(error);
    this.path = string(error, "path", "");
    this.op = string(error, "op", "");
    this.player = string(error, "player", "");
    this.emote = string(error, "emote", "");
    JsonElement r = error.get("remaining_ticks");
    this.remainingTicks = r != null && r.isJsonPrimitive() ? OptionalLong.of(r.getAsLong()) : OptionalLong.empty();
  }

  public String code() {
    return code;
  }

  /** The text for a person: the reply's {@code error.message}, e.g. "That emote does not exist.". */
  public String text() {
    return text;
  }

  /**
   * The text for a developer: the reply's {@code error.detail}, e.g. {@code emote.play player
   * "alice" emote "sample:wav": no emote with this id is loaded}; when the server sent none, the
   * text and the path.
   */
  public String detail() {
    return detail;
  }

  public String path() {
    return path;
  }

  /** The request's op ("" when the line named no known op). */
  public String op() {
    return op;
  }

  /** The request's player ("" when it named none). */
  public String player() {
    return player;
  }

  /** The request's emote ("" when it named none). */
  public String emote() {
    return emote;
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

  private static String detail(JsonObject error) {
    String detail = string(error, "detail", "");
    if (!detail.isEmpty()) return detail;
    String text = string(error, "message", "");
    String path = string(error, "path", "");
    return path.isEmpty() ? text : text + " (" + path + ")";
  }
}
