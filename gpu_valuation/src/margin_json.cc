#include "cfx/gpu_valuation/margin_json.h"

#include "cfx/common/decimal.h"
#include "nlohmann/json.hpp"

namespace cfx::gpu_valuation {

std::string MarginResultToJson(const MarginResult& r) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["account"] = r.account;
  j["margin"] = common::FormatScaled(r.margin_cents, 2);
  // span16 and mc number their scenarios; a file's labels are free text.
  if (r.method == "file") {
    j["worst_scenario"] = r.worst_scenario;
  } else {
    j["worst_scenario"] = r.worst_scenario_index + 1;
  }
  j["method"] = r.method;
  j["backend"] = r.backend;
  Json scenario;
  scenario["label"] = r.worst_scenario;
  scenario["weight"] = r.weight;
  scenario["price_move"] = r.price_move;
  Json tput = Json::object();
  for (const auto& [gpu, moves] : r.tput_moves) {
    Json per_tier;
    for (int t = 0; t < common::kNumTiers; ++t) per_tier[common::kTierNames[t]] = moves[t];
    tput[gpu] = per_tier;
  }
  scenario["tput_move"] = tput;
  scenario["loss"] = common::FormatScaled(common::DivRoundHalfEven(r.loss_micro, 10'000), 2);
  j["scenario"] = scenario;
  Json positions = Json::array();
  for (const PositionRisk& p : r.positions) {
    Json e;
    e["sym"] = p.sym;
    e["qty"] = p.qty;
    e["settle"] = common::FormatScaled(p.settle_ticks, 3);
    e["theta"] = p.theta.has_value() ? Json(*p.theta) : Json(nullptr);
    e["price_per_mtok"] = p.price_per_mtok_e4.has_value()
                              ? Json(common::FormatScaled(*p.price_per_mtok_e4, 4))
                              : Json(nullptr);
    e["worst_loss"] = common::FormatScaled(common::DivRoundHalfEven(p.worst_loss_micro, 10'000), 2);
    positions.push_back(std::move(e));
  }
  j["positions"] = std::move(positions);
  return j.dump();
}

}  // namespace cfx::gpu_valuation
