#include "cfx/perf/journal_bench.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/journal/journal.h"
#include "cfx/replication/batch_format.h"
#include "cfx/replication/jetstream_log.h"
#include "cfx/replication/local_nats_cluster.h"
#include "cfx/replication/publish_yardstick.h"
#include "work_dir.h"

namespace cfx::perf {
namespace {

absl::StatusOr<nlohmann::json> RunOnJournal(const JournalBenchOptions& options,
                                            const std::string& dir,
                                            journal::ReplicationLog* replication = nullptr) {
  auto journal = journal::Journal::Open({.data_dir = dir,
                                         .map_size_bytes = options.map_size_gib << 30,
                                         .unsafe_no_sync = options.unsafe_no_sync,
                                         .defer_commit_sync = options.defer_commit_sync,
                                         .commit_log = options.commit_log,
                                         .commit_log_copy_every_ms =
                                             options.commit_log_copy_every_ms});
  if (!journal.ok()) return journal.status();
  if ((*journal)->LastSeq() != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat((*journal)->path(), " already holds records; use an empty data dir"));
  }
  HarnessConfig harness = options.harness;
  harness.journal = journal->get();
  harness.pipeline.replication = replication;
  return RunHarness(harness);
}

}  // namespace

// The yardstick: raw synced LMDB commits on the same disk: `commits` AppendBatch calls of
// `records` 64-byte records each, every one synced. Its p99 is what one ack must wait for
// at least (docs/durability.md).
absl::StatusOr<nlohmann::json> RawSyncedCommits(const std::string& dir, int commits,
                                                int records) {
  auto journal = journal::Journal::Open({.data_dir = dir});
  if (!journal.ok()) return journal.status();
  const std::string payload(64, 'x');
  const std::vector<absl::string_view> batch(records, payload);
  std::vector<double> us;
  us.reserve(commits);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < commits; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto last = (*journal)->AppendBatch(batch);
    if (!last.ok()) return last.status();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                     .count());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::sort(us.begin(), us.end());
  auto pct = [&](double p) { return us[std::min(us.size() - 1, static_cast<size_t>(p * us.size()))]; };
  return nlohmann::json{{"records_per_commit", records},
                        {"commits", commits},
                        {"records_per_sec", commits * records / seconds},
                        {"p50_us", pct(0.50)},
                        {"p99_us", pct(0.99)}};
}

absl::StatusOr<std::unique_ptr<GroupFlusher>> GroupFlusher::Open(const std::string& dir) {
  const std::string path = dir + "/group_flush.dat";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
  std::unique_ptr<GroupFlusher> flusher(new GroupFlusher(fd, path));
  constexpr off_t kFileBytes = 8 << 20;
  const std::string zeros(1 << 20, '\0');
  for (off_t off = 0; off < kFileBytes; off += static_cast<off_t>(zeros.size())) {
    if (pwrite(fd, zeros.data(), zeros.size(), off) != static_cast<ssize_t>(zeros.size())) {
      return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
    }
  }
  if (fsync(fd) != 0) return absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
  flusher->thread_ = std::thread([f = flusher.get()] { f->Run(); });
  return flusher;
}

GroupFlusher::GroupFlusher(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

GroupFlusher::~GroupFlusher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    asked_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  close(fd_);
  unlink(path_.c_str());
}

void GroupFlusher::Run() {
  constexpr size_t kRecord = 1024;
  constexpr off_t kFileBytes = 8 << 20;
  const std::string record(kRecord, 'x');
  off_t off = 0;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    asked_.wait(lock, [&] { return done_ || asks_ > durable_; });
    if (asks_ == durable_) return;  // done, nothing waiting
    const uint64_t upto = asks_;
    ++begun_;
    lock.unlock();
    const bool ok =
        pwrite(fd_, record.data(), record.size(), off) == static_cast<ssize_t>(record.size()) &&
        fdatasync(fd_) == 0;
    const int err = ok ? 0 : errno;
    off = (off + 4096) % kFileBytes;
    lock.lock();
    if (!ok && error_ == 0) error_ = err;
    durable_ = upto;  // released either way, so no caller waits for ever
    ++flushes_;
    flushed_.notify_all();
  }
}

