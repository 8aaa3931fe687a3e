package emotesim.client;

import com.google.gson.JsonObject;

/**
 * The reply of {@code emote.play} (protocol.md §4). {@code unmatched} is null except on an
 * {@code INITIATOR} reply made while an offer of the same emote was open but not joined: then it
 * names the nearest such offer and the first condition it failed (players.md §7.3).
 */
public record PlayResult(long session, String emote, Role role, Unmatched unmatched) {
  /**
   * {@code SOLO}: a one-player emote started; {@code INITIATOR}: a two-player emote's offer started;
   * {@code PARTNER}: the player accepted an offer (a reservation was made, players.md §7).
   */
  public enum Role { SOLO, INITIATOR, PARTNER }

  /**
   * An open offer the player did not join: its session, its initiator's key and the reason, one of
   * players.md §7.3's ({@code participant}, {@code partner_dead}, {@code initiator_offline},
   * {@code same_player}, {@code initiator_dead}, {@code dimension}, {@code height}, {@code too_far},
   * {@code same_spot}, {@code initiator_facing}, {@code partner_facing}, {@code line_of_sight}).
   */
  public record Unmatched(long session, String initiator, String reason) {}

  /** The result of an {@code emote.play} reply line. */
  static PlayResult fromReply(JsonObject r) {
    Unmatched unmatched = null;
    if (r.has("unmatched") && r.get("unmatched").isJsonObject()) {
      JsonObject u = r.getAsJsonObject("unmatched");
      unmatched = new Unmatched(u.get("session").getAsLong(), u.get("initiator").getAsString(),
          u.get("reason").getAsString());
    }
    return new PlayResult(r.get("session").getAsLong(), r.get("emote").getAsString(),
        Role.valueOf(r.get("role").getAsString().toUpperCase(java.util.Locale.ROOT)), unmatched);
  }
}
