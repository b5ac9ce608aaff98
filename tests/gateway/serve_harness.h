// A C++14-clean handle on a real ExchangeServer (core + engine + journal + FIX + HTTP) for
// the QuickFIX test translation units, which cannot include the C++20 headers.
#ifndef CFX_TESTS_GATEWAY_SERVE_HARNESS_H_
#define CFX_TESTS_GATEWAY_SERVE_HARNESS_H_

#include <memory>
#include <string>

namespace cfx {
namespace gateway {
namespace test {

// The test exchange: firms ALPHA (A1 collateral 1,000,000; A2 collateral 10.00, too little
// for any order) and BETA (B1); sessions ALPHA_T1 (password alpha-secret), ALPHA_T2,
// ALPHA_DC (drop copy), BETA_T1, BETA_DC, all cancel-on-disconnect except BETA_T1; tokens
// tok-alpha, tok-beta, tok-risk; products B200-GOLD-US (ref 5.000) and B200-PLAT-US
// (ref 6.000). Manual clock starting 2027-03-01T14:00:00Z, so 202703 is the front month.
// `limits`: more lines of the [limits] table ("fix_max_outbound_bytes = 65536\n").
std::string ServeConfigText(const std::string& data_dir, const std::string& limits = "");

// Sets `<data_dir>/fix/reported` (the last input whose reports the FIX sessions' stores
// hold) to `seq`, as a crash that kept later reports from going out would leave it; the
// server must be stopped. False and *error on failure.
bool SetReportedWatermark(const std::string& data_dir, unsigned long long seq, std::string* error);

// Thread safety: one controlling thread.
class ServeHarness {
 public:
  // Starts a server on `data_dir` with ephemeral ports; nullptr and *error on failure.
  static std::unique_ptr<ServeHarness> Start(const std::string& data_dir, std::string* error,
                                             const std::string& limits = "");
  // The same with a whole config of the test's own (ServeConfigText, edited).
  static std::unique_ptr<ServeHarness> StartWithConfig(const std::string& config_text,
                                                       std::string* error);
  ~ServeHarness();
  int fix_port() const;
  int http_port() const;
  // Stops FIX, HTTP and the core (drain + sync). False and *error on a journal error.
  bool Stop(std::string* error);
  // Waits until every input submitted so far is published.
  bool Flush();
  // Manual clock: moves exchange time to `iso` ("2027-03-31T17:00:00Z") and flushes.
  bool AdvanceTime(const std::string& iso);

  struct Impl;

 private:
  explicit ServeHarness(Impl* impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace test
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_TESTS_GATEWAY_SERVE_HARNESS_H_
