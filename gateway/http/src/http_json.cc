#include "http_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "cfx/common/decimal.h"
#include "nlohmann/json.hpp"

namespace cfx::gateway {

const char* MarginMethodName(MarginMethod method) {
  return method == MarginMethod::kMc ? "mc" : "span16";
}

namespace internal {
namespace {

using nlohmann::json;

json Optional(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

// A measure (θ, a volume of GPU-hours) given as a decimal string: a JSON number, as `cfx
// reference build` and `cfx margin` print it (SPEC §12), not a string. An integer stays an
// integer; a fraction goes through double (shortest round trip: the digits come back as
// given). Text that is no decimal number stays a string.
json Measure(const std::string& text) {
  int64_t whole = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, whole);
  if (ec == std::errc() && p == end && !text.empty()) return json(whole);
  double d = 0;
  auto [q, ec2] = std::from_chars(text.data(), end, d, std::chars_format::fixed);
  if (ec2 == std::errc() && q == end && !text.empty() && std::isfinite(d)) return json(d);
  return json(text);
}
json OptionalMeasure(const std::optional<std::string>& v) {
  return v ? Measure(*v) : json(nullptr);
}

// Dumps with invalid UTF-8 replaced rather than thrown: provider strings are not trusted
// to be valid UTF-8, and an exception must not escape a handler.
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json TierMoves(const std::array<double, common::kNumTiers>& moves) {
  json tput = json::object();
  for (int t = 0; t < common::kNumTiers; ++t) tput[common::kTierNames[t]] = moves[t];
  return tput;
}

json ScenarioJson(const ScenarioParams& s) {
  json by_gpu = json::object();
  for (const auto& [gpu, moves] : s.tput_moves_by_gpu) by_gpu[gpu] = TierMoves(moves);
  // Providers that fill only `tput_moves` (the in-memory ones) still show it.
  const bool any =
      !s.tput_moves_by_gpu.empty() ||
      std::any_of(s.tput_moves.begin(), s.tput_moves.end(), [](double m) { return m != 0.0; });
  return json{{"number", s.number},
              {"label", s.label.empty() ? std::to_string(s.number) : s.label},
              {"weight", s.weight},
              {"price_move", s.price_move},
              {"tput_moves", any ? TierMoves(s.tput_moves) : json::object()},
              {"tput_moves_by_gpu", std::move(by_gpu)}};
}

}  // namespace

std::string ErrorJson(const std::string& error, const std::string& detail) {
  return Dump(json{{"error", error}, {"detail", detail}});
}

std::string UsdFromMicro(int64_t micro_usd) {
  return common::FormatScaled(common::DivRoundHalfEven(micro_usd, 10'000), 2);
}

std::string MarginJson(const std::optional<std::string>& account, MarginMethod method,
                       const MarginResult& result) {
  json positions = json::array();
  for (const MarginPositionLine& p : result.positions) {
    positions.push_back(json{{"sym", p.sym},
                             {"qty", p.qty},
                             {"settle", p.settle},
                             {"theta", OptionalMeasure(p.theta)},
                             {"price_per_mtok", Optional(p.price_per_mtok)},
                             {"worst_loss", UsdFromMicro(p.worst_loss_micro_usd)},
                             {"worst_loss_micro_usd", p.worst_loss_micro_usd}});
  }
  json j = json::object();
  if (account) j["account"] = *account;
  j["method"] = MarginMethodName(method);
  j["margin"] = UsdFromMicro(result.margin_micro_usd);
  j["margin_micro_usd"] = result.margin_micro_usd;
  j["worst_scenario"] = result.worst_scenario.number;
  j["scenario"] = ScenarioJson(result.worst_scenario);
  j["scenario_count"] = result.scenario_count;
  j["positions"] = std::move(positions);
  j["backend"] = result.backend;
  return Dump(j);
}

std::string PositionsJson(const std::string& account, const std::vector<PositionLine>& lines) {
  json positions = json::array();
  for (const PositionLine& p : lines) {
    positions.push_back(
        json{{"sym", p.sym},
             {"qty", p.qty},
             {"avg_price", Optional(p.avg_price)},
             {"last_price", Optional(p.last_price)},
             {"settle", Optional(p.settle)},
             {"open_buy_qty", p.open_buy_qty},
             {"open_sell_qty", p.open_sell_qty},
             {"vm", p.vm_micro_usd ? json(UsdFromMicro(*p.vm_micro_usd)) : json(nullptr)}});
  }
  return Dump(json{{"account", account}, {"positions", std::move(positions)}});
}

std::string BookJson(const BookSnapshot& book) {
  auto levels = [](const std::vector<HttpBookLevel>& side) {
    json out = json::array();
    for (const HttpBookLevel& l : side) out.push_back(json::array({l.price, l.qty, l.count}));
    return out;
  };
  json last = nullptr;
  if (book.last_trade) {
    last = json{{"px", book.last_trade->price}, {"qty", book.last_trade->qty}};
    if (!book.last_trade->ts.empty()) last["ts"] = book.last_trade->ts;
  }
  return Dump(json{{"sym", book.sym},
                   {"state", book.state},
                   {"seq", book.seq},
                   {"bids", levels(book.bids)},
                   {"asks", levels(book.asks)},
                   {"last_trade", std::move(last)}});
}

std::string FixesJson(const std::string& grade, const std::string& from, const std::string& to,
                      const std::vector<FixRecord>& records, bool revisions) {
  json fixes = json::array();
  for (const FixRecord& r : records) {
    json fix = json{{"grade", r.grade},
                    {"date", r.date},
                    {"fix", Optional(r.fix)},
                    {"level", r.level ? json(*r.level) : json(nullptr)},
                    {"p25", Optional(r.p25)},
                    {"p75", Optional(r.p75)},
                    {"n_obs", r.n_obs},
                    {"n_dropped", r.n_dropped},
                    {"n_providers", r.n_providers},
                    {"volume", Measure(r.volume)},
                    {"theta", OptionalMeasure(r.theta)},
                    {"price_per_mtok", Optional(r.price_per_mtok)},
                    {"flags", r.flags},
                    {"methodology", r.methodology},
                    {"inputs_sha256", Optional(r.inputs_sha256)}};
    if (revisions) {
      fix["revision"] = r.revision;
      fix["reason"] = r.reason;
    }
    fixes.push_back(std::move(fix));
  }
  return Dump(json{{"grade", grade}, {"from", from}, {"to", to}, {"fixes", std::move(fixes)}});
}

}  // namespace internal
}  // namespace cfx::gateway
