// The demo's HTML report (demo_html.h): the page and its header, the summary, trading, the book
// at the close, settlement, surveillance and the risk desk. The reference sections are rendered
// by demo_html_reference.cc; demo_html_internal.h reads report.json defensively and holds the
// HTML pieces both files use. Tables show the report's own strings; the charts parse them only
// to place points.
#include "demo_html.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "demo_html_internal.h"
#include "demo_svg.h"

namespace cfx::demo {
namespace html_internal {
namespace {

constexpr size_t kMaxChartLevels = 15;  // book levels a side in the depth chart

// Counts by reason ({reason: n}) as a two-column table, or "none".
std::string CountTable(const std::string& title, const Json& counts) {
  std::vector<std::vector<std::string>> rows;
  if (counts.is_object()) {
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      rows.push_back({Escape(it.key()), Cell(it.value())});
    }
  }
  std::string out = "<div><h3>" + Escape(title) + "</h3>";
  if (counts.is_null()) return out + "<p class=\"na\">not available</p></div>";
  if (rows.empty()) return out + "<p class=\"na\">none</p></div>";
  return out + Table({"reason", "count"}, rows, "lr") + "</div>";
}

// ---- Sections ----------------------------------------------------------------------------

std::string Header(const Json& r) {
  std::vector<std::string> dates;
  for (const Json& d : Arr(r, "dates")) {
    if (!Str(d).empty()) dates.push_back(Str(d));
  }
  if (dates.empty() && !Str(At(r, "date")).empty()) dates.push_back(Str(At(r, "date")));
  std::string span = dates.empty()       ? "dates not available"
                     : dates.size() == 1 ? dates.front()
                                         : dates.front() + " to " + dates.back();
  std::string out =
      "<header><h1>cfx demo report</h1><p class=\"meta\">" + Escape(span) +
      (dates.size() > 1 ? " (" + std::to_string(dates.size()) + " trading days)" : "");
  if (!Str(At(r, "seed")).empty()) out += " &middot; seed " + Cell(At(r, "seed"));
  if (const auto sec = Num(At(r, "seconds"))) {
    out += " &middot; ran in " + svg::FormatFixed(*sec, 1) + " s";
  }
  out += "</p>";
  if (!Str(At(r, "exchange")).empty()) {
    out += "<p class=\"meta\">Exchange: " + Cell(At(r, "exchange")) + "</p>";
  }
  out += "<nav>";
  for (const auto& [id, name] :
       std::vector<std::pair<std::string, std::string>>{{"summary", "What happened"},
                                                        {"trading", "Trading"},
                                                        {"reference", "Reference fixes"},
                                                        {"mtok", "Per token"},
                                                        {"explain", "One fix explained"},
                                                        {"book", "Book at close"},
                                                        {"settlement", "Settlement"},
                                                        {"surveillance", "Surveillance"},
                                                        {"contracts", "Contracts"},
                                                        {"risk", "Risk desk"}}) {
    out += "<a href=\"#" + id + "\">" + name + "</a>";
  }
  return out + "</nav></header>";
}

std::string Summary(const Json& r) {
  const Json& t = At(r, "trading");
  const Json& firms = At(r, "firms");
  std::string p;
  const size_t days = Arr(r, "dates").size();
  if (t.is_object()) {
    p += "Over " +
         (days > 1    ? std::to_string(days) + " trading days"
          : days == 1 ? std::string("one trading day")
                      : std::string("the run")) +
         ", the firms sent " + Cell(At(t, "orders")) + " orders (" + Cell(At(t, "cancels")) +
         " cancels, " + Cell(At(t, "replaces")) + " replaces) and traded " + Cell(At(t, "volume")) +
         " contracts in " + Cell(At(t, "trades")) + " trades, " +
         Cell(At(t, "closing_window_trades")) + " of them in the closing window. ";
  } else {
    p += "Trading figures are not available. ";
  }
  // One row per session; the sentence names each firm once with all its roles.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::pair<std::string, std::string>> roles;  // firm -> "role, role"
  bool any_params = false;
  for (const Json& f : Arr(r, "firms")) {
    std::string accounts;
    for (const Json& a : Arr(f, "accounts")) accounts += (accounts.empty() ? "" : ", ") + Str(a);
    rows.push_back({Cell(At(f, "firm")), Cell(At(f, "session")), Cell(At(f, "role")),
                    accounts.empty() ? "&ndash;" : Escape(accounts), Cell(At(f, "params"))});
    any_params = any_params || !Str(At(f, "params")).empty();
    const std::string firm = Str(At(f, "firm")), role = Str(At(f, "role"));
    auto it =
        std::find_if(roles.begin(), roles.end(), [&](const auto& e) { return e.first == firm; });
    if (it == roles.end()) {
      roles.emplace_back(firm, role);
    } else if (!role.empty()) {
      it->second += (it->second.empty() ? "" : ", ") + role;
    }
  }
  if (!roles.empty()) {
    std::string list;
    for (const auto& [firm, role] : roles) {
      list += (list.empty() ? "" : ", ") + Escape(firm) +
              (role.empty() ? "" : " (" + Escape(role) + ")");
    }
    p += std::to_string(roles.size()) + (roles.size() == 1 ? " firm" : " firms") +
         " took part: " + list + ". ";
  }
  std::vector<std::string> firm_head = {"firm", "FIX session", "role", "accounts"};
  if (any_params) {
    firm_head.push_back("behaviour");
  } else {
    for (auto& row : rows) row.pop_back();
  }
  if (!At(t, "throttled").is_null()) {
    p += Cell(At(t, "throttled")) + " orders were throttled. ";
  }
  if (!At(t, "disconnect_cancels").is_null()) {
    p += Cell(At(t, "disconnect_cancels")) +
         " resting orders were canceled when their session disconnected. ";
  }
  std::string out = "<section id=\"summary\"><h2>What happened</h2><p>" + p + "</p>";
  out += rows.empty() ? (firms.is_null() ? NotAvailable("Firms") : "")
                      : Table(firm_head, rows, "llllw");
  return out + "</section>";
}

std::string Trading(const Json& r) {
  const Json& t = At(r, "trading");
  std::string out = "<section id=\"trading\"><h2>Trading</h2>";
  if (!t.is_object()) return out + NotAvailable("Trading") + "</section>";
  std::vector<std::string> head, cells;
  for (const auto& [key, label] : std::vector<std::pair<std::string, std::string>>{
           {"orders", "orders"},
           {"cancels", "cancels"},
           {"replaces", "replaces"},
           {"trades", "trades"},
           {"volume", "volume"},
           {"closing_window_trades", "closing window"},
           {"throttled", "throttled"},
           {"disconnect_cancels", "canceled on disconnect"}}) {
    head.push_back(label);
    cells.push_back(Cell(At(t, key)));
  }
  out += Table(head, {cells}, "rrrrrrrr");
  // By day: the usual columns first, then whatever else the days carry.
  std::vector<std::string> keys = {"orders", "quotes", "cancels", "trades", "volume"};
  for (const Json& d : Arr(t, "by_day")) {
    if (!d.is_object()) continue;
    for (auto it = d.begin(); it != d.end(); ++it) {
      if (it.key() != "date" && std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
        keys.push_back(it.key());
      }
    }
  }
  std::vector<std::string> day_head = {"date"};
  for (const std::string& k : keys) {
    bool present = false;
    for (const Json& d : Arr(t, "by_day")) present = present || !At(d, k).is_null();
    if (present) day_head.push_back(k);
  }
  std::vector<std::vector<std::string>> by_day;
  for (const Json& d : Arr(t, "by_day")) {
    std::vector<std::string> row;
    for (const std::string& k : day_head) row.push_back(Cell(At(d, k)));
    by_day.push_back(std::move(row));
  }
  std::vector<std::string> day_head_html;
  for (const std::string& h : day_head) day_head_html.push_back(Escape(h));
  out += "<div class=\"grid\"><div><h3>By day</h3>" +
         (by_day.empty() ? std::string("<p class=\"na\">not available</p>")
                         : Table(day_head_html, by_day, "l" + std::string(keys.size(), 'r'))) +
         "</div>";
  out += CountTable("Orders by type", At(t, "orders_by_type")) +
         CountTable("Rejects by reason", At(t, "rejects")) +
         CountTable("Cancel/replace rejects", At(t, "cancel_rejects")) +
         CountTable("Cancels by reason", At(t, "cancels_by_reason")) + "</div>";
  const Json& dc = At(r, "drop_copy");
  const Json& md = At(r, "market_data");
  out += "<p>Drop copy: " + Cell(At(dc, "copies")) + " copies of " +
         Cell(At(dc, "firm_exec_reports")) + " execution reports of the firm. Market data on " +
         Cell(At(md, "symbol")) + ": " + Cell(At(md, "snapshots")) + " snapshots, " +
         Cell(At(md, "incrementals")) + " incremental refreshes.</p>";
  return out + "</section>";
}

// Chart 3: the book of one contract at the close, asks above bids, and its ladder.
std::string Book(const Json& r) {
  const Json& b = At(r, "book_at_close");
  const Json& book = At(b, "book");
  std::string sym = Str(At(b, "sym"));
  if (sym.empty()) sym = Str(At(book, "sym"));
  std::string out = "<section id=\"book\"><h2>Order book at the close" +
                    (sym.empty() ? "" : ": " + Escape(sym)) +
                    (Str(At(b, "date")).empty() ? "" : " on " + Cell(At(b, "date"))) + "</h2>";
  if (!book.is_object()) return out + NotAvailable("The book") + "</section>";
  struct Level {
    std::string side, px, qty, orders;
    double q;
  };
  auto side = [](const Json& levels, const std::string& name) {
    std::vector<Level> out;
    for (const Json& lv : levels.is_array() ? levels : EmptyArray()) {
      if (!lv.is_array() || lv.size() < 2) continue;
      out.push_back({name, Str(lv[0]), Str(lv[1]), lv.size() > 2 ? Str(lv[2]) : "",
                     std::max(0.0, Num(lv[1]).value_or(0))});
    }
    return out;
  };
  const std::vector<Level> bids = side(At(book, "bids"), "bid"),
                           asks = side(At(book, "asks"), "ask");
  std::vector<Level> rows(asks.rbegin(), asks.rend());  // highest ask at the top
  rows.insert(rows.end(), bids.begin(), bids.end());
  // The chart shows the levels nearest the touch; the ladder, all of them.
  const size_t shown_asks = std::min<size_t>(asks.size(), kMaxChartLevels);
  const size_t shown_bids = std::min<size_t>(bids.size(), kMaxChartLevels);
  const std::vector<Level> chart_rows(rows.begin() + (asks.size() - shown_asks),
                                      rows.begin() + (asks.size() + shown_bids));
  const Json& last = At(book, "last_trade");
  std::string facts = "Book state: " + Cell(At(book, "state")) + ". ";
  facts += last.is_object() ? "Last trade " + Cell(At(last, "qty")) + " at " +
                                  Cell(At(last, "px")) + " (" + Cell(At(last, "ts")) + ")."
                            : std::string("No trade yet.");
  out += "<p>" + facts + "</p>";
  if (rows.empty()) return out + "<p class=\"na\">The book was empty at the close.</p></section>";
  const double n = chart_rows.size();
  svg::Chart c("chart-book", "Depth at the close: displayed quantity per price level", kWidth,
               120 + 26 * n);
  c.SetLeftMargin(80);
  double qmax = 0;
  for (const Level& l : chart_rows) qmax = std::max(qmax, l.q);
  const auto [x0, x1] = svg::NiceRange(0, qmax * 1.2, 6);  // room for the labels at bar ends
  c.SetX(x0, x1);
  c.SetXTicks(svg::NumberTicks(x0, x1, 6));
  c.SetY(0, n, /*nice=*/false);
  c.SetAxisLabels("quantity (contracts)", "price");
  std::vector<svg::Tick> ticks;
  for (size_t i = 0; i < chart_rows.size(); ++i) {
    const Level& l = chart_rows[i];
    const double mid = n - i - 0.5;
    ticks.emplace_back(mid, l.px);
    const std::string colour = l.side == "bid" ? "#2563eb" : "#ea580c";
    const std::string tip = l.side + " " + l.px + ": " + l.qty + " in " + l.orders + " orders";
    c.Add(svg::Bar(c.X(0), c.Y(mid + 0.36), c.X(l.q) - c.X(0), c.Y(mid - 0.36) - c.Y(mid + 0.36),
                   colour, {l.side, l.px, l.qty, l.side, tip}));
    c.Add(svg::Text(c.X(l.q) + 6, c.Y(mid) + 4,
                    l.qty + (l.orders.empty() ? "" : " (" + l.orders + " orders)"), "start", 11));
  }
  c.SetYTicks(std::move(ticks));
  if (!asks.empty() && !bids.empty()) {
    const double y = c.Y(static_cast<double>(shown_bids));
    c.Add(svg::Line(c.plot_left(), y, c.plot_right(), y, "#9ca3af", 1, "3 3"));
  }
  c.AddLegend("bids", "#2563eb");
  c.AddLegend("asks", "#ea580c");
  std::vector<std::vector<std::string>> ladder;
  for (const Level& l : rows) {
    const bool bid = l.side == "bid";
    ladder.push_back({bid ? Escape(l.orders) : "", bid ? Escape(l.qty) : "", Escape(l.px),
                      bid ? "" : Escape(l.qty), bid ? "" : Escape(l.orders)});
  }
  out += c.Render() +
         Table({"bid orders", "bid qty", "price", "ask qty", "ask orders"}, ladder, "rrrrr");
  return out + "</section>";
}

// Charts 4: variation margin and calls per account by day, and the day's accounts.
std::string Settlement(const Json& r) {
  const Json& days = Arr(r, "settlement");
  std::string out = "<section id=\"settlement\"><h2>Settlement</h2>";
  if (days.empty()) return out + NotAvailable("Settlement") + "</section>";
  std::vector<std::string> dates, accounts;
  std::map<std::string, std::map<std::string, const Json*>> by;  // account -> date -> row
  std::vector<std::vector<std::string>> summary, detail;
  for (const Json& d : days) {
    const std::string date = Str(At(d, "date"));
    dates.push_back(date);
    for (const Json& a : Arr(d, "accounts")) {
      const std::string id = Str(At(a, "account"));
      if (!by.count(id)) accounts.push_back(id);
      by[id][date] = &a;
      detail.push_back({Escape(date), Escape(id), Cell(At(a, "vm")), Cell(At(a, "cash")),
                        Cell(At(a, "margin")), Cell(At(a, "call")), Cell(At(a, "positions"))});
    }
    summary.push_back({Cell(At(d, "date")), Cell(At(d, "contracts")), Cell(At(d, "tiers")),
                       Cell(At(d, "vm_sum_micro_usd")), std::to_string(Arr(d, "accounts").size())});
  }
  out +=
      "<p>Each business day at 16:00 every contract is settled, each account receives or "
      "pays its variation margin, and an account whose cash falls below its initial margin "
      "is called for the difference. Variation margin sums to zero across accounts every day.</p>" +
      Table({"date", "contracts settled", "price tiers", "&Sigma; VM (micro-USD)", "accounts"},
            summary, "lrlrr");
  auto spec = [&](const std::string& key, const std::string& id, const std::string& title) {
    svg::BarChartSpec s;
    s.id = id;
    s.title = title;
    s.y_label = "USD";
    s.labels = dates;
    s.keys = dates;
    for (size_t k = 0; k < accounts.size(); ++k) {
      svg::BarSeries b{accounts[k], Colour(k), {}};
      for (const std::string& date : dates) {
        const auto it = by[accounts[k]].find(date);
        const std::string v = it == by[accounts[k]].end() ? "" : Str(At(*it->second, key));
        b.values.push_back(v.empty() ? std::nullopt : std::make_optional(v));
      }
      s.series.push_back(std::move(b));
    }
    std::vector<std::string> head = {"account"};
    for (const std::string& date : dates) head.push_back(Escape(date));
    std::vector<std::vector<std::string>> rows;
    for (const svg::BarSeries& b : s.series) {
      std::vector<std::string> row = {Escape(b.name)};
      for (const auto& v : b.values) row.push_back(v ? Escape(*v) : "&ndash;");
      rows.push_back(std::move(row));
    }
    return std::make_pair(s, Table(head, rows, "l" + std::string(dates.size(), 'r')));
  };
  auto [vm, vm_table] = spec("vm", "chart-vm", "Variation margin per account by day (USD)");
  auto [calls, calls_table] = spec("call", "chart-calls", "Margin calls per account by day (USD)");
  calls.empty_note = "No margin calls on these days";
  out += "<h3>Variation margin</h3>" + svg::GroupedBars(vm) + vm_table;
  out += "<h3>Margin calls</h3>" + svg::GroupedBars(calls) + calls_table;
  out += Folded("Accounts at each close",
                Table({"date", "account", "VM", "cash", "initial margin", "call", "positions"},
                      detail, "llrrrrw"),
                detail.size());
  return out + "</section>";
}

// Chart 5: close surveillance, the largest account's and firm's share of each closing window.
std::string Surveillance(const Json& r) {
  std::string out =
      "<section id=\"surveillance\"><h2>Close surveillance</h2><p>For each contract "
      "settled from its own trades, the share of the closing window's volume "
      "(15:30 to 16:00 UTC) taken by the largest account and the largest firm.</p>";
  svg::BarChartSpec s;
  s.id = "chart-surveillance";
  s.title = "Largest share of the closing window's volume";
  s.y_label = "share";
  s.y_domain = std::make_pair(0.0, 1.0);
  s.series = {{"largest account", "#2563eb", {}}, {"largest firm", "#9333ea", {}}};
  std::set<std::string> thresholds;
  std::vector<std::vector<std::string>> rows;
  bool any = false;
  for (const Json& d : Arr(r, "settlement")) {
    const Json& sv = At(d, "surveillance");
    if (!sv.is_object()) continue;
    any = true;
    const std::string date = Str(At(sv, "date")).empty() ? Str(At(d, "date")) : Str(At(sv, "date"));
    const std::string threshold = Str(At(sv, "close_concentration_alert"));
    if (!threshold.empty()) thresholds.insert(threshold);
    for (const Json& c : Arr(sv, "contracts")) {
      const std::string sym = Str(At(c, "sym"));
      s.labels.push_back((date.size() > 5 ? date.substr(5) : date) + " " + sym);
      s.keys.push_back(date + " " + sym);
      s.thresholds.push_back(svg::ParseNumber(threshold));
      std::vector<std::string> row = {Escape(date), Escape(sym), Cell(At(c, "closing_volume"))};
      for (size_t k = 0; k < 2; ++k) {
        const Json& party = At(c, k == 0 ? "largest_account" : "largest_firm");
        const std::string share = Str(At(party, "share"));
        s.series[k].values.push_back(share.empty() ? std::nullopt : std::make_optional(share));
        const bool alert = At(party, "alert") == true;
        row.insert(row.end(),
                   {Cell(At(party, "id")), Cell(At(party, "qty")), Cell(At(party, "share")),
                    alert ? "<span class=\"alert\">alert</span>" : ""});
      }
      rows.push_back(std::move(row));
    }
  }
  if (!any) return out + NotAvailable("Surveillance") + "</section>";
  s.threshold_label =
      thresholds.size() == 1 ? "alert above " + *thresholds.begin() : "alert threshold";
  if (rows.empty()) {
    return out + "<p class=\"na\">No contract was settled from its closing trades.</p></section>";
  }
  out += svg::GroupedBars(s);
  out += Folded("Closing windows (" + std::to_string(rows.size()) + ")",
                Table({"date", "contract", "closing volume", "largest account", "qty", "share", "",
                       "largest firm", "qty", "share", ""},
                      rows, "llrlrrllrrl"),
                rows.size());
  return out + "</section>";
}

// The security master as GET /v1/contracts gave it: the contracts traded this week, then
// every listed contract folded away.
std::string Contracts(const Json& r) {
  const Json& all = At(r, "contracts");
  std::string out = "<section id=\"contracts\"><h2>Security master</h2>";
  if (!all.is_array() || all.empty()) return out + NotAvailable("The listed contracts") + "</section>";
  const Json& traded = At(At(r, "trading"), "volume_by_symbol");
  std::vector<std::vector<std::string>> active, rows;
  for (const Json& c : all) {
    std::vector<std::string> row = {Cell(At(c, "sym")),          Cell(At(c, "month")),
                                    Cell(At(c, "tick")),         Cell(At(c, "multiplier")),
                                    Cell(At(c, "max_order_qty")), Cell(At(c, "band_ref")),
                                    Cell(At(c, "listing_date")), Cell(At(c, "last_trading_day")),
                                    Cell(At(c, "state"))};
    if (traded.is_object() && traded.contains(Str(At(c, "sym")))) {
      row.push_back(Cell(At(traded, Str(At(c, "sym")))));
      active.push_back(row);
      row.pop_back();
    }
    rows.push_back(row);
  }
  const std::vector<std::string> head = {"contract", "month", "tick", "multiplier", "max order qty",
                                         "band reference", "listed", "last trading day", "state"};
  std::vector<std::string> head_traded = head;
  head_traded.push_back("contracts traded");
  out += "<p>" + std::to_string(all.size()) +
         " contracts listed from the sequenced product inputs (monthly, per grade), each with its "
         "terms; the band reference is the latest settlement price, else the grade's latest fix. " +
         std::to_string(active.size()) + " of them traded in the demo.</p>";
  if (!active.empty()) out += Table(head_traded, active, "llrrrrllll");
  out += Folded("Every listed contract (" + std::to_string(rows.size()) + ")",
                Table(head, rows, "llrrrrlll"), rows.size());
  return out + "</section>";
}

std::string Risk(const Json& r) {
  const Json& risk = At(r, "risk");
  std::string out = "<section id=\"risk\"><h2>Risk desk</h2>";
  if (!risk.is_object()) return out + NotAvailable("Risk desk answers") + "</section>";
  std::vector<std::vector<std::string>> rows;
  for (const Json& m : Arr(risk, "margins")) {
    rows.push_back({Cell(At(m, "account")), Cell(At(m, "http_status")), Cell(At(m, "margin")),
                    Cell(At(m, "worst_scenario")), Cell(At(m, "positions")), Cell(At(m, "call"))});
  }
  out +=
      "<p>Initial margin per account as the risk desk reads it over HTTP "
      "(<code>GET /v1/accounts/{acct}/margin</code>): the worst loss over the scenarios.</p>";
  out += rows.empty() ? NotAvailable("Margins")
                      : Table({"account", "HTTP", "initial margin (USD)", "worst scenario",
                               "positions", "call (USD)"},
                              rows, "lrrlll");
  const Json& w = At(risk, "whatif");
  if (w.is_object()) {
    out += "<p>What-if portfolio " + Cell(At(w, "portfolio")) + ": HTTP " +
           Cell(At(w, "http_status")) + ", margin " + Cell(At(w, "margin")) + " USD.</p>";
  }
  out += "<p>A firm's token asking for another firm's account: HTTP " +
         Cell(At(risk, "cross_firm_status")) + ". No token: HTTP " +
         Cell(At(risk, "no_token_status")) + ".</p>";
  return out + "</section>";
}

constexpr char kCss[] =
    "body{margin:0;background:#f6f7f9;color:#111827;font:14px/1.5 system-ui,sans-serif;"
    "font-variant-numeric:tabular-nums}"
    "main{max-width:1100px;margin:0 auto;padding:20px 24px 40px}"
    "header{padding:8px 0}h1{font-size:26px;margin:0 0 4px}"
    "h2{font-size:19px;margin:0 0 8px}h3{font-size:15px;margin:18px 0 6px}"
    "section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:16px 20px;"
    "margin:16px 0}"
    "nav a{margin-right:14px;color:#1d4ed8;text-decoration:none}"
    ".meta{color:#6b7280;margin:2px 0}.na{color:#9ca3af;font-style:italic}"
    ".alert{color:#b91c1c;font-weight:600}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}"
    "th,td{padding:3px 10px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top;"
    "white-space:nowrap}td.w{white-space:normal}"
    "th{background:#f3f4f6;font-weight:600;color:#374151}.r{text-align:right}"
    ".grid{display:flex;flex-wrap:wrap;gap:4px 32px;align-items:flex-start}"
    "svg.chart{display:block;width:100%;height:auto;margin:10px 0}"
    "svg.chart text{font-family:system-ui,sans-serif}"
    "details{margin:6px 0}summary{cursor:pointer;color:#374151}"
    "code{font-size:12px;word-break:break-all}footer{color:#9ca3af;font-size:12px}";

std::string Page(const Json& r) {
  std::set<std::string> ids;
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; img-src data:\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>cfx demo report</title><style>" +
         std::string(kCss) + "</style></head><body><main>" + Header(r) + Summary(r) + Trading(r) +
         Reference(r, ids) + PerToken(r) + Explain(r) + Book(r) + Settlement(r) + Surveillance(r) +
         Contracts(r) + Risk(r) +
         "<footer>Written by cfx demo from report.json. One file: no script, nothing fetched."
         "</footer></main></body></html>\n";
}

}  // namespace
}  // namespace html_internal

std::string RenderHtmlReport(const nlohmann::json& report) {
  try {
    return html_internal::Page(report);
  } catch (const nlohmann::json::exception& e) {
    // A bug here, not a property of the report (every read is checked); still, a page.
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>cfx demo "
           "report</title></head><body><p>The report could not be rendered: " +
           svg::Escape(e.what()) + "</p></body></html>\n";
  }
}

}  // namespace cfx::demo
