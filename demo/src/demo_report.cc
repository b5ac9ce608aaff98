// Demo step f: the summary (printed) and <out>/report.md + report.json with the same
// content. report.json is what tests/demo checks; its keys are documented in docs/demo.md.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cfx/storage/private_files.h"
#include "demo_html.h"
#include "demo_internal.h"
#include "nlohmann/json.hpp"

namespace cfx::demo {

std::string UsdFromMicro(common::MicroUsd amount) {
  // Round half to even to cents.
  const int64_t micro = amount.value();
  int64_t cents = micro / 10000, rem = micro % 10000;
  if (rem < 0) {
    rem += 10000;
    --cents;
  }
  if (rem > 5000 || (rem == 5000 && (cents & 1))) ++cents;
  const bool neg = cents < 0;
  const int64_t abs_cents = neg ? -cents : cents;
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%s%lld.%02lld", neg ? "-" : "",
                static_cast<long long>(abs_cents / 100), static_cast<long long>(abs_cents % 100));
  return buf;
}

std::string E4(int64_t e4) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%04lld", static_cast<long long>(e4 / 10000),
                static_cast<long long>(e4 % 10000));
  return buf;
}

namespace {

std::string Px(common::PriceTicks price) {
  const int64_t ticks = price.value();
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%lld.%03lld", static_cast<long long>(ticks / 1000),
                static_cast<long long>(ticks % 1000));
  return buf;
}

// {sym: qty}, the quantities as bare numbers.
nlohmann::json PositionsJson(const std::map<std::string, common::Qty>& positions) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [sym, qty] : positions) out[sym] = qty.value();
  return out;
}

