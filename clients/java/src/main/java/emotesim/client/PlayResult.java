package emotesim.client;

/** The reply of {@code emote.play} (protocol.md §4). */
public record PlayResult(long session, String emote, Role role) {
  /**
   * {@code SOLO}: a one-player emote started; {@code INITIATOR}: a two-player emote's offer started;
   * {@code PARTNER}: the player accepted an offer (a reservation was made, players.md §7).
   */
  public enum Role { SOLO, INITIATOR, PARTNER }
}
