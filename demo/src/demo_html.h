// The demo's report as one HTML page a person would rather look at than report.json: the
// week's story in a paragraph, the reference fixes and the settlement prices they anchored,
// price per token by grade, how one fix was made, the book at the close, variation margin and
// calls, close surveillance and the risk desk, each chart with its numbers in a table.
//
//   std::ofstream(out + "/report.html") << RenderHtmlReport(report_json);
//
// The page is self-contained: inline CSS and SVG, no script, no fonts or images fetched, and a
// Content-Security-Policy that forbids loading anything.
//
// For tests, in the DOM: every chart is an <svg class="chart"> with a stable id —
// chart-fix-<grade> (characters other than [A-Za-z0-9-] as "_"), chart-mtok, chart-explain,
// chart-book, chart-vm, chart-calls, chart-surveillance — and every plotted point or bar in it
// is an element with class "pt" and data-series / data-x / data-y holding the report's own
// strings (e.g. data-series="fix" data-x="2027-03-01" data-y="5.4123"). Sections have the ids
// summary, trading, reference, mtok, explain, book, settlement, surveillance and risk; a part
// of the report that is missing reads "not available" in its section.
#ifndef CFX_DEMO_DEMO_HTML_H_
#define CFX_DEMO_DEMO_HTML_H_

#include <string>

#include "nlohmann/json.hpp"

namespace cfx::demo {

// The demo's report as one self-contained HTML page (inline CSS and SVG, no script, no
// network: a Content-Security-Policy meta of default-src 'none'; style-src 'unsafe-inline';
// img-src data:). `report` has the keys of report.json; any of them may be absent or null
// (that part of the page says "not available"). Never throws on the report's content.
std::string RenderHtmlReport(const nlohmann::json& report);

}  // namespace cfx::demo

#endif  // CFX_DEMO_DEMO_HTML_H_
