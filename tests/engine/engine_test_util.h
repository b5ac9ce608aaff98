// Helpers for engine tests: build §4.1 command lines and run them through replay.
#ifndef CFX_TESTS_ENGINE_ENGINE_TEST_UTIL_H_
#define CFX_TESTS_ENGINE_ENGINE_TEST_UTIL_H_

#include <string>
#include <vector>

#include "cfx/engine/engine.h"

namespace cfx::engine::testing {

inline constexpr const char* kSym = "B200-GOLD-US-202703";

std::string ProductLine(const std::string& ref = "5.000", const std::string& sym = kSym);
std::string StateLine(const std::string& state, const std::string& sym = kSym);
// A limit order; `extra` is appended inside the object (e.g. R"(,"tif":"ioc")").
std::string Limit(const std::string& cl, const std::string& acct, const std::string& side,
                  const std::string& px, int qty, const std::string& extra = "");
std::string Order(const std::string& cl, const std::string& acct, const std::string& side,
                  const std::string& type, int qty, const std::string& extra);
std::string CancelLine(const std::string& orig, const std::string& acct);
std::string ReplaceLine(const std::string& cl, const std::string& orig, const std::string& acct,
                        const std::string& extra);

// Runs the lines; returns every output line with `,"oid":N` removed.
// `engine`: nullptr for a fresh default Engine (as `cfx replay`).
std::vector<std::string> Run(const std::vector<std::string>& lines, Engine* engine = nullptr);
// Output lines without `seq`, so tests can list the expected events only.
std::vector<std::string> RunNoSeq(const std::vector<std::string>& lines, Engine* engine = nullptr);
// Lines of `out` that contain `needle`.
std::vector<std::string> Grep(const std::vector<std::string>& out, const std::string& needle);

// Expected output lines (without seq) for kSym: a trade, a cancel, the final book line
// (`bids`, `asks`: the JSON arrays as printed).
std::string Trade(const std::string& px, int qty, const std::string& bcl, const std::string& bacct,
                  const std::string& scl, const std::string& sacct, const std::string& agg);
std::string Canceled(const std::string& cl, const std::string& acct, int qty,
                     const std::string& reason);
std::string BookLine(const std::string& bids, const std::string& asks);

}  // namespace cfx::engine::testing

#endif  // CFX_TESTS_ENGINE_ENGINE_TEST_UTIL_H_
