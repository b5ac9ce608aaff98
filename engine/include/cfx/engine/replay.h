// `cfx replay`: the engine's conformance interface (SPEC §4.1). Reads JSON command lines,
// runs them through an Engine with no pre-trade risk, and writes one JSON event per line,
// then one `book` event per symbol that ever accepted an order, sorted by symbol.
// Malformed lines give `rejected` / `invalid_field` with the 1-based line; replay never stops.
//
// Usage:
//   std::ifstream in("commands.jsonl");
//   cfx::engine::RunReplay(in, std::cout);
#ifndef CFX_ENGINE_REPLAY_H_
#define CFX_ENGINE_REPLAY_H_

#include <iosfwd>
#include <string>
#include <string_view>

#include "cfx/engine/command.h"
#include "cfx/engine/engine.h"

namespace cfx::engine {

struct ParsedLine {
  enum class Kind { kBlank, kCommand, kInvalid };
  Kind kind = Kind::kBlank;
  Command command;
  // For kInvalid: the client id and account when the line had them as strings (else empty).
  std::string cl, acct;
};

// Parses one physical line (§4.1 commands, §4.2 invalid_field rules).
ParsedLine ParseCommandLine(std::string_view line);

// The longest line a replay reads as a command (SPEC §4.1: no field of a command comes close);
// a longer one is rejected `invalid_field` as a whole, without being held in memory.
inline constexpr size_t kMaxReplayLine = size_t{1} << 20;

// Reads the next line of `in` (without its '\n') into *line. kTooLong: a line longer than
// kMaxReplayLine, read to its end and dropped (*line empty); a blank one (spaces, tabs, CR)
// of any length is kLine and empty. kEnd: nothing left.
enum class ReplayLine { kLine, kTooLong, kEnd };
ReplayLine ReadReplayLine(std::istream& in, std::string* line);

struct ReplayResult {
  uint64_t lines = 0;
  uint64_t events = 0;  // lines written
  uint64_t state_hash = 0;
};

// Runs every line of `in`; writes events to `out`. `engine` (optional) is used instead of a
// fresh one so callers can inspect its final state.
ReplayResult RunReplay(std::istream& in, std::ostream& out, Engine* engine = nullptr);

}  // namespace cfx::engine

#endif  // CFX_ENGINE_REPLAY_H_
