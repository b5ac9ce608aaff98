// The Engine's memory floor: what any engine that keeps cfx's features must at least do per
// new order, timed on the bench's stream with no logic at all, so that `cfx bench book
// --engine` can show in the same run how far the Engine is from it and how far the floor
// itself is from the bare map book (docs/performance.md, "The memory floor").
//
// Per new order: read the command; hash the account and the client id; probe and insert the
// id in a table of every id ever used (8-byte buckets, brought in 8 commands ahead, as the
// Engine does: a duplicate ClOrdID is refused for the whole day, SPEC §4.2); append the id's
// record (account, order id, the id itself); write the order's slot (the size of
// engine::Order). No book, no events, no validation: the book is timed on its own by
// `cfx bench book`.
//
// Two command layouts: the Engine's own `Command` (a variant of 264 bytes, five names in a
// new order) and a 64-byte command whose account and contract are integer handles resolved
// before the matcher (what issue #13 names as the way to 0.30 × the bare book). The second
// shows what that change could win at most.
#ifndef CFX_ENGINE_MEMORY_FLOOR_H_
#define CFX_ENGINE_MEMORY_FLOOR_H_

#include <vector>

#include "cfx/engine/command.h"
#include "cfx/engine/workload.h"

namespace cfx::engine {

// The floor with the Engine's commands. Cancels, replaces and other commands are read and
// skipped (the Liquibook stream has none).
BenchFigures RunMemoryFloor(const std::vector<Command>& commands);

// The floor with 64-byte commands of handles, converted from `commands` before timing.
BenchFigures RunMemoryFloorWithHandles(const std::vector<Command>& commands);

}  // namespace cfx::engine

#endif  // CFX_ENGINE_MEMORY_FLOOR_H_