void GroupFlusher::MakeDurable() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t me = ++asks_;
  asked_.notify_one();
  flushed_.wait(lock, [&] { return durable_ >= me; });
}

uint64_t GroupFlusher::flushes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return flushes_;
}

uint64_t GroupFlusher::flushes_begun() const {
  std::lock_guard<std::mutex> lock(mu_);
  return begun_;
}

int GroupFlusher::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

absl::StatusOr<nlohmann::json> GroupFlushClients(const std::string& dir, int clients, int acks,
                                                 double think_us) {
  auto flusher = GroupFlusher::Open(dir);
  if (!flusher.ok()) return flusher.status();
  std::vector<double> us;
  std::mutex us_mu;
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      std::vector<double> mine;
      const int n = acks * (c + 1) / clients - acks * c / clients;
      for (int k = 0; k < n; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        (*flusher)->MakeDurable();
        mine.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count());
        std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(think_us * 1e3)));
      }
      std::lock_guard<std::mutex> lock(us_mu);
      us.insert(us.end(), mine.begin(), mine.end());
    });
  }
  for (std::thread& t : threads) t.join();
  const uint64_t flushes = (*flusher)->flushes();
  if (const int error = (*flusher)->error(); error != 0) {
    return absl::UnavailableError(absl::StrCat(dir, "/group_flush.dat: ", std::strerror(error)));
  }
  if (us.empty()) return absl::InvalidArgumentError("no acks asked for");
  std::sort(us.begin(), us.end());
  auto pct = [&](double p) {
    return us[std::min(us.size() - 1, static_cast<size_t>(p * us.size()))];
  };
  return nlohmann::json{{"clients", clients}, {"think_us", think_us}, {"acks", us.size()},
                        {"flushes", flushes}, {"p50_us", pct(0.50)},  {"p99_us", pct(0.99)}};
}

// --replicated: the replicated run in `dir` (the unreplicated one is the caller's), on the
// given servers or on a cluster started for it, and the publish-ack yardstick.
absl::StatusOr<nlohmann::json> RunReplicated(const JournalBenchOptions& options,
                                             const std::string& dir) {
  std::unique_ptr<replication::LocalNatsCluster> cluster;
  const std::string cluster_dir = dir + "_nats";
  replication::NatsOptions o;
  o.servers = options.nats_servers;
  if (o.servers.empty()) {
    if (!internal::MakeDirs(cluster_dir)) return absl::UnavailableError("cannot create " + cluster_dir);
    auto c = replication::LocalNatsCluster::Start(cluster_dir, 3);
    if (!c.ok()) return c.status();
    cluster = std::move(*c);
    o.servers = cluster->urls();
    o.user = cluster->user();
    o.password = cluster->password();
  }
  o.stream = absl::StrCat("CFX_BENCH_", std::chrono::steady_clock::now().time_since_epoch().count());
  o.subject = "cfx.bench." + o.stream;
  absl::StatusOr<nlohmann::json> out = absl::UnknownError("not run");
  {
    auto log = replication::JetStreamLog::Open(o);
    absl::Status opened = log.status();
    if (opened.ok() && !internal::MakeDirs(dir)) {
      opened = absl::UnavailableError("cannot create " + dir);
    }
    if (!opened.ok()) {
      log = absl::UnknownError("closed");
      cluster.reset();
      internal::RemoveDirQuietly(cluster_dir);  // nothing of the bench's left behind
      return opened;
    }
    out = RunOnJournal(options, dir, log->get());
  }
  // One publish the size of a 10-input batch (as the raw commit yardstick's 10 records).
  auto raw = replication::TimeRawPublishAcks(o, 500, replication::kBatchHeaderSize + 10 * (4 + 72));
  cluster.reset();
  internal::RemoveDirQuietly(cluster_dir);
  if (!out.ok()) return out;
  if (raw.ok() && !raw->empty()) {
    auto pct = [&](double p) { return (*raw)[std::min(raw->size() - 1, static_cast<size_t>(p * raw->size()))]; };
    (*out)["yardstick_raw_jetstream_publish"] = {{"publishes", raw->size()},
                                                 {"p50_us", pct(0.5)},
                                                 {"p99_us", pct(0.99)}};
  } else if (!raw.ok()) {
    (*out)["yardstick_error"] = std::string(raw.status().message());
  }
  (*out)["nats_servers"] = o.servers;
  return out;
}

