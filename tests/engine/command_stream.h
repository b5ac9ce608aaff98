// Random command streams for the differential test, and their §4.1 replay lines (so a
// failing stream can be run with `cfx replay --input`).
//
// Usage:
//   std::vector<Command> cmds = RandomStream(/*seed=*/1, 4000, /*sessions=*/true);
//   std::string line = ToReplayLine(cmds[0]);
#ifndef CFX_TESTS_ENGINE_COMMAND_STREAM_H_
#define CFX_TESTS_ENGINE_COMMAND_STREAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cfx/engine/command.h"

namespace cfx::engine::testing {

// `n` random commands for the contract "S" (listed with ref 5.000 or none), reproducible by
// `seed`; no ProductCmd. Times are whole seconds of 2027-03-01 (UTC). With `sessions` the
// stream moves the contract between states and closes it; else the contract stays open.
std::vector<Command> RandomStream(uint64_t seed, int n, bool sessions);

// The command as one §4.1 replay line. An off-tick price prints as its ticks plus a fifth
// decimal (5.0005).
std::string ToReplayLine(const Command& cmd);

}  // namespace cfx::engine::testing

#endif  // CFX_TESTS_ENGINE_COMMAND_STREAM_H_
