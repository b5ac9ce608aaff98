#include "cfx/gateway/margin_answer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cfx/common/decimal.h"

namespace cfx::gateway {

MarginResult ToHttpMargin(const gpu_valuation::MarginResult& r, int scenario_count) {
  MarginResult out;
  out.margin_micro_usd = r.margin_micro;  // exact; `margin` shows it rounded to cents
  out.scenario_count = scenario_count;
  out.backend = r.backend;  // until 2026-12-07 dropped here (a review)
  out.worst_scenario.number = r.worst_scenario_index + 1;
  out.worst_scenario.label = r.worst_scenario;
  out.worst_scenario.weight = r.weight;
  out.worst_scenario.price_move = r.price_move;
  if (!r.tput_moves.empty()) out.worst_scenario.tput_moves = r.tput_moves.front().second;
  out.worst_scenario.tput_moves_by_gpu = r.tput_moves;
  for (const gpu_valuation::PositionRisk& p : r.positions) {
    MarginPositionLine line;
    line.sym = p.sym;
    line.qty = p.qty;
    line.settle = common::FormatScaled(p.settle_ticks, 3);
    if (p.theta) line.theta = common::FormatMeasure(*p.theta);  // as the reference records
    if (p.price_per_mtok_e4) line.price_per_mtok = common::FormatScaled(*p.price_per_mtok_e4, 4);
    line.worst_loss_micro_usd = p.worst_loss_micro;
    out.positions.push_back(std::move(line));
  }
  return out;
}

}  // namespace cfx::gateway
