#pragma once
// Participant placement coordinates (formats.md §2.4): `~x ~y ~z`, `^l ^u ^f`, and `yaw pitch`.

#include "engine/core/result.hpp"

#include <array>
#include <string>
#include <string_view>

namespace emote::core {

/// One component: relative (`~`, or any local `^` component) or absolute, with its number
/// (0 when omitted).
struct coordinate {
  bool relative = true;
  double value = 0;
  friend bool operator==(const coordinate&, const coordinate&) = default;
};

/// `local`: the three components are ^left ^up ^forwards; otherwise ~x ~y ~z.
struct position_coordinates {
  bool local = false;
  std::array<coordinate, 3> components{};
  friend bool operator==(const position_coordinates&, const position_coordinates&) = default;
};

/// Yaw then pitch (the pitch is parsed but ignored by playback).
struct rotation_coordinates {
  coordinate yaw;
  coordinate pitch;
  friend bool operator==(const rotation_coordinates&, const rotation_coordinates&) = default;
};

/// The error is the complete message: "contains trailing input", "must use only relative ~ or
/// local ^ coordinates" or "invalid Minecraft coordinates: <detail>".
result<position_coordinates, std::string> parse_position(std::string_view s);
result<rotation_coordinates, std::string> parse_rotation(std::string_view s);

} // namespace emote::core
