// The SVG toolkit of the demo's HTML report (demo_svg.h). Pixel coordinates are written with
// two decimals; every piece of text goes through Escape.
#include "demo_svg.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>

namespace cfx::demo::svg {
namespace {

constexpr double kTitleY = 22;
constexpr double kLegendTop = 38;
constexpr double kLegendRow = 18;
constexpr double kCharWidth = 6.6;  // an estimate of a 12px system-ui character

std::string Px(double v) {
  if (!std::isfinite(v)) v = 0;
  v = std::clamp(v, -1e6, 1e6);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

// 1, 2 or 5 × 10^k, the smallest of those at least `raw`.
double NiceStep(double raw) {
  if (!std::isfinite(raw) || raw <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * p >= raw * (1 - 1e-9)) return m * p;
  }
  return 10 * p;
}

int DecimalsFor(double step) {
  if (!(step > 0) || step >= 1) return 0;
  return std::min(9, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
}

std::string PointAttrs(const Datum& d) {
  std::string out = " class=\"pt";
  if (!d.extra_class.empty()) out += " " + Escape(d.extra_class);
  out += "\" data-series=\"" + Escape(d.series) + "\" data-x=\"" + Escape(d.x) + "\" data-y=\"" +
         Escape(d.y) + "\"";
  return out;
}

std::string PointTitle(const Datum& d) {
  const std::string text = d.tooltip.empty() ? d.series + " " + d.x + ": " + d.y : d.tooltip;
  return "<title>" + Escape(text) + "</title>";
}

std::string Points(const std::vector<std::pair<double, double>>& points) {
  std::string out;
  for (const auto& [x, y] : points) out += (out.empty() ? "" : " ") + Px(x) + "," + Px(y);
  return out;
}

const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// Howard Hinnant's civil-from-days, for years 1..9999.
void CivilFromDays(int z, int* y, int* m, int* d) {
  z += 719468;
  const int era = (z >= 0 ? z : z - 146096) / 146097;
  const int doe = z - era * 146097;
  const int yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yoe + era * 400 + (*m <= 2 ? 1 : 0);
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        default:
          out += (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f ? ' ' : static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF) is copied.
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    bool ok = n > 0 && i + n <= text.size();
    for (size_t k = 1; ok && k < n; ++k) {
      const unsigned char b = static_cast<unsigned char>(text[i + k]);
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (ok) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::optional<double> ParseNumber(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  for (char ch : text) {
    if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '+' ||
          ch == 'e' || ch == 'E')) {
      return std::nullopt;
    }
  }
  const std::string copy(text);
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int> ParseDay(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  }
  auto num = [&](size_t at, size_t len) {
    int v = 0;
    for (size_t i = at; i < at + len; ++i) v = v * 10 + (s[i] - '0');
    return v;
  };
  int y = num(0, 4);
  const int m = num(5, 2), d = num(8, 2);
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return std::nullopt;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m == 2 && d == 29 && !leap) return std::nullopt;
  // Howard Hinnant's days-from-civil.
  y -= m <= 2 ? 1 : 0;
  const int era = y / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::string FormatDay(int day) {
  int y, m, d;
  CivilFromDays(day, &y, &m, &d);
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d", y, m, d);
  return buf;
}

std::string FormatFixed(double value, int decimals) {
  if (!std::isfinite(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", std::clamp(decimals, 0, 9), value);
  return buf;
}

std::pair<double, double> NiceRange(double lo, double hi, int count) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0, 1};
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo < 1e-12) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.05;
    lo -= pad;
    hi += pad;
  }
  const double step = NiceStep((hi - lo) / std::max(1, count));
  return {std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step};
}

std::vector<Tick> NumberTicks(double lo, double hi, int count) {
  std::vector<Tick> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo) return ticks;
  const double step = NiceStep((hi - lo) / std::max(1, count));
  const int decimals = DecimalsFor(step);
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    double v = k * step;
    if (std::abs(v) < step * 1e-9) v = 0;
    ticks.emplace_back(v, FormatFixed(v, decimals));
    if (ticks.size() > 40) break;
  }
  return ticks;
}

std::vector<Tick> DateTicks(int lo, int hi, int count) {
  std::vector<Tick> ticks;
  if (hi < lo) return ticks;
  const int step = std::max(1, (hi - lo + std::max(1, count) - 1) / std::max(1, count));
  for (int day = lo; day <= hi && ticks.size() <= 40; day += step) {
    int y, m, d;
    CivilFromDays(day, &y, &m, &d);
    ticks.emplace_back(day, std::string(kMonths[m - 1]) + " " + std::to_string(d));
  }
  return ticks;
}