absl::StatusOr<nlohmann::json> RunJournalBench(const JournalBenchOptions& options) {
  namespace fs = std::filesystem;
  const bool temporary = options.data_dir.empty();
  std::string dir = options.data_dir;
  if (temporary) {
    dir = internal::MakeTempDir((fs::temp_directory_path() / "cfx_bench_journal_XXXXXX").string());
    if (dir.empty()) {
      std::ostringstream message;
      message << "cannot create a temp dir in " << fs::temp_directory_path();
      return absl::UnavailableError(message.str());
    }
  }
  absl::StatusOr<nlohmann::json> out = RunOnJournal(options, dir);
  // Same disk, same run: one raw synced commit of 10 records (the latency yardstick) and of
  // 1,000 records (the throughput yardstick).
  absl::StatusOr<nlohmann::json> raw10, raw1000;
  if (out.ok() && !options.unsafe_no_sync) {
    const std::string raw_dir = (fs::path(dir).parent_path() /
                                 (fs::path(dir).filename().string() + "_raw")).string();
    if (internal::MakeDirs(raw_dir + "/a") && internal::MakeDirs(raw_dir + "/b")) {
      raw10 = RawSyncedCommits(raw_dir + "/a", 500, 10);
      raw1000 = RawSyncedCommits(raw_dir + "/b", 100, 1000);
    } else {
      raw10 = raw1000 = absl::UnavailableError("cannot create " + raw_dir);
    }
    internal::RemoveDirQuietly(raw_dir);
  }
  if (out.ok() && options.replicated) {
    // The same load again through the stream; the figures above become "unreplicated".
    nlohmann::json plain = *out;
    const std::string rdir = dir + "_replicated";
    absl::StatusOr<nlohmann::json> rep = RunReplicated(options, rdir);
    internal::RemoveDirQuietly(rdir);
    if (!rep.ok()) {
      out = rep.status();
    } else {
      out = *rep;
      (*out)["unreplicated"] = plain;
      if (plain.contains("orders_per_sec") && out->contains("orders_per_sec")) {
        (*out)["ratio_to_unreplicated_throughput"] =
            (*out)["orders_per_sec"].get<double>() / plain["orders_per_sec"].get<double>();
      }
    }
  }
  if (temporary) internal::RemoveDirQuietly(dir);
  if (!out.ok()) return out;
  if (raw10.ok() && raw1000.ok()) {
    (*out)["yardstick_raw_commit_10"] = *raw10;
    (*out)["yardstick_raw_commit_1000"] = *raw1000;
    if (out->contains("p99_ack_us")) {
      (*out)["ratio_p99_ack_to_raw_commit_p99"] =
          (*out)["p99_ack_us"].get<double>() / (*raw10)["p99_us"].get<double>();
      // Replicated: an ack waits for one publish-ack and one synced commit, in series.
      if (out->contains("yardstick_raw_jetstream_publish")) {
        (*out)["ratio_p99_ack_to_raw_publish_plus_commit_p99"] =
            (*out)["p99_ack_us"].get<double>() /
            ((*out)["yardstick_raw_jetstream_publish"]["p99_us"].get<double>() +
             (*raw10)["p99_us"].get<double>());
      }
    }
    if (out->contains("orders_per_sec")) {
      (*out)["ratio_to_raw_commit_1000_throughput"] =
          (*out)["orders_per_sec"].get<double>() / (*raw1000)["records_per_sec"].get<double>();
    }
  } else if (!options.unsafe_no_sync) {
    (*out)["yardstick_error"] =
        std::string((raw10.ok() ? raw1000 : raw10).status().message());
  }
  (*out)["journal"] = true;
  (*out)["synced"] = !options.unsafe_no_sync;
  (*out)["commit_log"] = options.commit_log;
  (*out)["data_dir"] = dir;
  return out;
}

}  // namespace cfx::perf
