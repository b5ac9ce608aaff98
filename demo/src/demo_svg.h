// A small toolkit for the inline SVG charts of the demo's HTML report (demo_html.cc): HTML
// escaping, linear scales with round ticks, calendar days for date axes, and a Chart that
// collects shapes and renders one <svg class="chart" id=...> with its title, axes and legend.
//
//   svg::Chart c("chart-mtok", "USD per 1M output tokens", 1000, 360);
//   c.SetX(first_day, last_day);
//   c.SetY(0.9, 1.6);                                  // widened to round ticks
//   c.SetXTicks(svg::DateTicks(first_day, last_day, 6));
//   c.SetYTicks(svg::NumberTicks(c.y_lo(), c.y_hi(), 5));
//   c.Add(svg::Polyline(points, "#2563eb"));
//   c.Add(svg::Circle(x, y, 3.5, "#2563eb", {"B200-GOLD-US", "2027-03-01", "1.3667"}));
//   c.AddLegend("B200-GOLD-US", "#2563eb");
//   std::string html = c.Render();
//
// Every plotted point or bar carries class "pt" and data-series / data-x / data-y holding the
// caller's original strings, so a test can find it in the DOM. Nothing here throws on odd
// numbers: non-finite coordinates are clamped, empty domains are widened.
#ifndef CFX_DEMO_DEMO_SVG_H_
#define CFX_DEMO_DEMO_SVG_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cfx::demo::svg {

// `text` with & < > " ' as entities, invalid UTF-8 bytes as U+FFFD and control characters
// other than tab and newline as spaces: safe in element content and in quoted attributes.
std::string Escape(std::string_view text);

// "5.4123" -> 5.4123. nullopt unless the whole text is a finite decimal number.
std::optional<double> ParseNumber(std::string_view text);

// "YYYY-MM-DD" -> days since 1970-01-01. nullopt when malformed.
std::optional<int> ParseDay(std::string_view date);
// Days since 1970-01-01 -> "YYYY-MM-DD".
std::string FormatDay(int day);

// A value with `decimals` digits after the point ("%.*f"), "-" when not finite.
std::string FormatFixed(double value, int decimals);

// A position on an axis and its label.
using Tick = std::pair<double, std::string>;

// About `count` round ticks (1, 2 or 5 × 10^k apart) inside [lo, hi], labelled with as many
// decimals as the step needs.
std::vector<Tick> NumberTicks(double lo, double hi, int count);
// About `count` ticks on whole days inside [lo, hi] (days since 1970), labelled "Mar 1".
std::vector<Tick> DateTicks(int lo, int hi, int count);
// [lo, hi] widened to the round steps NumberTicks would use (a flat range gets some height).
std::pair<double, double> NiceRange(double lo, double hi, int count);

// What a plotted point or bar stands for (the original strings, not the plotted doubles).
struct Datum {
  std::string series;
  std::string x;
  std::string y;
  std::string extra_class;  // added after "pt" (e.g. "level3"), may be empty
  std::string tooltip;      // an SVG <title>; empty: "series x y"
};

// Shapes in pixel coordinates. Colours are CSS colours chosen by the caller (never input).
std::string Circle(double cx, double cy, double r, const std::string& fill, const Datum& d);
// A hollow diamond: the mark for a point that differs from its neighbours (a carried fix).
std::string Diamond(double cx, double cy, double r, const std::string& stroke, const Datum& d);
std::string Bar(double x, double y, double w, double h, const std::string& fill, const Datum& d);
// A line through `points`; a dash pattern such as "4 3" when `dash` is not empty.
std::string Polyline(const std::vector<std::pair<double, double>>& points,
                     const std::string& stroke, double width = 2, const std::string& dash = "");
std::string Polygon(const std::vector<std::pair<double, double>>& points, const std::string& fill,
                    double opacity);
std::string Line(double x1, double y1, double x2, double y2, const std::string& stroke,
                 double width = 1, const std::string& dash = "");
