#pragma once
// The Molang dialect of the Emote mod (spec docs/spec/molang.md, notes
// docs/guide/molang-implementation.md): the public facade.
//
//   symbol_table symbols;                       // one per Animation, shared by all its strings
//   auto out = compile("v.x = q.anim_time * 2", program_kind::program, symbols);
//   if (!out.ok()) report(out.error);           // e.g. "invalid Molang program: ... at 1:3"
//   session s(symbols);                         // per playback; reset() per Molang session
//   auto r = evaluate(*out.program, s, frame, player_or_null, generator);
//
// compile() is O(source length) and runs at load; evaluate() allocates nothing in steady state.

#include "engine/molang/compiler.hpp"       // compile, compile_output, quirk_warning
#include "engine/molang/evaluator.hpp"      // evaluate, eval_result, eval_status
#include "engine/molang/math_functions.hpp" // math::*, random::*, math_member
#include "engine/molang/program.hpp"        // program, program_kind
#include "engine/molang/queries.hpp"        // frame_queries, player_view, query catalog
#include "engine/molang/session.hpp"        // session
#include "engine/molang/symbol_table.hpp"   // symbol_table
#include "engine/molang/value.hpp"          // value
