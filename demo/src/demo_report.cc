// Demo step f: the summary (printed) and <out>/report.md + report.json with the same
// content. report.json is what tests/demo checks; its keys are documented in docs/demo.md.
#include <cstdio>
#include <fstream>
#include <sstream>

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

nlohmann::json ToJson(const DemoRun& run) {
  using nlohmann::json;
  const TradingResult& t = run.trading;
  json j;
  j["date"] = common::FormatDate(run.days.front());
  j["days"] = run.days.size();
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
                  {"cancels", t.cancels},
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
                    {"statements", d.statement_files}});
  }
  j["settlement"] = days;
  json margins = json::array();
  for (const MarginAnswer& m : run.risk.accounts) {
    margins.push_back({{"account", m.account},
                       {"http_status", m.http_status},
                       {"margin", m.margin},
                       {"worst_scenario", m.worst_scenario},
                       {"positions", m.positions},
                       {"call", m.call_micro ? json(UsdFromMicro(*m.call_micro)) : json(nullptr)}});
  }
  j["risk"] = {{"margins", margins},
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
  o << "## Trading (FIX)\n\nSessions: ";
  for (size_t i = 0; i < t.sessions.size(); ++i) o << (i ? ", " : "") << t.sessions[i];
  o << ".\n\n| orders | cancels | replaces | trades | volume (contracts) | in the closing window "
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
  const std::string md = Markdown(run);
  std::ofstream f(paths.out + "/report.md");
  f << md;
  std::ofstream j(paths.out + "/report.json");
  j << ToJson(run).dump(2) << "\n";
  if (!f || !j) return absl::UnavailableError("cannot write the report in " + paths.out);
  const TradingResult& t = run.trading;
  out << "\nSummary: " << t.orders << " orders, " << t.trades << " trades, " << t.volume
      << " contracts, ";
  int64_t rejects = 0;
  for (const auto& [k, v] : t.rejects) rejects += v;
  out << rejects << " rejects";
  if (!t.rejects.empty()) {
    out << " (";
    bool first = true;
    for (const auto& [k, v] : t.rejects) {
      out << (first ? "" : ", ") << k << " " << v;
      first = false;
    }
    out << ")";
  }
  out << "\n";
  for (const SettleDayResult& d : run.settlement) {
    out << "Settlement " << common::FormatDate(d.date) << ":";
    int shown = 0;
    for (const SettledContract& c : d.contracts) {
      if (++shown > 8) break;
      out << " " << c.sym << " " << Px(c.settle) << " " << c.tier << ";";
    }
    out << " ... (" << d.listed << " contracts)\n  VM:";
    for (const AccountSettlement& a : d.accounts)
      out << " " << a.account << " " << UsdFromMicro(a.vm);
    out << "  (sum " << d.vm_sum.value() << ")\n  margin/call:";
    for (const AccountSettlement& a : d.accounts) {
      out << " " << a.account << " " << UsdFromMicro(a.margin) << "/" << UsdFromMicro(a.call);
    }
    out << "\n";
  }
  out << "Fixes (USD/GPU-h, USD per 1M output tokens):";
  for (const FixUsed& f : run.data.fixes) {
    out << " " << f.grade << " " << (f.fix_e4 ? E4(*f.fix_e4) : "-") << "/"
        << (f.price_per_mtok_e4 ? E4(*f.price_per_mtok_e4) : "-") << ";";
  }
  out << "\nReport: " << paths.out << "/report.md, " << paths.out << "/report.json\n";
  return absl::OkStatus();
}

}  // namespace cfx::demo
