package emotesim.client;

/**
 * The connection to emote-sim closed (or was never open) before a request got its reply. A request
 * in flight when the connection drops fails with this at once; it never waits for a reconnect.
 */
public class ConnectionClosedException extends RuntimeException {
  private final String reason;

  public ConnectionClosedException(String reason, String message) {
    super(message);
    this.reason = reason;
  }

  /** The server's bye reason ({@code slow_consumer}, {@code shutting_down}, ...) or {@code closed}. */
  public String reason() {
    return reason;
  }
}