std::string Circle(double cx, double cy, double r, const std::string& fill, const Datum& d) {
  return "<circle" + PointAttrs(d) + " cx=\"" + Px(cx) + "\" cy=\"" + Px(cy) + "\" r=\"" + Px(r) +
         "\" fill=\"" + fill + "\">" + PointTitle(d) + "</circle>";
}

std::string Diamond(double cx, double cy, double r, const std::string& stroke, const Datum& d) {
  const std::vector<std::pair<double, double>> pts = {
      {cx, cy - r}, {cx + r, cy}, {cx, cy + r}, {cx - r, cy}};
  return "<polygon" + PointAttrs(d) + " points=\"" + Points(pts) + "\" fill=\"#fff\" stroke=\"" +
         stroke + "\" stroke-width=\"2\">" + PointTitle(d) + "</polygon>";
}

std::string Bar(double x, double y, double w, double h, const std::string& fill, const Datum& d) {
  if (h < 0) {
    y += h;
    h = -h;
  }
  return "<rect" + PointAttrs(d) + " x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" width=\"" +
         Px(std::max(0.0, w)) + "\" height=\"" + Px(h) + "\" fill=\"" + fill + "\">" +
         PointTitle(d) + "</rect>";
}

std::string Polyline(const std::vector<std::pair<double, double>>& points,
                     const std::string& stroke, double width, const std::string& dash) {
  if (points.size() < 2) return "";
  return "<polyline points=\"" + Points(points) + "\" fill=\"none\" stroke=\"" + stroke +
         "\" stroke-width=\"" + Px(width) + "\"" +
         (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") +
         " stroke-linejoin=\"round\"/>";
}

std::string Polygon(const std::vector<std::pair<double, double>>& points, const std::string& fill,
                    double opacity) {
  if (points.size() < 3) return "";
  return "<polygon class=\"band\" points=\"" + Points(points) + "\" fill=\"" + fill +
         "\" fill-opacity=\"" + Px(opacity) + "\"/>";
}

std::string Line(double x1, double y1, double x2, double y2, const std::string& stroke,
                 double width, const std::string& dash) {
  return "<line x1=\"" + Px(x1) + "\" y1=\"" + Px(y1) + "\" x2=\"" + Px(x2) + "\" y2=\"" + Px(y2) +
         "\" stroke=\"" + stroke + "\" stroke-width=\"" + Px(width) + "\"" +
         (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>";
}

std::string Text(double x, double y, std::string_view text, const std::string& anchor, double size,
                 const std::string& fill) {
  return "<text x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" text-anchor=\"" + anchor +
         "\" font-size=\"" + Px(size) + "\" fill=\"" + fill + "\">" + Escape(text) + "</text>";
}

Chart::Chart(std::string id, std::string title, double width, double height)
    : id_(std::move(id)), title_(std::move(title)), width_(width), height_(height) {}

void Chart::SetX(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi <= lo) lo -= 0.5, hi = lo + 1;
  x_lo_ = lo;
  x_hi_ = hi;
}

void Chart::SetY(double lo, double hi, bool nice) {
  if (nice) {
    std::tie(y_lo_, y_hi_) = NiceRange(lo, hi, 5);
    return;
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (hi <= lo) lo -= 0.5, hi = lo + 1;
  y_lo_ = lo;
  y_hi_ = hi;
}

void Chart::SetAxisLabels(std::string x_label, std::string y_label) {
  x_label_ = std::move(x_label);
  y_label_ = std::move(y_label);
}

void Chart::AddLegend(std::string label, std::string colour, std::string shape) {
  legend_.push_back({std::move(label), std::move(colour), std::move(shape)});
}

int Chart::LegendRows() const {
  int rows = legend_.empty() ? 0 : 1;
  double x = plot_left();
  for (const LegendEntry& e : legend_) {
    const double w = 24 + kCharWidth * e.label.size() + 14;
    if (x + w > plot_right() && x > plot_left()) {
      ++rows;
      x = plot_left();
    }
    x += w;
  }
  return rows;
}

// The plot is laid out as if there were no legend; Render moves it down under the legend, so
// that X() and Y() do not change as legend entries are added.
double Chart::plot_top() const { return kLegendTop + 10; }

double Chart::X(double v) const {
  if (!std::isfinite(v)) return plot_left();
  const double t = (v - x_lo_) / (x_hi_ - x_lo_);
  return std::clamp(plot_left() + t * (plot_right() - plot_left()), -1e5, 1e5);
}

double Chart::Y(double v) const {
  if (!std::isfinite(v)) return plot_bottom();
  const double t = (v - y_lo_) / (y_hi_ - y_lo_);
  return std::clamp(plot_bottom() - t * (plot_bottom() - plot_top()), -1e5, 1e5);
}

std::string Chart::Render() const {
  const std::string grid = "#e5e7eb", axis = "#9ca3af";
  const double legend_h = std::max(0, LegendRows() - 1) * kLegendRow;
  const double height = height_ + legend_h;
  std::string out = "<svg class=\"chart\" id=\"" + Escape(id_) + "\" viewBox=\"0 0 " + Px(width_) +
                    " " + Px(height) + "\" width=\"" + Px(width_) + "\" height=\"" + Px(height) +
                    "\" role=\"img\" aria-label=\"" + Escape(title_) + "\">";
  out += Text(plot_left(), kTitleY, title_, "start", 15, "#111827");
  // Legend rows under the title, wrapped like LegendRows.
  double lx = plot_left(), ly = kLegendTop;
  for (const LegendEntry& e : legend_) {
    const double w = 24 + kCharWidth * e.label.size() + 14;
    if (lx + w > plot_right() && lx > plot_left()) {
      lx = plot_left();
      ly += kLegendRow;
    }
    const double cy = ly - 4;
    if (e.shape == "line") {
      out += Line(lx, cy, lx + 18, cy, e.colour, 2.5);
    } else if (e.shape == "dot") {
      out += "<circle cx=\"" + Px(lx + 9) + "\" cy=\"" + Px(cy) + "\" r=\"4\" fill=\"" + e.colour +
             "\"/>";
    } else if (e.shape == "diamond") {
      out += "<polygon points=\"" +
             Points({{lx + 9, cy - 5}, {lx + 14, cy}, {lx + 9, cy + 5}, {lx + 4, cy}}) +
             "\" fill=\"#fff\" stroke=\"" + e.colour + "\" stroke-width=\"2\"/>";
    } else {
      out += "<rect x=\"" + Px(lx + 3) + "\" y=\"" + Px(cy - 6) + "\" width=\"12\" height=\"12\" " +
             "fill=\"" + e.colour + "\"/>";
    }
    out += Text(lx + 22, ly, e.label, "start", 12);
    lx += w;
  }
  // The plot, under the legend.
  out += "<g transform=\"translate(0 " + Px(legend_h) + ")\">";
  // Grid, ticks and axes.
  for (const auto& [v, label] : y_ticks_) {
    const double y = Y(v);
    out += Line(plot_left(), y, plot_right(), y, grid);
    out += Text(plot_left() - 6, y + 4, label, "end", 11, "#4b5563");
  }
  for (const auto& [v, label] : x_ticks_) {
    const double x = X(v);
    out += Line(x, plot_bottom(), x, plot_bottom() + 5, axis);
    if (x_tick_angle_ == 0) {
      out += Text(x, plot_bottom() + 18, label, "middle", 11, "#4b5563");
    } else {
      out += "<text transform=\"translate(" + Px(x) + " " + Px(plot_bottom() + 14) + ") rotate(" +
             Px(x_tick_angle_) + ")\" text-anchor=\"end\" font-size=\"11\" fill=\"#4b5563\">" +
             Escape(label) + "</text>";
    }
  }
  out += Line(plot_left(), plot_bottom(), plot_right(), plot_bottom(), axis);
  out += Line(plot_left(), plot_top(), plot_left(), plot_bottom(), axis);
  if (!x_label_.empty()) {
    out += Text((plot_left() + plot_right()) / 2, height_ - 8, x_label_, "middle", 12);
  }
  if (!y_label_.empty()) {
    const double cy = (plot_top() + plot_bottom()) / 2;
    out += "<text transform=\"translate(14 " + Px(cy) +
           ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\" fill=\"#374151\">" +
           Escape(y_label_) + "</text>";
  }
  out += "<g class=\"plot\">" + body_ + "</g></g></svg>";
  return out;
}

void AddGappedLine(Chart& chart,
                   const std::vector<std::optional<std::pair<double, double>>>& values,
                   const std::string& colour, const std::string& dash) {
  std::vector<std::pair<double, double>> run;
  for (const auto& v : values) {
    if (v) {
      run.emplace_back(chart.X(v->first), chart.Y(v->second));
      continue;
    }
    chart.Add(Polyline(run, colour, 2, dash));
    run.clear();
  }
  chart.Add(Polyline(run, colour, 2, dash));
}

std::string GroupedBars(const BarChartSpec& s) {
  const size_t n = s.labels.size();
  size_t longest = 0;
  for (const std::string& label : s.labels) longest = std::max(longest, label.size());
  // Tick labels wider than a group are turned, and the chart grows to hold them.
  const double label_px = kCharWidth * 0.9 * longest;
  const bool rotate = n > 0 && label_px > (s.width - 100) / n;
  const double below = rotate ? std::min(180.0, 30 + label_px * 0.6) : 46;
  Chart c(s.id, s.title, s.width, 300 + below);
  c.SetBottomMargin(below);
  if (rotate) {
    c.SetXTickAngle(-35);
    // A turned label reaches left of its tick by about cos(35°) of its length.
    c.SetLeftMargin(std::max(64.0, kCharWidth * longest * 0.82 - (s.width - 84) / (2.0 * n) + 16));
  }
  double lo = 0, hi = 0;
  bool any = false;
  for (const BarSeries& b : s.series) {
    for (const auto& v : b.values) {
      if (const auto d = v ? ParseNumber(*v) : std::nullopt) {
        lo = std::min(lo, *d), hi = std::max(hi, *d), any = any || *d != 0;
      }
    }
  }
  for (const auto& t : s.thresholds) {
    if (t) hi = std::max(hi, *t);
  }
  if (s.y_domain) {
    c.SetY(s.y_domain->first, s.y_domain->second);
  } else if (!any && hi <= 0) {
    c.SetY(0, 1);  // nothing to show: a plain zero line at the bottom
  } else {
    c.SetY(lo, hi);
  }
  c.SetYTicks(NumberTicks(c.y_lo(), c.y_hi(), 5));
  c.SetX(0, std::max<double>(1, n));
  c.SetAxisLabels("", s.y_label);
  std::vector<Tick> ticks;
  for (size_t g = 0; g < n; ++g) ticks.emplace_back(g + 0.5, s.labels[g]);
  c.SetXTicks(std::move(ticks));
  const double zero = c.Y(std::clamp(0.0, c.y_lo(), c.y_hi()));
  const double slot = 0.8 / std::max<size_t>(1, s.series.size());
  for (size_t k = 0; k < s.series.size(); ++k) {
    const BarSeries& b = s.series[k];
    c.AddLegend(b.name, b.colour);
    for (size_t g = 0; g < n && g < b.values.size(); ++g) {
      if (!b.values[g]) continue;
      // A value outside a fixed domain is drawn to its edge (its data-y keeps the value).
      const double v = std::clamp(ParseNumber(*b.values[g]).value_or(0), c.y_lo(), c.y_hi());
      const double x0 = c.X(g + 0.1 + k * slot), x1 = c.X(g + 0.1 + (k + 1) * slot);
      c.Add(Bar(x0 + 1, zero, x1 - x0 - 2, c.Y(v) - zero, b.colour,
                {b.name, g < s.keys.size() ? s.keys[g] : s.labels[g], *b.values[g], "", ""}));
    }
  }
  bool any_threshold = false;
  for (size_t g = 0; g < n && g < s.thresholds.size(); ++g) {
    if (!s.thresholds[g]) continue;
    any_threshold = true;
    const double y = c.Y(*s.thresholds[g]);
    c.Add(Line(c.X(g + 0.04), y, c.X(g + 0.96), y, "#dc2626", 2, "5 3"));
  }
  if (any_threshold) c.AddLegend(s.threshold_label, "#dc2626", "line");
  c.Add(Line(c.plot_left(), zero, c.plot_right(), zero, "#374151", 1.2));
  if (!any && !s.empty_note.empty()) {
    c.Add(Text((c.plot_left() + c.plot_right()) / 2, (c.plot_top() + zero) / 2, s.empty_note,
               "middle", 13, "#6b7280"));
  }
  return c.Render();
}

}  // namespace cfx::demo::svg
