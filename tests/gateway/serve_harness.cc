#include "serve_harness.h"

#include "absl/strings/str_cat.h"
#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/gateway/exchange_server.h"
#include "report_watermark.h"

namespace cfx {
namespace gateway {
namespace test {

std::string ServeConfigText(const std::string& data_dir, const std::string& limits) {
  return absl::StrCat(R"([exchange]
data_dir = ")",
                      data_dir, R"("
fix_port = 0
http_port = 0
psr = 0.15

[limits]
# The serve tests follow a wrong token with good requests at once; the 401 back-off has its
# own tests (http_units_test.cc, http_api_test.cc).
http_unauthorized_backoff_ms = 0
)",
                      limits, R"(

[[firms]]
id = "ALPHA"
name = "Alpha"

[[firms]]
id = "BETA"
name = "Beta"

[[accounts]]
id = "A1"
firm = "ALPHA"
collateral = "1000000.00"

[[accounts]]
id = "A2"
firm = "ALPHA"
collateral = "10.00"

[[accounts]]
id = "B1"
firm = "BETA"
collateral = "1000000.00"

[[sessions]]
sender_comp_id = "ALPHA_T1"
firm = "ALPHA"
# "alpha-secret", hashed at the test limits (cfx passwd --opslimit 1 --memlimit-kib 8)
password_hash = "$argon2id$v=19$m=8,t=1,p=1$ebiZp5VPIIeFaDyYwhjivg$I1zhFofFaHiX27mbba20O5r9VnjVOCeShsXyp+AEfgE"
throttle_msgs_per_sec = 5000

[[sessions]]
sender_comp_id = "ALPHA_T2"
firm = "ALPHA"
allow_no_password = true
throttle_msgs_per_sec = 5000

[[sessions]]
sender_comp_id = "ALPHA_DC"
firm = "ALPHA"
allow_no_password = true
role = "drop_copy"

[[sessions]]
sender_comp_id = "BETA_T1"
firm = "BETA"
allow_no_password = true
cancel_on_disconnect = false
throttle_msgs_per_sec = 5000

[[sessions]]
sender_comp_id = "BETA_DC"
firm = "BETA"
allow_no_password = true
role = "drop_copy"

[[tokens]]
token_sha256 = "e11361fb9f6d4b928dbae73fe5f088492963bf15f51bd2ccb03419e0f029c061"  # "tok-alpha"
role = "firm"
firm = "ALPHA"

[[tokens]]
token_sha256 = "c4dc09707289177ebbc620322e447b03104405e10d1ea3b752c1b34ebfd2ed7e"  # "tok-beta"
role = "firm"
firm = "BETA"

[[tokens]]
token_sha256 = "c56461a394fa7dc4b9fb4a0edab99a0ee56d6f96ec04808d80f1827cdaf042e8"  # "tok-risk"
role = "risk_desk"

[[products]]
grade = "B200-GOLD-US"
ref = "5.000"

[[products]]
grade = "B200-PLAT-US"
ref = "6.000"
)");
}

struct ServeHarness::Impl {
  std::unique_ptr<ExchangeServer> server;
};

ServeHarness::ServeHarness(Impl* impl) : impl_(impl) {}
ServeHarness::~ServeHarness() {
  std::string ignored;
  Stop(&ignored);
}

std::unique_ptr<ServeHarness> ServeHarness::Start(const std::string& data_dir, std::string* error,
                                                  const std::string& limits) {
  return StartWithConfig(ServeConfigText(data_dir, limits), error);
}

std::unique_ptr<ServeHarness> ServeHarness::StartWithConfig(const std::string& config_text,
                                                            std::string* error) {
  absl::StatusOr<common::ExchangeConfig> config = common::ParseConfig(config_text, "serve-test");
  if (!config.ok()) {
    *error = std::string(config.status().message());
    return nullptr;
  }
  ExchangeServerOptions options;
  options.fix_port = 0;
  options.http_port = 0;
  options.manual_clock = true;
  options.start_time = *common::ParseTimestamp("2027-03-01T14:00:00Z") * 1000;
  auto impl = std::make_unique<Impl>();
  impl->server = std::make_unique<ExchangeServer>(*config, options);
  if (absl::Status s = impl->server->Start(); !s.ok()) {
    *error = std::string(s.message());
    return nullptr;
  }
  return std::unique_ptr<ServeHarness>(new ServeHarness(impl.release()));
}

int ServeHarness::fix_port() const { return impl_->server->fix_port(); }
int ServeHarness::http_port() const { return impl_->server->http_port(); }

bool SetReportedWatermark(const std::string& data_dir, unsigned long long seq, std::string* error) {
  auto w = internal::ReportWatermark::Open(data_dir + "/fix/reported");
  absl::Status s = w.ok() ? (*w)->Write(seq) : w.status();
  if (!s.ok()) *error = s.ToString();
  return s.ok();
}

bool ServeHarness::Stop(std::string* error) {
  if (!impl_->server) return true;
  absl::Status s = impl_->server->Stop();
  impl_->server.reset();
  if (!s.ok()) *error = std::string(s.message());
  return s.ok();
}

bool ServeHarness::Flush() { return impl_->server && impl_->server->core().Flush().ok(); }

bool ServeHarness::AdvanceTime(const std::string& iso) {
  absl::StatusOr<common::TimestampUs> ts = common::ParseTimestamp(iso);
  if (!impl_->server || !ts.ok()) return false;
  if (impl_->server->core().AdvanceTime(*ts * 1000) != exchange::OfferResult::kAccepted) {
    return false;
  }
  return Flush();
}

}  // namespace test
}  // namespace gateway
}  // namespace cfx
