package emotesim.client;

import com.google.gson.JsonObject;
import java.util.List;

/**
 * What happens to the connection, called on the client's listener executor in order with the
 * frames. Every method has an empty default.
 */
public interface ConnectionListener {
  /** The connection closed; {@code reason} is the server's bye reason or {@code closed}. */
  default void disconnected(String reason) {}

  /**
   * The client reconnected after a drop (a restart of emote-sim), joined again the players it had
   * joined ({@code rejoined}, join order), subscribed again and sent {@code render.resync}
   * ({@code viewers}: its reply). A plugin should treat its players' clients as holding stale
   * entities and report {@code render_reset} where it knows they lost them.
   */
  default void reconnected(JsonObject welcome, List<String> rejoined, long viewers) {}

  /** Reconnecting was given up: refused (e.g. {@code unauthorized}) or out of time. */
  default void reconnectFailed(Throwable cause) {}
}
