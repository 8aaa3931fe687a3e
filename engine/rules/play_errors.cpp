#include "engine/rules/play_errors.hpp"

namespace emote::rules {

api::error play_error(api::error_code code) {
  api::error e;
  e.code = code;
  switch (code) {
  case api::error_code::unknown_player:
    e.message = "Player is not online.";
    break;
  case api::error_code::unknown_emote:
    e.message = "That emote does not exist.";
    break;
  case api::error_code::not_standalone:
    e.message = "This emote can only be played as part of a sequence.";
    break;
  case api::error_code::disabled:
    e.message = "This emote is currently unavailable.";
    break;
  case api::error_code::no_permission:
    e.message = "You do not have permission to use this emote.";
    break;
  case api::error_code::already_playing:
    e.message = "This emote is already playing.";
    break;
  case api::error_code::display_limit:
    e.message = "Too many emotes are active right now. Try again shortly.";
    break;
  case api::error_code::molang_budget:
    e.message = "This emote needs more work than the server allows per tick.";
    break;
  case api::error_code::molang_error:
    e.message = "This emote's Molang failed while starting.";
    break;
  case api::error_code::internal:
    e.message = "Something went wrong while starting the emote.";
    break;
  default:
    break;
  }
  return e;
}

} // namespace emote::rules
