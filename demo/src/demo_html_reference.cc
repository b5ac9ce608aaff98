// The reference part of the demo's HTML report (demo_html.h): the fix chart of each grade with
// its settlement prices, the price per token by grade, and how one fix was made. Tables show the
// report's own strings; the charts parse them only to place points.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "demo_html_internal.h"
#include "demo_svg.h"

namespace cfx::demo::html_internal {
namespace {

// "B200-GOLD-US-202703" -> "B200-GOLD-US"; "" when the symbol has no "-YYYYMM" suffix.
std::string GradeOf(const std::string& sym) {
  if (sym.size() < 8 || sym[sym.size() - 7] != '-') return "";
  for (size_t i = sym.size() - 6; i < sym.size(); ++i) {
    if (sym[i] < '0' || sym[i] > '9') return "";
  }
  return sym.substr(0, sym.size() - 7);
}
std::string IdPart(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return out;
}

// Points of one series on a day axis: (day, value, the original strings).
struct DayPoint {
  int day;
  double value;
  std::string date, text;
};
void SetDayAxis(svg::Chart& c, int lo, int hi) {
  c.SetX(lo - 0.5, hi + 0.5);
  c.SetXTicks(svg::DateTicks(lo, hi, 8));
}

// Chart 1 per grade: the fix with its p25-p75 band, carried days marked, and the settlement
// prices of the grade's contracts; then the numbers.
// `traded`: the contracts to draw (all of the grade's when empty); the table lists them all.
std::string GradeBlock(const std::string& grade, const Json& records, const Json& settlement,
                       const std::set<std::string>& traded, std::set<std::string>& ids) {
  struct Rec {
    int day;
    const Json* j;
  };
  std::vector<Rec> recs;
  for (const Json& rec : records.is_array() ? records : EmptyArray()) {
    if (const auto day = svg::ParseDay(Str(At(rec, "date")))) recs.push_back({*day, &rec});
  }
  std::stable_sort(recs.begin(), recs.end(),
                   [](const Rec& a, const Rec& b) { return a.day < b.day; });
  // Settlement prices of this grade's contracts: sym -> points.
  std::map<std::string, std::vector<DayPoint>> settles;
  std::set<int> settle_days;
  for (const Json& day : settlement.is_array() ? settlement : EmptyArray()) {
    const auto d = svg::ParseDay(Str(At(day, "date")));
    for (const Json& sp : Arr(day, "settlement_prices")) {
      const std::string sym = Str(At(sp, "sym"));
      const auto v = Num(At(sp, "settle"));
      if (!d || !v || GradeOf(sym) != grade) continue;
      settles[sym].push_back({*d, *v, Str(At(day, "date")), Str(At(sp, "settle"))});
      settle_days.insert(*d);
    }
  }
  std::string id = "chart-fix-" + IdPart(grade);
  while (ids.count(id)) id += "-";
  ids.insert(id);
  std::string out = "<h3>" + Escape(grade) + "</h3>";
  if (recs.empty() && settles.empty()) return out + NotAvailable("Fixes of " + grade);
  int lo = 1 << 30, hi = -(1 << 30);
  double ylo = 1e300, yhi = -1e300;
  auto widen = [&](int day, std::optional<double> v) {
    lo = std::min(lo, day), hi = std::max(hi, day);
    if (v) ylo = std::min(ylo, *v), yhi = std::max(yhi, *v);
  };
  for (const Rec& r : recs) {
    for (const char* k : {"fix", "p25", "p75"}) widen(r.day, Num(At(*r.j, k)));
  }
  std::map<std::string, std::vector<DayPoint>> drawn;
  for (const auto& [sym, pts] : settles) {
    if (!traded.empty() && !traded.count(sym)) continue;
    drawn[sym] = pts;
    for (const DayPoint& p : pts) widen(p.day, p.value);
  }
  svg::Chart c(id, grade + ": reference fix (USD per GPU-hour) and settlement prices", kWidth, 360);
  SetDayAxis(c, lo, hi);
  c.SetY(ylo <= yhi ? ylo : 0, ylo <= yhi ? yhi : 1);
  c.SetYTicks(svg::NumberTicks(c.y_lo(), c.y_hi(), 5));
  c.SetAxisLabels("reference date", "USD per GPU-hour");
  // The p25-p75 band, one polygon per run of days that have both.
  XY upper, lower;
  auto flush_band = [&] {
    if (upper.size() == 1) {
      upper = {{upper[0].first - 4, upper[0].second}, {upper[0].first + 4, upper[0].second}};
      lower = {{lower[0].first - 4, lower[0].second}, {lower[0].first + 4, lower[0].second}};
    }
    XY poly = upper;
    poly.insert(poly.end(), lower.rbegin(), lower.rend());
    c.Add(svg::Polygon(poly, "#93c5fd", 0.45));
    upper.clear(), lower.clear();
  };
  std::vector<MaybeXY> fix_line;
  for (const Rec& r : recs) {
    const auto p25 = Num(At(*r.j, "p25")), p75 = Num(At(*r.j, "p75"));
    const auto fix = Num(At(*r.j, "fix"));
    if (p25 && p75) {
      upper.emplace_back(c.X(r.day), c.Y(*p75));
      lower.emplace_back(c.X(r.day), c.Y(*p25));
    } else if (!upper.empty()) {
      flush_band();
    }
    fix_line.push_back(fix ? MaybeXY(std::in_place, r.day, *fix) : std::nullopt);
  }
  if (!upper.empty()) flush_band();
  svg::AddGappedLine(c, fix_line, kPalette[0]);
  size_t k = 1;
  for (const auto& [sym, pts] : drawn) {
    std::vector<MaybeXY> line;
    for (const DayPoint& p : pts) line.emplace_back(std::in_place, p.day, p.value);
    svg::AddGappedLine(c, line, Colour(k), "6 3");
    for (const DayPoint& p : pts) {
      c.Add(svg::Circle(c.X(p.day), c.Y(p.value), 3.5, Colour(k),
                        {sym, p.date, p.text, "settle", ""}));
    }
    c.AddLegend(sym + " settlement", Colour(k), "line");
    ++k;
  }
  bool carried = false, missing = false;
  for (const Rec& r : recs) {
    const std::string date = Str(At(*r.j, "date")), fix = Str(At(*r.j, "fix"));
    const auto v = Num(At(*r.j, "fix"));
    if (!v) {
      missing = true;
      c.Add("<g class=\"nofix\" data-x=\"" + Escape(date) + "\">" +
            svg::Text(c.X(r.day), c.plot_bottom() - 6, "no fix", "middle", 10, "#6b7280") + "</g>");
      continue;
    }
    const std::string level = Str(At(*r.j, "level"));
    const std::string tip =
        grade + " " + date + ": fix " + fix + ", level " + (level.empty() ? "none" : level);
    if (level == "3") {
      carried = true;
      c.Add(svg::Diamond(c.X(r.day), c.Y(*v), 6, "#b91c1c", {"fix", date, fix, "level3", tip}));
    } else {
      c.Add(svg::Circle(c.X(r.day), c.Y(*v), 4, kPalette[0], {"fix", date, fix, "", tip}));
    }
  }
  c.AddLegend("fix", kPalette[0], "dot");
  c.AddLegend("p25 to p75", "#bfdbfe");
  if (carried) c.AddLegend("level 3 (carried)", "#b91c1c", "diamond");
  out += c.Render();
  if (missing) out += "<p class=\"meta\">Days marked \"no fix\" published no fix.</p>";
  std::vector<std::vector<std::string>> rows;
  for (const Rec& r : recs) {
    const Json& j = *r.j;
    std::string flags;
    for (const Json& f : Arr(j, "flags")) flags += (flags.empty() ? "" : ", ") + Str(f);
    rows.push_back({Cell(At(j, "date")), Cell(At(j, "fix")), Cell(At(j, "p25")), Cell(At(j, "p75")),
                    Cell(At(j, "level")), Cell(At(j, "price_per_mtok")), Cell(At(j, "n_obs")),
                    Cell(At(j, "n_providers")), flags.empty() ? "" : Escape(flags)});
  }
  out += Folded("Fixes of " + grade + " (" + std::to_string(rows.size()) + " days)",
                Table({"date", "fix", "p25", "p75", "level", "USD / 1M tokens", "observations",
                       "providers", "flags"},
                      rows, "lrrrrrrrl"),
                rows.size());
  if (!settles.empty()) {
    std::vector<std::string> head = {"contract"};
    for (int d : settle_days) head.push_back(Escape(svg::FormatDay(d)));
    std::vector<std::vector<std::string>> srows;
    for (const auto& [sym, pts] : settles) {
      std::vector<std::string> row = {Escape(sym)};
      for (int d : settle_days) {
        const auto it =
            std::find_if(pts.begin(), pts.end(), [&](const DayPoint& p) { return p.day == d; });
        row.push_back(it == pts.end() ? "&ndash;" : Escape(it->text));
      }
      srows.push_back(std::move(row));
    }
    out +=
        Folded("Settlement prices of " + grade + " contracts",
               Table(head, srows, std::string(head.size(), 'r').replace(0, 1, "l")), srows.size());
  }
  return out;
}

std::string FateColour(const std::string& fate) {
  if (fate == "used") return "#16a34a";
  if (fate == "outlier") return "#dc2626";
  if (fate == "not_at_level") return "#ca8a04";
  if (fate == "no_throughput") return "#9333ea";
  return "#6b7280";
}

}  // namespace

std::string Reference(const Json& r, std::set<std::string>& ids) {
  const Json& ref = At(r, "reference");
  const Json& grades = At(ref, "grades");
  std::string out = "<section id=\"reference\"><h2>Reference fixes</h2>";
  if (!grades.is_object() || grades.empty())
    return out + NotAvailable("Reference fixes") + "</section>";
  out += "<p>Each business day's fix of each grade from " + Cell(At(ref, "from")) + " to " +
         Cell(At(ref, "to")) +
         ", the band between the 25th and 75th percentiles of its inputs, and the daily "
         "settlement prices of the grade's traded contracts.</p>";
  std::set<std::string> traded;  // contracts with trades, when the report says
  for (const char* key : {"trades_by_symbol", "volume_by_symbol"}) {
    const Json& by = At(At(r, "trading"), key);
    for (auto it = by.begin(); by.is_object() && it != by.end(); ++it) {
      if (Num(it.value()).value_or(0) > 0) traded.insert(it.key());
    }
  }
  for (auto it = grades.begin(); it != grades.end(); ++it) {
    out += GradeBlock(it.key(), it.value(), At(r, "settlement"), traded, ids);
  }
  return out + "</section>";
}

// Chart 2: price per 1M output tokens, one line per grade.
std::string PerToken(const Json& r) {
  const Json& grades = At(At(r, "reference"), "grades");
  std::map<std::string, std::map<int, std::pair<std::string, double>>> series;
  std::set<int> days;
  if (grades.is_object()) {
    for (auto it = grades.begin(); it != grades.end(); ++it) {
      for (const Json& rec : it.value().is_array() ? it.value() : EmptyArray()) {
        const auto day = svg::ParseDay(Str(At(rec, "date")));
        const auto v = Num(At(rec, "price_per_mtok"));
        if (!day || !v) continue;
        series[it.key()][*day] = {Str(At(rec, "price_per_mtok")), *v};
        days.insert(*day);
      }
    }
  }
  std::string out =
      "<section id=\"mtok\"><h2>Price per 1M output tokens</h2><p>The same GPU hour, priced "
      "per token: each grade's fix divided by its operator's output throughput. Grades of the "
      "same GPU differ by operator tier.</p>";
  if (series.empty()) return out + NotAvailable("Prices per token") + "</section>";
  double lo = 1e300, hi = -1e300;
  for (const auto& [g, pts] : series) {
    for (const auto& [d, p] : pts) lo = std::min(lo, p.second), hi = std::max(hi, p.second);
  }
  svg::Chart c("chart-mtok", "USD per 1M output tokens, by grade", kWidth, 360);
  SetDayAxis(c, *days.begin(), *days.rbegin());
  c.SetY(lo, hi);
  c.SetYTicks(svg::NumberTicks(c.y_lo(), c.y_hi(), 5));
  c.SetAxisLabels("reference date", "USD per 1M tokens");
  size_t k = 0;
  for (const auto& [grade, pts] : series) {
    std::vector<MaybeXY> line;
    for (int d : days) {
      const auto it = pts.find(d);
      line.push_back(it == pts.end() ? std::nullopt : MaybeXY(std::in_place, d, it->second.second));
    }
    svg::AddGappedLine(c, line, Colour(k));
    for (const auto& [d, p] : pts) {
      c.Add(svg::Circle(c.X(d), c.Y(p.second), 3, Colour(k),
                        {grade, svg::FormatDay(d), p.first, "", ""}));
    }
    c.AddLegend(grade, Colour(k), "line");
    ++k;
  }
  std::vector<std::string> head = {"date"};
  for (const auto& [grade, pts] : series) head.push_back(Escape(grade));
  std::vector<std::vector<std::string>> rows;
  for (int d : days) {
    std::vector<std::string> row = {Escape(svg::FormatDay(d))};
    for (const auto& [grade, pts] : series) {
      const auto it = pts.find(d);
      row.push_back(it == pts.end() ? "&ndash;" : Escape(it->second.first));
    }
    rows.push_back(std::move(row));
  }
  out += c.Render() +
         Folded("USD per 1M output tokens by day (" + std::to_string(rows.size()) + " days)",
                Table(head, rows, "l" + std::string(series.size(), 'r')), rows.size());
  return out + "</section>";
}

// Chart 6 and its tables: how one fix was made (docs/methodology.md §14).
std::string Explain(const Json& r) {
  const Json& ex = At(r, "explain");
  const Json* e = &At(ex, "explanation");
  Json parsed;
  if (e->is_string()) {  // the stored text, as `cfx reference explain --format json` prints it
    parsed = Json::parse(e->get_ref<const std::string&>(), nullptr, /*allow_exceptions=*/false);
    e = &parsed;
  }
  std::string grade = Str(At(ex, "grade")), date = Str(At(ex, "date"));
  if (grade.empty()) grade = Str(At(*e, "grade"));
  if (date.empty()) date = Str(At(*e, "date"));
  std::string out = "<section id=\"explain\"><h2>How one fix was made" +
                    (grade.empty() ? "" : ": " + Escape(grade) + " on " + Escape(date)) + "</h2>";
  if (!e->is_object()) return out + NotAvailable("The explanation") + "</section>";
  const Json& rec = At(*e, "record");
  out += "<p>Fix " + Cell(At(rec, "fix")) + " USD per GPU-hour (p25 " + Cell(At(rec, "p25")) +
         ", p75 " + Cell(At(rec, "p75")) + "), level " + Cell(At(*e, "level")) + ", from " +
         Cell(At(rec, "n_obs")) + " observations of " + Cell(At(rec, "n_providers")) +
         " providers. Methodology " + Cell(At(*e, "methodology")) + ", revision " +
         Cell(At(*e, "revision")) + ", inputs SHA-256 <code>" + Cell(At(*e, "inputs_sha256")) +
         "</code>.</p><p><strong>Decision:</strong> " + Cell(At(*e, "decision")) + "</p>";
  if (const Json& carry = At(*e, "carry"); carry.is_object()) {
    out += "<p>Carried from " + Cell(At(carry, "from")) + " (stale day " +
           Cell(At(carry, "stale_days")) + ")" +
           (Str(At(carry, "reason")).empty() ? "" : "; " + Cell(At(carry, "reason"))) + ".</p>";
  }
  std::vector<std::vector<std::string>> levels;
  for (const Json& a : Arr(*e, "levels")) {
    std::vector<std::string> row;
    for (const char* k : {"level", "set", "n_obs", "n_providers", "meets", "m", "mad", "threshold",
                          "n_dropped", "n_obs_after", "n_providers_after", "meets_after"}) {
      row.push_back(Cell(At(a, k)));
    }
    levels.push_back(std::move(row));
  }
  if (!levels.empty()) {
    out += "<h3>Levels tried</h3>" +
           Table({"level", "set", "obs", "providers", "meets", "m", "MAD", "threshold", "dropped",
                  "obs after", "providers after", "meets after"},
                 levels, "rlrrlrrrrrrl");
  }
  // The observations: price against volume, coloured by fate, with p25 / fix / p75.
  struct Obs {
    double x, y;
    const Json* j;
  };
  std::vector<Obs> obs;
  double xhi = 0, ylo = 1e300, yhi = -1e300;
  // A market-wide series compares per-token values; a grade, prices.
  auto price_of = [](const Json& o) -> const Json& {
    return At(o, "value").is_string() ? At(o, "value") : At(o, "price");
  };
  bool per_token = false;
  for (const Json& o : Arr(*e, "observations")) {
    const auto x = Num(At(o, "gpu_hours")), y = Num(price_of(o));
    if (!x || !y) continue;
    obs.push_back({*x, *y, &o});
    per_token = per_token || At(o, "value").is_string();
    xhi = std::max(xhi, *x), ylo = std::min(ylo, *y), yhi = std::max(yhi, *y);
  }
  for (const char* k : {"p25", "fix", "p75"}) {
    if (const auto v = Num(At(rec, k))) ylo = std::min(ylo, *v), yhi = std::max(yhi, *v);
  }
  if (obs.empty()) {
    out += NotAvailable("Observations of this fix");
  } else {
    svg::Chart c("chart-explain", "Observations of the day by fate: price against GPU-hours",
                 kWidth, 380);
    const auto [x0, x1] = svg::NiceRange(0, xhi, 6);
    c.SetX(x0, x1);
    c.SetXTicks(svg::NumberTicks(x0, x1, 6));
    c.SetY(ylo, yhi);
    c.SetYTicks(svg::NumberTicks(c.y_lo(), c.y_hi(), 5));
    c.SetAxisLabels("GPU-hours of the observation",
                    per_token ? "value (USD per 1M tokens)" : "price (USD per GPU-hour)");
    for (const char* k : {"p25", "fix", "p75"}) {
      const auto v = Num(At(rec, k));
      if (!v) continue;
      const bool fix = std::string_view(k) == "fix";
      const std::string colour = fix ? "#1d4ed8" : "#60a5fa";
      c.Add(svg::Line(c.plot_left(), c.Y(*v), c.plot_right(), c.Y(*v), colour, fix ? 2 : 1.5,
                      fix ? "" : "6 4"));
      // p75 above its line, p25 below, the fix at the left: close values stay readable.
      const bool below = std::string_view(k) == "p25";
      c.Add(svg::Text(fix ? c.plot_left() + 6 : c.plot_right() - 4, c.Y(*v) + (below ? 13 : -4),
                      std::string(k) + " " + Str(At(rec, k)), fix ? "start" : "end", 11, colour));
    }
    std::set<std::string> fates;
    for (const Obs& o : obs) {
      const Json& j = *o.j;
      const std::string fate = Str(At(j, "fate"));
      fates.insert(fate);
      const std::string tip = Str(At(j, "provider")) + " " + Str(At(j, "kind")) + " " +
                              Str(price_of(j)) + " x " + Str(At(j, "gpu_hours")) +
                              " GPU-h: " + fate;
      c.Add(svg::Circle(c.X(o.x), c.Y(o.y), 5, FateColour(fate),
                        {fate, Str(At(j, "gpu_hours")), Str(price_of(j)), "", tip}));
    }
    for (const std::string& f : fates)
      c.AddLegend(f.empty() ? "(no fate)" : f, FateColour(f), "dot");
    out += c.Render();
  }
  if (const Json& cap = At(*e, "cap"); cap.is_object()) {
    std::vector<std::vector<std::string>> rows;
    for (const Json& p : Arr(cap, "providers")) {
      rows.push_back({Cell(At(p, "provider")), Cell(At(p, "weight")), Cell(At(p, "share_before")),
                      Cell(At(p, "share_after")), At(p, "capped") == true ? "capped" : ""});
    }
    out += "<h3>Provider weights before and after the cap</h3><p>Cap " + Cell(At(cap, "cap")) +
           " with " + Cell(At(cap, "n_providers")) + " providers; total weight " +
           Cell(At(cap, "total_weight")) + " GPU-hours (quotes count half).</p>" +
           Table({"provider", "weight (GPU-h)", "share before", "share after", ""}, rows, "lrrrl");
  }
  std::vector<std::vector<std::string>> pct;
  for (const Json& p : Arr(*e, "percentiles")) {
    pct.push_back({Cell(At(p, "name")), Cell(At(p, "target")), Cell(At(p, "value")),
                   Cell(At(p, "cumulative_before")), Cell(At(p, "cumulative_at"))});
  }
  if (!pct.empty()) {
    out += "<h3>Weighted percentiles</h3>" +
           Table({"point", "target", "value", "cumulative before", "cumulative at"}, pct, "lrrrr");
  }
  std::vector<std::vector<std::string>> rows;
  for (const Json& o : Arr(*e, "observations")) {
    const std::string fate = Str(At(o, "fate"));
    std::string detail;
    if (fate == "used") {
      detail = "weight " + Cell(At(o, "weight")) + ", share " + Cell(At(o, "share_before")) +
               " &rarr; " + Cell(At(o, "share_after"));
    } else if (fate == "outlier") {
      detail =
          "|price &minus; m| " + Cell(At(o, "deviation")) + " &gt; " + Cell(At(o, "threshold"));
    } else if (fate == "not_at_level") {
      detail = "a quote, and the fix was made at level 1 (trades only)";
    }
    rows.push_back({Cell(At(o, "ts")), Cell(At(o, "provider")), Cell(At(o, "kind")),
                    Cell(At(o, "price")), Cell(At(o, "gpu_hours")), Escape(fate), detail});
  }
  if (!rows.empty()) {
    out += Folded("All " + std::to_string(rows.size()) + " observations",
                  Table({"time", "provider", "kind", "price", "GPU-hours", "fate", "detail"}, rows,
                        "lllrrlw"),
                  rows.size());
  }
  return out + "</section>";
}

}  // namespace cfx::demo::html_internal
