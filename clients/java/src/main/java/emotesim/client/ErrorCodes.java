package emotesim.client;

import java.util.List;

/**
 * The error codes of protocol.md §3, in the spec's order. The C++ test tests/api/error_codes_test.cpp
 * checks that this list, the spec's, the C++ names and the JavaScript and Python clients' lists are
 * the same, so a code added in one place and forgotten here fails there.
 */
public final class ErrorCodes {
  private ErrorCodes() {}

  /** Every code the server may send, in protocol.md's order. */
  public static final List<String> ALL = List.of(
      "bad_json", "line_too_long", "unknown_op", "bad_request", "unsupported_protocol",
      "unauthorized", "forbidden", "unknown_player", "player_exists", "unknown_emote",
      "not_standalone", "disabled", "no_permission", "cooldown", "already_playing", "display_limit",
      "not_playing", "clock_not_manual", "shutting_down", "reload_empty", "content_unavailable",
      "molang_budget", "molang_error", "internal");

  /** Whether {@code code} is one of {@link #ALL}. */
  public static boolean known(String code) {
    return ALL.contains(code);
  }
}