// `anchor` is "start", "middle" or "end"; `text` is escaped here.
std::string Text(double x, double y, std::string_view text, const std::string& anchor = "start",
                 double size = 12, const std::string& fill = "#374151");

// One chart: a title, an optional legend under it, a plot area with axes, and the shapes the
// caller adds in pixel coordinates (X() and Y() map data values into the plot area).
class Chart {
 public:
  // `id` must be unique in the page; it is escaped, as are every title and label.
  Chart(std::string id, std::string title, double width, double height);

  // Data domains. An empty or inverted domain is widened around its value; SetY also widens
  // the y domain to round ticks unless `nice` is false (a categorical axis).
  void SetX(double lo, double hi);
  void SetY(double lo, double hi, bool nice = true);
  double x_lo() const { return x_lo_; }
  double x_hi() const { return x_hi_; }
  double y_lo() const { return y_lo_; }
  double y_hi() const { return y_hi_; }
  void SetXTicks(std::vector<Tick> ticks) { x_ticks_ = std::move(ticks); }
  void SetYTicks(std::vector<Tick> ticks) { y_ticks_ = std::move(ticks); }
  void SetAxisLabels(std::string x_label, std::string y_label);
  // Room left of the plot for the y tick labels, and below it for rotated x tick labels
  // (SetXTickAngle, degrees, e.g. -30), in pixels.
  void SetLeftMargin(double px) { margin_left_ = px; }
  void SetBottomMargin(double px) { margin_bottom_ = px; }
  void SetXTickAngle(double degrees) { x_tick_angle_ = degrees; }
  // A legend entry: a swatch ("box", "dot", "diamond" or "line") and its label.
  void AddLegend(std::string label, std::string colour, std::string shape = "box");

  // Pixel coordinates of data values (clamped to the plot area's neighbourhood).
  double X(double v) const;
  double Y(double v) const;
  double plot_left() const { return margin_left_; }
  double plot_right() const { return width_ - kMarginRight; }
  double plot_top() const;
  double plot_bottom() const { return height_ - margin_bottom_; }

  // Appends SVG markup (from the shape helpers above) to the plot.
  void Add(std::string markup) { body_ += std::move(markup); }
  // The whole <svg>, with role="img" and an aria-label of the title.
  std::string Render() const;

 private:
  static constexpr double kMarginRight = 20;
  int LegendRows() const;

  std::string id_, title_, x_label_, y_label_, body_;
  double width_, height_;
  double margin_left_ = 64;
  double margin_bottom_ = 46;
  double x_tick_angle_ = 0;
  double x_lo_ = 0, x_hi_ = 1, y_lo_ = 0, y_hi_ = 1;
  std::vector<Tick> x_ticks_, y_ticks_;
  struct LegendEntry {
    std::string label, colour, shape;
  };
  std::vector<LegendEntry> legend_;
};

// Polylines through the present points of `values` (data coordinates, in order); a nullopt
// breaks the line (a day without a value).
void AddGappedLine(Chart& chart,
                   const std::vector<std::optional<std::pair<double, double>>>& values,
                   const std::string& colour, const std::string& dash = "");

// Grouped bars rising or falling from a zero line: one group per category along x, one bar
// per series in each group, optionally a dashed threshold across a group.
struct BarSeries {
  std::string name, colour;
  std::vector<std::optional<std::string>> values;  // per group, the report's strings
};
struct BarChartSpec {
  std::string id, title, y_label;
  std::string empty_note;                 // shown when every value is zero or absent
  std::vector<std::string> labels, keys;  // per group: the tick label and each bar's data-x
  std::vector<BarSeries> series;
  std::optional<std::pair<double, double>> y_domain;  // fixed, e.g. [0, 1] for shares
  std::vector<std::optional<double>> thresholds;      // per group; drawn when present
  std::string threshold_label;
  double width = 1040;
};
std::string GroupedBars(const BarChartSpec& spec);

}  // namespace cfx::demo::svg

#endif  // CFX_DEMO_DEMO_SVG_H_