// A JSON text the exchange answered, embedded as JSON; null when empty or unreadable.
nlohmann::json ParsedOrNull(const std::string& text) {
  if (text.empty()) return nullptr;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

nlohmann::json ToJson(const DemoRun& run) {
  using nlohmann::json;
  const TradingResult& t = run.trading;
  json j;
  j["date"] = common::FormatDate(run.days.front());
  j["days"] = run.days.size();
  json dates = json::array();
  for (const common::Date d : run.days) dates.push_back(common::FormatDate(d));
  j["dates"] = dates;
  json firms = json::array();
  for (const FirmRole& f : t.firms) {
    firms.push_back({{"firm", f.firm},
                     {"session", f.session},
                     {"role", f.role},
                     {"params", f.params},
                     {"accounts", f.accounts}});
  }
  j["firms"] = firms;
  j["seed"] = run.options.seed;
  j["exchange"] = run.venue;
  j["seconds"] = run.seconds;
  j["data"] = {{"observations", run.data.observations},
               {"throughput_rows", run.data.throughput_rows},
               {"fix_records", run.data.records}};
  json fixes = json::array();
  for (const FixUsed& f : run.data.fixes) {
    fixes.push_back(
        {{"grade", f.grade},
         {"date", common::FormatDate(f.date)},
         {"fix", f.fix_e4 ? json(E4(*f.fix_e4)) : json(nullptr)},
         {"level", f.level ? json(*f.level) : json(nullptr)},
         {"price_per_mtok", f.price_per_mtok_e4 ? json(E4(*f.price_per_mtok_e4)) : json(nullptr)},
         {"flags", f.flags}});
  }
  j["fixes"] = fixes;
  j["trading"] = {{"sessions", t.sessions},
                  {"orders", t.orders},
                  {"quotes", t.quotes},
                  {"cancels", t.cancels},
                  {"deliberate_late_cancels", t.deliberate_late_cancels},
                  {"throttled", t.throttled},
                  {"disconnect_cancels", t.disconnect_cancels},
                  {"replaces", t.replaces},
                  {"orders_by_type", t.orders_by_type},
                  {"exec_reports", t.exec_reports},
                  {"trades", t.trades},
                  {"volume", t.volume},
                  {"closing_window_trades", t.closing_window_trades},
                  {"trades_by_symbol", t.trades_by_symbol},
                  {"volume_by_symbol", t.volume_by_symbol},
                  {"rejects", t.rejects},
                  {"cancel_rejects", t.cancel_rejects},
                  {"cancels_by_reason", t.cancels_by_reason}};
  json by_day = json::array();
  for (const TradingDay& d : t.by_day) {
    by_day.push_back({{"date", common::FormatDate(d.date)},
                      {"orders", d.orders},
                      {"quotes", d.quotes},
                      {"cancels", d.cancels},
                      {"trades", d.trades},
                      {"volume", d.volume},
                      {"throttled", d.throttled},
                      {"disconnect_cancels", d.disconnect_cancels}});
  }
  j["trading"]["by_day"] = by_day;
  j["book_at_close"] = {
      {"sym", t.md_symbol},
      {"date", t.book_at_close.empty() ? json(nullptr) : json(common::FormatDate(t.book_date))},
      {"book", ParsedOrNull(t.book_at_close)}};
  json grades = json::object();
  for (const auto& [grade, fixes] : run.risk.reference_json) grades[grade] = ParsedOrNull(fixes);
  j["reference"] = {{"from", run.risk.reference_from},
                    {"to", common::FormatDate(run.days.back())},
                    {"grades", grades}};
  j["contracts"] = ParsedOrNull(run.risk.contracts_json);
  j["explain"] = {{"grade", run.risk.explain_grade},
                  {"date", run.risk.explain_date},
                  {"explanation", ParsedOrNull(run.risk.explain_json)}};
  j["drop_copy"] = {{"firm_exec_reports", t.alpha_exec_reports}, {"copies", t.drop_copies}};
  j["market_data"] = {{"symbol", t.md_symbol},
                      {"snapshots", t.md_snapshots},
                      {"incrementals", t.md_incrementals},
                      {"rejects", t.md_rejects}};
  json days = json::array();
  for (const SettleDayResult& d : run.settlement) {
    json prices = json::array();
    for (const SettledContract& c : d.contracts) {
      prices.push_back(
          {{"sym", c.sym},
           {"settle", Px(c.settle)},
           {"tier", c.tier},
           {"prior_settle", c.prior_settle ? json(Px(*c.prior_settle)) : json(nullptr)}});
    }
    json accounts = json::array();
    for (const AccountSettlement& a : d.accounts) {
      accounts.push_back({{"account", a.account},
                          {"vm", UsdFromMicro(a.vm)},
                          {"cash", UsdFromMicro(a.cash)},
                          {"collateral", UsdFromMicro(a.collateral)},
                          {"margin", UsdFromMicro(a.margin)},
                          {"call", UsdFromMicro(a.call)},
                          {"positions", PositionsJson(a.positions)}});
    }
    days.push_back({{"date", common::FormatDate(d.date)},
                    {"contracts", d.listed},
                    {"tiers", d.tiers},
                    {"settlement_prices", prices},
                    {"accounts", accounts},
                    {"vm_sum_micro_usd", d.vm_sum.value()},
                    {"margin_source", d.margin_source},
                    {"statements", d.statement_files},
                    {"surveillance", ParsedOrNull(d.surveillance_json)}});
  }
  j["settlement"] = days;
  json margins = json::array();
  for (const MarginAnswer& m : run.risk.accounts) {
    margins.push_back({{"account", m.account},
                       {"http_status", m.http_status},
                       {"margin", m.margin},
                       {"worst_scenario", m.worst_scenario},
                       {"positions", m.positions},
                       {"positions_detail", ParsedOrNull(m.positions_json)},
                       {"call", m.call_micro ? json(UsdFromMicro(*m.call_micro)) : json(nullptr)}});
  }
  j["risk"] = {
      {"margins", margins},
      {"as_of", run.settlement.empty() ? json(nullptr)
                                       : json(common::FormatDate(run.settlement.back().date))},
      {"whatif",
       {{"portfolio", run.risk.whatif_portfolio},
        {"http_status", run.risk.whatif_status},
        {"margin", run.risk.whatif_body_margin}}},
      {"cross_firm_status", run.risk.cross_firm_status},
      {"no_token_status", run.risk.no_token_status}};
  return j;
}

std::string Markdown(const DemoRun& run) {
  std::ostringstream o;
  const TradingResult& t = run.trading;
  o << "# cfx demo report\n\n"
    << "Trading day" << (run.days.size() > 1 ? "s " : " ");
  for (size_t i = 0; i < run.days.size(); ++i)
    o << (i ? ", " : "") << common::FormatDate(run.days[i]);
  o << ", seed " << run.options.seed << ". Exchange: " << run.venue << ".\n\n";
  o << "## Reference fixes used\n\n| grade | date | fix (USD/GPU-h) | level | USD per 1M output "
       "tokens | flags |\n"
    << "|---|---|---|---|---|---|\n";
  for (const FixUsed& f : run.data.fixes) {
    o << "| " << f.grade << " | " << common::FormatDate(f.date) << " | "
      << (f.fix_e4 ? E4(*f.fix_e4) : "-") << " | " << (f.level ? std::to_string(*f.level) : "-")
      << " | " << (f.price_per_mtok_e4 ? E4(*f.price_per_mtok_e4) : "-") << " | ";
    for (size_t i = 0; i < f.flags.size(); ++i) o << (i ? ";" : "") << f.flags[i];
    o << " |\n";
  }
  o << "\nFrom " << run.data.observations << " observations and " << run.data.throughput_rows
    << " throughput rows (inputs/), " << run.data.records << " fix records published.\n\n";
  o << "## Trading (FIX)\n\n| firm | session | role | accounts | behaviour "
       "|\n|---|---|---|---|---|\n";
  for (const FirmRole& f : t.firms) {
    o << "| " << f.firm << " | " << f.session << " | " << f.role << " | ";
    for (size_t i = 0; i < f.accounts.size(); ++i) o << (i ? ", " : "") << f.accounts[i];
    o << " | " << f.params << " |\n";
  }
  o << "\n| day | orders | of which quotes | cancels | trades | contracts | throttled | canceled "
       "on "
       "disconnect |\n|---|---|---|---|---|---|---|---|\n";
  for (const TradingDay& d : t.by_day) {
    o << "| " << common::FormatDate(d.date) << " | " << d.orders << " | " << d.quotes << " | "
      << d.cancels << " | " << d.trades << " | " << d.volume << " | " << d.throttled << " | "
      << d.disconnect_cancels << " |\n";
  }
  o << "\n| orders | cancels | replaces | trades | volume (contracts) | in the closing window "
       "|\n"
    << "|---|---|---|---|---|---|\n| " << t.orders << " | " << t.cancels << " | " << t.replaces
    << " | " << t.trades << " | " << t.volume << " | " << t.closing_window_trades << " |\n\n";
  o << "Orders by type: ";
  bool first = true;
  for (const auto& [k, v] : t.orders_by_type) {
    o << (first ? "" : ", ") << k << " " << v;
    first = false;
  }
  o << ".\n\n| reject reason | count |\n|---|---|\n";
  for (const auto& [k, v] : t.rejects) o << "| " << k << " | " << v << " |\n";
  for (const auto& [k, v] : t.cancel_rejects)
    o << "| cancel/replace: " << k << " | " << v << " |\n";
  o << "\nCanceled by reason: ";
  first = true;
  for (const auto& [k, v] : t.cancels_by_reason) {
    o << (first ? "" : ", ") << k << " " << v;
    first = false;
  }
  o << ".\n\nDrop copy: " << t.drop_copies << " copies for " << t.alpha_exec_reports
    << " execution reports of the firm ("
    << (t.drop_copies == t.alpha_exec_reports ? "equal" : "DIFFERENT") << "). Market data on "
    << t.md_symbol << ": " << t.md_snapshots << " snapshot(s), " << t.md_incrementals
    << " incremental refreshes";
  for (const auto& [k, v] : t.md_rejects) o << "; MarketDataRequestReject: " << k;
  o << ".\n\n";
  for (const SettleDayResult& d : run.settlement) {
    o << "## Settlement " << common::FormatDate(d.date) << "\n\n"
      << d.listed << " contracts settled; tiers:";
    for (const auto& [k, v] : d.tiers) o << " " << k << " " << v;
    o << ". Σ VM = " << d.vm_sum.value() << " micro-USD. Initial margin: " << d.margin_source
      << ".\n\n"
      << "| contract | settle | tier | prior |\n|---|---|---|---|\n";
    int shown = 0;
    for (const SettledContract& c : d.contracts) {
      if (++shown > 12) break;  // the traded ones come first; the rest are in statements/
      o << "| " << c.sym << " | " << Px(c.settle) << " | " << c.tier << " | "
        << (c.prior_settle ? Px(*c.prior_settle) : "-") << " |\n";
    }
    o << "\n| account | VM (USD) | cash | initial margin | call |\n|---|---|---|---|---|\n";
    for (const AccountSettlement& a : d.accounts) {
      o << "| " << a.account << " | " << UsdFromMicro(a.vm) << " | " << UsdFromMicro(a.cash)
        << " | " << UsdFromMicro(a.margin) << " | " << UsdFromMicro(a.call) << " |\n";
    }
    o << "\nStatements: statements/" << common::FormatDate(d.date) << "/ ("
      << d.statement_files.size() << " files).\n\n";
  }
  o << "## Risk desk (HTTP)\n\n| account | HTTP | margin (USD) | worst scenario | positions |\n"
    << "|---|---|---|---|---|\n";
  for (const MarginAnswer& m : run.risk.accounts) {
    o << "| " << m.account << " | " << m.http_status << " | " << m.margin << " | "
      << m.worst_scenario << " | " << m.positions << " |\n";
  }
  o << "\nWhat-if (" << run.risk.whatif_portfolio << "): HTTP " << run.risk.whatif_status
    << ", margin " << run.risk.whatif_body_margin << " USD. A firm token on another firm's "
    << "account: HTTP " << run.risk.cross_firm_status << "; no token: HTTP "
    << run.risk.no_token_status << ".\n";
  return o.str();
}

}  // namespace

