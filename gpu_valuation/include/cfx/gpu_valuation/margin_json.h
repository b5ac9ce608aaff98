// JSON rendering of a margin answer (SPEC §12 `cfx margin`, reused by the HTTP API):
// {"account","margin","worst_scenario","method","backend","scenario":{...},"positions":[...]}
#ifndef CFX_GPU_VALUATION_MARGIN_JSON_H_
#define CFX_GPU_VALUATION_MARGIN_JSON_H_

#include <string>

#include "cfx/gpu_valuation/margin_engine.h"

namespace cfx::gpu_valuation {

// One JSON object on one line, no trailing newline. worst_scenario is a number for span16
// and mc, the file's label (a string) for a scenario file. Money as "USD.cc" strings.
std::string MarginResultToJson(const MarginResult& result);

}  // namespace cfx::gpu_valuation

#endif  // CFX_GPU_VALUATION_MARGIN_JSON_H_
