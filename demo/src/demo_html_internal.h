// Private to demo_html.cc and demo_html_reference.cc: reading report.json defensively and the
// HTML pieces both files build the page from. Every lookup goes through At/Arr, which answer null
// or an empty array for a missing key or a wrong type, and every string shown goes through
// svg::Escape. Also declares the sections demo_html_reference.cc renders for the page.
//
// The names live in cfx::demo::html_internal, not in an anonymous namespace, because the unity
// build compiles the target's .cc files as one translation unit.
#ifndef CFX_DEMO_DEMO_HTML_INTERNAL_H_
#define CFX_DEMO_DEMO_HTML_INTERNAL_H_

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "demo_svg.h"
#include "nlohmann/json.hpp"

namespace cfx::demo::html_internal {

using Json = nlohmann::json;
using svg::Escape;
using XY = std::vector<std::pair<double, double>>;
using MaybeXY = std::optional<std::pair<double, double>>;  // a point of a line with gaps

inline constexpr double kWidth = 1040;
inline constexpr const char* kPalette[] = {"#2563eb", "#ea580c", "#16a34a", "#9333ea",
                                           "#0891b2", "#ca8a04", "#db2777", "#4b5563"};
inline std::string Colour(size_t i) {
  return kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))];
}

// ---- Reading the report ------------------------------------------------------------------

inline const Json& Null() {
  static const Json kNull;
  return kNull;
}
inline const Json& EmptyArray() {
  static const Json kEmpty = Json::array();
  return kEmpty;
}
// j[key] when j is an object with that key, else null.
inline const Json& At(const Json& j, const std::string& key) {
  if (!j.is_object()) return Null();
  const auto it = j.find(key);
  return it == j.end() ? Null() : *it;
}
// j[key] when it is an array, else an empty array.
inline const Json& Arr(const Json& j, const std::string& key) {
  const Json& v = At(j, key);
  return v.is_array() ? v : EmptyArray();
}
// A scalar as the report wrote it; "" for null, objects and arrays.
inline std::string Str(const Json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return v.dump();
  return "";
}
// Any value as compact text (objects {"A": 1} as "A 1, ..."), never throwing on bad UTF-8.
inline std::string Compact(const Json& v) {
  if (v.is_object()) {
    std::string out;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out += (out.empty() ? "" : ", ") + it.key() + " " + Compact(it.value());
    }
    return out;
  }
  if (v.is_array() || v.is_null()) return v.dump(-1, ' ', false, Json::error_handler_t::replace);
  return Str(v);
}
inline std::optional<double> Num(const Json& v) {
  if (v.is_string()) return svg::ParseNumber(v.get_ref<const std::string&>());
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}
// A table cell: the escaped value, or a dash when absent.
inline std::string Cell(const Json& v) {
  const std::string s = v.is_object() || v.is_array() ? Compact(v) : Str(v);
  return s.empty() ? "&ndash;" : Escape(s);
}

// ---- HTML pieces -------------------------------------------------------------------------

// `cells` are HTML already; `align` has per column 'l' (left), 'r' (right, numbers) or 'w'
// (left, long text that may wrap); missing: 'l'. Other cells never wrap.
inline std::string Table(const std::vector<std::string>& head,
                         const std::vector<std::vector<std::string>>& rows,
                         std::string_view align) {
  auto cls = [&](size_t i) {
    const char a = i < align.size() ? align[i] : 'l';
    return a == 'r' ? " class=\"r\"" : a == 'w' ? " class=\"w\"" : "";
  };
  std::string out = "<table><thead><tr>";
  for (size_t i = 0; i < head.size(); ++i)
    out += "<th" + std::string(cls(i)) + ">" + head[i] + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (size_t i = 0; i < row.size(); ++i)
      out += "<td" + std::string(cls(i)) + ">" + row[i] + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>";
}
// A table folded away when long, so the page reads as charts first.
inline std::string Folded(const std::string& summary, const std::string& table, size_t rows) {
  return std::string(rows > 8 ? "<details>" : "<details open>") + "<summary>" + Escape(summary) +
         "</summary>" + table + "</details>";
}
inline std::string NotAvailable(const std::string& what) {
  return "<p class=\"na\">" + Escape(what) + ": not available.</p>";
}

// ---- Sections rendered by demo_html_reference.cc -----------------------------------------

// The reference fixes of each grade with the settlement prices of its contracts (chart 1 per
// grade). `ids` holds the chart ids used on the page so far; the new ones are added to it.
std::string Reference(const Json& r, std::set<std::string>& ids);
// Price per 1M output tokens, one line per grade (chart 2).
std::string PerToken(const Json& r);
// How one fix was made: the levels tried, the observations by fate, the cap, the percentiles
// (chart 6).
std::string Explain(const Json& r);

}  // namespace cfx::demo::html_internal

#endif  // CFX_DEMO_DEMO_HTML_INTERNAL_H_
