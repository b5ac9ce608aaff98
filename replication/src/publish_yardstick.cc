#include "cfx/replication/publish_yardstick.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "nats_connection.h"

namespace cfx::replication {

absl::StatusOr<std::vector<double>> TimeRawPublishAcks(const NatsOptions& options, int count,
                                                       size_t bytes) {
  auto conn = NatsConnection::Connect(options);
  if (!conn.ok()) return conn.status();
  const std::string stream = options.stream + "_YARDSTICK";
  const std::string subject = options.subject + ".yardstick";
  jsStreamConfig cfg;
  jsStreamConfig_Init(&cfg);
  cfg.Name = stream.c_str();
  const char* subjects[1] = {subject.c_str()};
  cfg.Subjects = subjects;
  cfg.SubjectsLen = 1;
  cfg.Storage = js_FileStorage;
  cfg.Replicas = options.replicas;
  jsStreamInfo* si = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_AddStream(&si, (*conn)->js(), &cfg, nullptr, &jerr);
  if (s != NATS_OK) return NatsError(absl::StrCat("create stream ", stream), s, jerr);
  jsStreamInfo_Destroy(si);
  const std::string payload(bytes, 'x');
  std::vector<double> us;
  us.reserve(count);
  absl::Status failed;
  for (int i = 0; i < count && failed.ok(); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    jsPubAck* ack = nullptr;
    s = js_Publish(&ack, (*conn)->js(), subject.c_str(), payload.data(),
                   static_cast<int>(payload.size()), nullptr, &jerr);
    if (s != NATS_OK) {
      failed = NatsError("yardstick publish", s, jerr);
      break;
    }
    jsPubAck_Destroy(ack);
    us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  (void)js_DeleteStream((*conn)->js(), stream.c_str(), nullptr, nullptr);
  if (!failed.ok()) return failed;
  std::sort(us.begin(), us.end());
  return us;
}

}  // namespace cfx::replication
