// Demo step e: the risk desk over HTTP. Margin of every account with the risk-desk token,
// one what-if portfolio, and the access rules (SPEC §7): a firm's token on another firm's
// account is 403, no token is 401.
#include "cfx/client/http_client.h"
#include "demo_credentials.h"
#include "demo_internal.h"
#include "nlohmann/json.hpp"

namespace cfx::demo {

namespace {

// The benchmark as the desk sees it over HTTP: every product grade's fixes from the first
// of the month before the first traded day, and the explanation of the first grade's fix
// on the last traded day (the latest it has, when that one was not published).
absl::Status ReadReference(const common::ExchangeConfig& config, HttpClient& client,
                           const std::string& token, const std::vector<common::Date>& days,
                           RiskResult& result, std::ostream& log) {
  int y, m, d;
  common::YmdFromDate(days.front(), &y, &m, &d);
  const common::Date from =
      m == 1 ? common::DateFromYmd(y - 1, 12, 1) : common::DateFromYmd(y, m - 1, 1);
  result.reference_from = common::FormatDate(from);
  const std::string to = common::FormatDate(days.back());
  int64_t records = 0;
  bool explain_level1 = false;
  for (const common::ProductConfig& p : config.products) {
    const std::string grade = p.grade.Key();
    absl::StatusOr<HttpClientResponse> r = client.Get(
        "/v1/reference/" + grade + "?from=" + result.reference_from + "&to=" + to, token);
    if (!r.ok()) return r.status();
    nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
    if (r->status != 200 || j.is_discarded() || !j.contains("fixes")) {
      return absl::InternalError("GET reference of " + grade + ": HTTP " +
                                 std::to_string(r->status) + " " + r->body);
    }
    records += static_cast<int64_t>(j["fixes"].size());
    result.reference_json[grade] = j["fixes"].dump();
    // The fix to explain: the latest one made from the day's own trades (level 1) of any
    // grade, else the latest fix at all.
    for (auto it = j["fixes"].rbegin(); it != j["fixes"].rend(); ++it) {
      if (!it->contains("fix") || (*it)["fix"].is_null()) continue;
      const bool level1 = (*it)["level"] == 1;
      const std::string date = (*it)["date"].get<std::string>();
      if (result.explain_grade.empty() || (level1 && (!explain_level1 || date > result.explain_date))) {
        result.explain_grade = grade;
        result.explain_date = date;
        explain_level1 = level1;
      }
      if (level1) break;
    }
  }
  if (!result.explain_grade.empty()) {
    absl::StatusOr<HttpClientResponse> r = client.Get(
        "/v1/reference/" + result.explain_grade + "/" + result.explain_date + "/explain", token);
    if (!r.ok()) return r.status();
    if (r->status != 200) {
      return absl::InternalError("GET explain of " + result.explain_grade + " " +
                                 result.explain_date + ": HTTP " + std::to_string(r->status));
    }
    result.explain_json = r->body;
  }
  // The security master: every contract listed, with its terms.
  absl::StatusOr<HttpClientResponse> listed = client.Get("/v1/contracts", token);
  if (!listed.ok()) return listed.status();
  nlohmann::json contracts = nlohmann::json::parse(listed->body, nullptr, false);
  if (listed->status != 200 || contracts.is_discarded() || !contracts.contains("contracts")) {
    return absl::InternalError("GET /v1/contracts: HTTP " + std::to_string(listed->status));
  }
  result.contracts_json = contracts["contracts"].dump();
  log << "  reference: " << records << " fix records of " << config.products.size()
      << " grades since " << result.reference_from << "; the explanation of "
      << result.explain_grade << " " << result.explain_date << "; the security master ("
      << nlohmann::json::parse(result.contracts_json).size() << " contracts)\n";
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RiskResult> RunRiskDesk(const common::ExchangeConfig& config, Venue& venue,
                                       const SettleDayResult& last_day,
                                       const std::vector<common::Date>& days, std::ostream& log) {
  absl::StatusOr<HttpClient> client = HttpClient::Connect("127.0.0.1", venue.http_port());
  if (!client.ok()) return client.status();
  const std::string risk = DemoToken(common::TokenRole::kRiskDesk, "");
  if (risk.empty()) return absl::FailedPreconditionError("the demo has no risk_desk token");

  RiskResult result;
  for (const common::AccountConfig& a : config.accounts) {
    absl::StatusOr<HttpClientResponse> r =
        client->Get("/v1/accounts/" + a.id + "/margin?method=span16", risk);
    if (!r.ok()) return r.status();
    MarginAnswer answer{.account = a.id, .http_status = r->status};
    if (r->status != 200) {
      return absl::InternalError("GET margin of " + a.id + ": HTTP " + std::to_string(r->status) +
                                 " " + r->body);
    }
    nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
    if (j.is_discarded() || !j.contains("margin")) {
      return absl::InternalError("GET margin of " + a.id + ": unreadable answer " + r->body);
    }
    answer.margin = j["margin"].get<std::string>();
    answer.worst_scenario = j["worst_scenario"].dump();
    answer.positions = j.contains("positions") ? static_cast<int64_t>(j["positions"].size()) : 0;
    answer.positions_json = j.contains("positions") ? j["positions"].dump() : "[]";
    for (const AccountSettlement& s : last_day.accounts) {
      if (s.account == a.id) answer.call_micro = s.call;
    }
    result.accounts.push_back(answer);
    log << "  " << a.id << ": margin " << answer.margin << " USD (worst scenario "
        << answer.worst_scenario << ", " << answer.positions << " positions)\n";
  }

  // What-if: a short in the first contract settled that day and a long in the second.
  std::vector<std::string> syms;
  for (const SettledContract& c : last_day.contracts) syms.push_back(c.sym);
  if (syms.size() >= 2) {
    nlohmann::json body = {
        {"method", "span16"},
        {"positions", {{{"sym", syms[0]}, {"qty", -20}}, {{"sym", syms[1]}, {"qty", 10}}}}};
    result.whatif_portfolio = syms[0] + " -20, " + syms[1] + " +10";
    absl::StatusOr<HttpClientResponse> r =
        client->Request("POST", "/v1/margin/whatif", risk, body.dump());
    if (!r.ok()) return r.status();
    result.whatif_status = r->status;
    nlohmann::json j = nlohmann::json::parse(r->body, nullptr, false);
    if (r->status != 200 || j.is_discarded() || !j.contains("margin")) {
      return absl::InternalError("POST what-if: HTTP " + std::to_string(r->status) + " " + r->body);
    }
    result.whatif_body_margin = j["margin"].get<std::string>();
    log << "  what-if (" << result.whatif_portfolio << "): margin " << result.whatif_body_margin
        << " USD\n";
  }

  // Before the access checks: a 401 puts the peer in back-off.
  if (absl::Status s = ReadReference(config, *client, risk, days, result, log); !s.ok()) return s;

  // Access control: the first firm's token on another firm's account.
  const common::AccountConfig* other = nullptr;
  for (const common::AccountConfig& a : config.accounts) {
    if (a.firm != config.firms.front().id) {
      other = &a;
      break;
    }
  }
  const std::string firm_token =
      DemoToken(common::TokenRole::kFirm, config.firms.front().id);
  if (other && !firm_token.empty()) {
    absl::StatusOr<HttpClientResponse> r =
        client->Get("/v1/accounts/" + other->id + "/margin", firm_token);
    if (!r.ok()) return r.status();
    result.cross_firm_status = r->status;
    log << "  " << config.firms.front().id << "'s token on " << other->id << ": HTTP " << r->status
        << "\n";
    if (r->status != 403) {
      return absl::InternalError("cross-firm margin query answered " + std::to_string(r->status) +
                                 ", expected 403");
    }
  }
  absl::StatusOr<HttpClientResponse> r =
      client->Get("/v1/accounts/" + config.accounts.front().id + "/margin", "");
  if (!r.ok()) return r.status();
  result.no_token_status = r->status;
  log << "  no token on " << config.accounts.front().id << ": HTTP " << r->status << "\n";
  if (r->status != 401) {
    return absl::InternalError("margin query without a token answered " +
                               std::to_string(r->status) + ", expected 401");
  }
  return result;
}

}  // namespace cfx::demo