absl::Status WriteReport(const DemoRun& run, const DemoPaths& paths, std::ostream& out) {
  // Each file whole or not at all (0600, a temporary file renamed), an error naming it: until
  // 2026-12-07 a full disk could leave a report cut short and the run exiting 0.
  const nlohmann::json report = ToJson(run);
  for (const auto& [name, text] : {std::pair<const char*, std::string>{"report.md", Markdown(run)},
                                   {"report.json", report.dump(2) + "\n"},
                                   {"report.html", RenderHtmlReport(report)}}) {
    if (absl::Status s = storage::WritePrivateFile(paths.out + "/" + name, text); !s.ok()) {
      return s;
    }
  }
  const TradingResult& t = run.trading;
  int64_t rejects = 0;
  for (const auto& [k, v] : t.rejects) rejects += v;
  out << "\nSummary: " << run.days.size() << " trading day(s), "
      << common::FormatDate(run.days.front()) << " .. " << common::FormatDate(run.days.back())
      << "\n  firms:";
  for (size_t i = 0; i < t.firms.size(); ++i) {
    out << (i == 0 ? " " : "; ") << t.firms[i].session << " (" << t.firms[i].role << ")";
  }
  out << "\n  trading: " << t.orders << " orders (" << t.quotes << " market-maker quotes), "
      << t.trades << " trades, " << t.volume << " contracts; " << rejects << " rejects";
  if (!t.rejects.empty()) {
    out << " (";
    bool first = true;
    for (const auto& [k, v] : t.rejects) {
      out << (first ? "" : ", ") << k << " " << v;
      first = false;
    }
    out << ")";
  }
  out << "\n  " << t.throttled << " requests refused for the throttle, " << t.disconnect_cancels
      << " orders canceled when their firm disconnected; drop copy " << t.drop_copies << "/"
      << t.alpha_exec_reports << " reports\n";
  out << "  day        trades  contracts  VM by account (USD)                 sum\n";
  for (size_t i = 0; i < run.settlement.size(); ++i) {
    const SettleDayResult& d = run.settlement[i];
    const TradingDay* td = i < t.by_day.size() ? &t.by_day[i] : nullptr;
    char head[64];
    std::snprintf(head, sizeof(head), "  %s %7lld %10lld  ", common::FormatDate(d.date).c_str(),
                  static_cast<long long>(td ? td->trades : 0),
                  static_cast<long long>(td ? td->volume : 0));
    out << head;
    for (const AccountSettlement& a : d.accounts)
      out << a.account << " " << UsdFromMicro(a.vm) << "  ";
    out << "(" << d.vm_sum.value() << ")\n";
  }
  if (!run.settlement.empty()) {
    const SettleDayResult& last = run.settlement.back();
    out << "  after " << common::FormatDate(last.date) << ": initial margin / call:";
    const char* sep = " ";
    for (const AccountSettlement& a : last.accounts) {
      out << sep << a.account << " " << UsdFromMicro(a.margin) << "/" << UsdFromMicro(a.call);
      sep = "; ";
    }
    out << "\n";
  }
  out << "  fixes on " << common::FormatDate(run.days.back())
      << " (USD per GPU-hour / USD per 1M output tokens):";
  const char* sep = " ";
  for (const FixUsed& f : run.data.fixes) {
    if (f.date != run.days.back()) continue;
    out << sep << f.grade << " " << (f.fix_e4 ? E4(*f.fix_e4) : "-") << "/"
        << (f.price_per_mtok_e4 ? E4(*f.price_per_mtok_e4) : "-");
    sep = "; ";
  }
  out << "\n";
  out << "Report: open " << paths.out << "/report.html in a browser (charts); also report.md, "
      << "report.json\n";
  return absl::OkStatus();
}

}  // namespace cfx::demo
