// Opens a page in headless Chromium the way a person's browser would, for tests of the demo's
// HTML report: the DOM after loading, a screenshot, and how many network requests the page
// tried to make (a self-contained page makes none).
//
//   HtmlCheckResult r = CheckHtmlInChromium(dir + "/report.html", dir);
//   ASSERT_TRUE(r.ran) << r.error;   // Chromium missing or failing is a failure, not a skip
//   EXPECT_EQ(r.network_requests, 0);
//
// Every http(s) request of the page goes through a proxy on 127.0.0.1 that only counts
// connections (and closes them): --proxy-server with loopback not bypassed, and every host name
// mapped to NOTFOUND so nothing leaves the machine. Needs /usr/bin/chromium (scripts/setup).
// Thread safety: none needed; each call owns its listener, thread and child processes.
#ifndef CFX_TESTS_DEMO_HTML_CHECK_H_
#define CFX_TESTS_DEMO_HTML_CHECK_H_

#include <string>

namespace cfx::testsupport {

struct HtmlCheckResult {
  bool ran = false;             // Chromium ran to the end both times and printed a DOM
  std::string error;            // why not, when !ran (also set for a missing screenshot)
  std::string dom;              // --dump-dom: the serialized DOM after load
  std::string screenshot_path;  // <work_dir>/report.png; empty when none was written
  int network_requests = 0;     // connections the page's requests made to the counting proxy
};

// Opens `html_path` (a file) in headless Chromium twice: once to dump the DOM, once for a
// 1200x3000 screenshot at <work_dir>/report.png. Each run gets a fresh --user-data-dir under
// `work_dir`, removed afterwards, and is killed (its whole process group) after 60 s.
// Never throws; a missing Chromium or a failed run leaves ran false with `error` saying why.
HtmlCheckResult CheckHtmlInChromium(const std::string& html_path, const std::string& work_dir);

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_DEMO_HTML_CHECK_H_
