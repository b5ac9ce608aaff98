// The HTTP API's margin answer (http_providers.h MarginResult) of a valuation result
// (gpu_valuation MarginResult): what CoreHttpProviders serves for `GET
// /v1/accounts/{acct}/margin` and `POST /v1/margin/whatif`, in one place so that anything
// else serving the valuation engine over HTTP (the margin endpoint of `cfx bench http`)
// answers exactly the same way.
//
//   absl::StatusOr<gpu_valuation::MarginResult> r = engine->ComputeAccount(acct, book);
//   if (r.ok()) return ToHttpMargin(*r, engine->scenarios().scenarios.size());
#ifndef CFX_GATEWAY_MARGIN_ANSWER_H_
#define CFX_GATEWAY_MARGIN_ANSWER_H_

#include "cfx/gateway/http_providers.h"
#include "cfx/gpu_valuation/margin_engine.h"

namespace cfx::gateway {

// `scenario_count`: the size of the scenario set `r` was computed on (16 for span16).
MarginResult ToHttpMargin(const gpu_valuation::MarginResult& r, int scenario_count);

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_MARGIN_ANSWER_H_
