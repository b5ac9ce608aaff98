#include "cfx/perf/fix_serve_bench.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cfx/common/config.h"
#include "cfx/common/date.h"
#include "cfx/gateway/exchange_server.h"
#include "cfx/perf/journal_bench.h"
#include "cfx/replication/local_nats_cluster.h"
#include "cfx/replication/publish_yardstick.h"
#include "nlohmann/json.hpp"
#include "stages_json.h"
#include "work_dir.h"

namespace cfx::perf {
namespace {

// The bench exchange: one account with ample collateral, sessions BENCH_0.. that reset
// their sequence numbers, no throttle, one grade listed from March 2027.
common::ExchangeConfig BenchConfig(const std::string& data_dir, int sessions) {
  common::ExchangeConfig c;
  c.source = "bench";
  c.data_dir = data_dir;
  c.fix_port = 0;
  c.http_port = 0;
  c.firms.push_back({"BENCH", "Bench"});
  // Pipelined, one connection can pass the per-connection flood bound: no bound here.
  c.limits.fix_max_messages_per_sec = 1'000'000'000;
  // `--rest` rests every order in the one account: no cap on its live orders either.
  c.limits.max_open_orders_per_account = 0;
  c.accounts.push_back({"BENCH-1", "BENCH", common::MicroUsd(int64_t{1'000'000'000} * 1'000'000)});
  for (int i = 0; i < sessions; ++i) {
    common::SessionConfig s;
    s.sender_comp_id = "BENCH_" + std::to_string(i);
    s.firm = "BENCH";
    s.cancel_on_disconnect = false;
    s.throttle_msgs_per_sec = 1'000'000'000;
    s.reset_on_logon = true;
    c.sessions.push_back(s);
  }
  common::ProductConfig p;
  p.grade = common::Grade{"B200", common::Tier::kGold, "US"};
  p.ref_ticks = 5000;
  p.max_order_qty = 1000;
  c.products.push_back(p);
  return c;
}

// The real exchange on a fresh temp data dir, with a manual clock in trading hours.
// Thread safety: one controlling thread.
class BenchExchange {
 public:
  ~BenchExchange() {
    server_.reset();
    cluster_.reset();
    if (!data_dir_.empty()) internal::RemoveDirQuietly(data_dir_);
    if (!nats_dir_.empty()) internal::RemoveDirQuietly(nats_dir_);
  }

  // `replicated`: a three-server NATS cluster on loopback, the exchange its primary.
  absl::Status Start(int sessions, const FixServeBenchOptions& options, bool replicated) {
    data_dir_ = internal::MakeTempDir("/tmp/cfx_bench_fix_serve_XXXXXX");
    if (data_dir_.empty()) return absl::UnavailableError("mkdtemp failed");
    gateway::ExchangeServerOptions so;
    so.manual_clock = true;
    so.start_time = *common::ParseTimestamp("2027-03-01T14:00:00Z") * 1000;
    so.unsafe_no_sync = options.no_sync;
    so.commit_log = options.commit_log;
    so.publisher_thread = options.publisher_thread;
    so.matcher_thread_only = options.matcher_thread_only;
    so.quickfix_file_store = options.quickfix_file_store;
    so.trace_stages = true;  // a few clock reads an input: the per-stage breakdown
    common::ExchangeConfig config = BenchConfig(data_dir_, sessions);
    if (replicated) {
      nats_dir_ = internal::MakeTempDir("/tmp/cfx_bench_fix_nats_XXXXXX");
      if (nats_dir_.empty()) return absl::UnavailableError("mkdtemp failed");
      auto cluster = replication::LocalNatsCluster::Start(nats_dir_, 3);
      if (!cluster.ok()) return cluster.status();
      cluster_ = std::move(*cluster);
      config.replication.servers = cluster_->urls();
      config.replication.user = cluster_->user();
      config.replication.password_file = cluster_->password_file();
      config.replication.node_id = "bench";
      so.role = gateway::ServeRole::kPrimary;
    }
    server_ = std::make_unique<gateway::ExchangeServer>(config, so);
    return server_->Start();
  }

  // The NATS options of the cluster (replicated), for the publish-ack yardstick.
  replication::NatsOptions Nats(const std::string& stream) const {
    replication::NatsOptions o;
    if (cluster_) {
      o.servers = cluster_->urls();
      o.user = cluster_->user();
      o.password = cluster_->password();
    }
    o.stream = stream;
    o.subject = "cfx.bench." + stream;
    return o;
  }

  int fix_port() const { return server_->fix_port(); }
  journal::StageLatencies Stages() const { return server_->core().Stats().stages; }

  // Stops the exchange and returns the core's counters; a failure to stop cleanly goes to
  // `log` (when set) and does not spoil the figures.
  exchange::ExchangeStats Stop(std::ostream* log) {
    exchange::ExchangeStats stats = server_->core().Stats();
    if (absl::Status s = server_->Stop(); !s.ok() && log != nullptr) {
      *log << "cfx bench fix: stop: " << s << "\n";
    }
    return stats;
  }

 private:
  std::string data_dir_;
  std::string nats_dir_;
  std::unique_ptr<replication::LocalNatsCluster> cluster_;
  std::unique_ptr<gateway::ExchangeServer> server_;
};

// How the report names the server: in the summary lines, and as the JSON "mode".
struct ServerNames {
  const char* text;
  const char* mode;
};

ServerNames NamesOf(FixBenchServer server) {
  switch (server) {
    case FixBenchServer::kEcho:
      return {"echo (bare QuickFIX acceptor)", "echo"};
    case FixBenchServer::kFake:
      return {"cfx gateway + fake exchange", "fake"};
    case FixBenchServer::kServe:
      break;
  }
  return {"cfx serve (gateway + core + journal)", "cfx"};
}

nlohmann::json PhaseJson(const FixBenchPhase& p) {
  return {{"orders", p.orders}, {"seconds", p.seconds}, {"orders_per_sec", p.orders_per_sec},
          {"p50_us", p.p50_us}, {"p99_us", p.p99_us},   {"p999_us", p.p999_us}};
}

}  // namespace

absl::StatusOr<FixServeBenchResult> RunFixServeBench(const FixServeBenchOptions& options) {
  FixServeBenchResult result;
  result.options = options;
  FixBenchOptions bench = options.bench;
  bench.echo = options.server == FixBenchServer::kEcho;
  const bool replicated = options.replicated && options.server == FixBenchServer::kServe;
  if (replicated) {  // the same phases unreplicated first, for the figures beside
    BenchExchange plain;
    if (absl::Status s = plain.Start(bench.sessions, options, false); !s.ok()) {
      return s;
    }
    FixBenchOptions b = bench;
    b.external = true;
    b.port = plain.fix_port();
    FixBenchResult r;
    absl::Status s = RunFixBench(b, &r);
    plain.Stop(options.log);
    if (!s.ok()) return s;
    result.unreplicated = r;
  }
  std::unique_ptr<BenchExchange> exchange;
  if (options.server == FixBenchServer::kServe) {
    exchange = std::make_unique<BenchExchange>();
    if (absl::Status s = exchange->Start(bench.sessions, options, replicated); !s.ok()) {
      return s;
    }
    bench.external = true;
    bench.port = exchange->fix_port();
    // Each phase's own stage figures: the histograms' difference across it.
    BenchExchange* e = exchange.get();
    auto before = std::make_shared<journal::StageLatencies>(e->Stages());
    bench.after_phase = [e, before, &result](const char* phase) {
      const journal::StageLatencies now = e->Stages();
      result.stages[phase] = now - *before;
      *before = now;
    };
  }
  absl::Status status = RunFixBench(bench, &result.phases);
  if (exchange) {
    result.core = exchange->Stop(options.log);
    if (replicated && status.ok()) {
      // One order's input in a batch of its own (~150 bytes), one publish at a time.
      auto raw = replication::TimeRawPublishAcks(exchange->Nats("CFX_BENCH_FIX"), 500, 160);
      if (!raw.ok()) return raw.status();
      auto pct = [&](double p) {
        return (*raw)[std::min(raw->size() - 1, static_cast<size_t>(p * raw->size()))];
      };
      result.raw_publish =
          nlohmann::json{{"publishes", raw->size()}, {"p50_us", pct(0.5)}, {"p99_us", pct(0.99)}};
    }
    exchange.reset();
  }
  if (!status.ok()) return status;
  if (options.server == FixBenchServer::kServe && options.yardsticks) {
    // The same phases against the bare QuickFIX acceptor, then the disk's synced commit.
    FixBenchOptions echo = options.bench;
    echo.echo = true;
    echo.external = false;
    echo.port = 0;
    FixBenchResult echo_result;
    if (absl::Status s = RunFixBench(echo, &echo_result); !s.ok()) return s;
    result.echo = echo_result;
    const std::string dir = internal::MakeTempDir("/tmp/cfx_bench_fix_raw_XXXXXX");
    if (dir.empty()) return absl::UnavailableError("mkdtemp failed");
    absl::StatusOr<nlohmann::json> raw = RawSyncedCommits(dir, 500, 10);
    // The disk's share with this many clients one at a time, each thinking for the echo's
    // round trip between its acks.
    absl::StatusOr<nlohmann::json> group = absl::UnknownError("not run");
    if (raw.ok()) {
      group = GroupFlushClients(dir, std::max(1, options.bench.sessions), 4000,
                                echo_result.one_at_a_time.p50_us);
    }
    // The echo acceptor again, each order made durable on that disk before its answer.
    absl::Status durable = absl::OkStatus();
    FixBenchResult durable_result;
    if (raw.ok() && group.ok()) {
      auto flusher = GroupFlusher::Open(dir);
      durable = flusher.status();
      if (flusher.ok()) {
        FixBenchOptions durable_echo = echo;
        durable_echo.before_echo = [f = flusher->get()] { f->MakeDurable(); };
        durable = RunFixBench(durable_echo, &durable_result);
        if (durable.ok() && (*flusher)->error() != 0) {
          durable = absl::UnavailableError(
              absl::StrCat(dir, ": durable echo's flush: ", std::strerror((*flusher)->error())));
        }
      }
    }
    internal::RemoveDirQuietly(dir);
    if (!raw.ok()) return raw.status();
    if (!group.ok()) return group.status();
    if (!durable.ok()) return durable;
    result.raw_commit = *raw;
    result.group_flush = *group;
    result.durable_echo = durable_result;
  }
  return result;
}

void PrintFixServeBench(const FixServeBenchResult& r, std::ostream& out) {
  const FixServeBenchOptions& o = r.options;
  for (const auto& [name, p] : {std::pair{"one-at-a-time", r.phases.one_at_a_time},
                                std::pair{"pipelined", r.phases.pipelined}}) {
    out << absl::StrFormat(
        "%s, %s: %d orders in %.3f s, %.0f orders/s, p50 %.1f us, p99 %.1f us, p99.9 %.1f us\n",
        NamesOf(o.server).text, name, p.orders, p.seconds, p.orders_per_sec, p.p50_us, p.p99_us,
        p.p999_us);
  }
  nlohmann::json core;
  if (r.core) {
    core = {{"inputs", r.core->inputs},
            {"batches", r.core->batches},
            {"max_batch", r.core->max_batch},
            {"matched_on_sequencer", r.core->matched_on_sequencer}};
  }
  // Where an order's time went inside the core, per phase (offer -> ack delivered).
  for (const auto& [phase, stages] : r.stages) {
    out << "core stages, " << phase << " (p50 / p99 us):";
    for (int i = 0; i < journal::kStages; ++i) {
      const journal::LatencyCounts& c = stages.stage[i];
      out << absl::StrFormat(" %s %.0f / %.0f", journal::StageName(static_cast<journal::Stage>(i)),
                             c.PercentileNs(0.5) / 1e3, c.PercentileNs(0.99) / 1e3);
    }
    out << "\n";
    core["stages"][phase] = internal::StagesJson(stages);
  }
  nlohmann::json j = {{"bench", "fix"},
                      {"mode", NamesOf(o.server).mode},
                      {"synced", o.server == FixBenchServer::kServe && !o.no_sync},
                      {"publisher_thread", o.publisher_thread},
                      {"matcher_thread_only", o.matcher_thread_only},
                      {"quickfix_file_store", o.quickfix_file_store},
                      {"commit_log", o.commit_log},
                      {"load", o.bench.cross ? "cross" : "rest"},
                      {"core", core},
                      {"sessions", o.bench.sessions},
                      {"orders_per_sec", r.phases.pipelined.orders_per_sec},
                      {"p50_us", r.phases.one_at_a_time.p50_us},
                      {"p99_us", r.phases.one_at_a_time.p99_us},
                      {"p999_us", r.phases.one_at_a_time.p999_us},
                      {"one_at_a_time", PhaseJson(r.phases.one_at_a_time)},
                      {"pipelined", PhaseJson(r.phases.pipelined)}};
  if (r.echo && r.raw_commit) {
    const FixBenchResult& e = *r.echo;
    const double commit_p99 = (*r.raw_commit)["p99_us"].get<double>();
    out << absl::StrFormat(
        "yardstick, same run: echo pipelined %.0f orders/s (cfx %.2f x), echo one-at-a-time p99 "
        "%.1f us + one raw synced commit's p99 %.1f us = %.1f us (cfx %.2f x)\n",
        e.pipelined.orders_per_sec, r.phases.pipelined.orders_per_sec / e.pipelined.orders_per_sec,
        e.one_at_a_time.p99_us, commit_p99, e.one_at_a_time.p99_us + commit_p99,
        r.phases.one_at_a_time.p99_us / (e.one_at_a_time.p99_us + commit_p99));
    j["yardstick_echo"] = {{"one_at_a_time", PhaseJson(e.one_at_a_time)},
                           {"pipelined", PhaseJson(e.pipelined)}};
    j["yardstick_raw_commit_10"] = *r.raw_commit;
    j["ratio_pipelined_to_echo"] = r.phases.pipelined.orders_per_sec / e.pipelined.orders_per_sec;
    j["ratio_p99_to_echo_p99_plus_raw_commit_p99"] =
        r.phases.one_at_a_time.p99_us / (e.one_at_a_time.p99_us + commit_p99);
    if (r.group_flush) {
      const double group_p99 = (*r.group_flush)["p99_us"].get<double>();
      const double yardstick = e.one_at_a_time.p99_us + commit_p99;
      out << absl::StrFormat(
          "the disk alone, same run: %d clients one at a time (each waiting %.0f us, the echo's "
          "p50, between acks), every ack after a group flush: p50 %.1f us, p99 %.1f us; echo "
          "p99 + that p99 = %.1f us (%.2f x the yardstick above)\n",
          (*r.group_flush)["clients"].get<int>(), (*r.group_flush)["think_us"].get<double>(),
          (*r.group_flush)["p50_us"].get<double>(), group_p99, e.one_at_a_time.p99_us + group_p99,
          (e.one_at_a_time.p99_us + group_p99) / yardstick);
      j["yardstick_group_flush"] = *r.group_flush;
      j["ratio_echo_p99_plus_group_flush_p99_to_yardstick"] =
          (e.one_at_a_time.p99_us + group_p99) / yardstick;
    }
    if (r.durable_echo) {
      const FixBenchResult& d = *r.durable_echo;
      const double yardstick = e.one_at_a_time.p99_us + commit_p99;
      out << absl::StrFormat(
          "the durable echo, same run (the echo acceptor flushing the disk before each answer): "
          "one-at-a-time p50 %.1f us, p99 %.1f us (%.2f x the yardstick above; cfx %.2f x "
          "it), pipelined %.0f orders/s (cfx %.2f x)\n",
          d.one_at_a_time.p50_us, d.one_at_a_time.p99_us, d.one_at_a_time.p99_us / yardstick,
          r.phases.one_at_a_time.p99_us / d.one_at_a_time.p99_us, d.pipelined.orders_per_sec,
          r.phases.pipelined.orders_per_sec / d.pipelined.orders_per_sec);
      j["yardstick_durable_echo"] = {{"one_at_a_time", PhaseJson(d.one_at_a_time)},
                                     {"pipelined", PhaseJson(d.pipelined)}};
      j["ratio_durable_echo_p99_to_yardstick"] = d.one_at_a_time.p99_us / yardstick;
      j["ratio_p99_to_durable_echo_p99"] = r.phases.one_at_a_time.p99_us / d.one_at_a_time.p99_us;
      j["ratio_pipelined_to_durable_echo"] =
          r.phases.pipelined.orders_per_sec / d.pipelined.orders_per_sec;
    }
    if (r.raw_publish) {
      const double publish_p99 = (*r.raw_publish)["p99_us"].get<double>();
      out << absl::StrFormat(
          "replicated: + one raw JetStream publish-ack's p99 %.1f us = %.1f us (cfx %.2f x)\n",
          publish_p99, e.one_at_a_time.p99_us + commit_p99 + publish_p99,
          r.phases.one_at_a_time.p99_us / (e.one_at_a_time.p99_us + commit_p99 + publish_p99));
      j["ratio_p99_to_echo_p99_plus_raw_commit_plus_raw_publish_p99"] =
          r.phases.one_at_a_time.p99_us / (e.one_at_a_time.p99_us + commit_p99 + publish_p99);
    }
  }
  if (r.unreplicated) {
    const FixBenchResult& u = *r.unreplicated;
    out << absl::StrFormat(
        "unreplicated, same run: pipelined %.0f orders/s (replicated %.2f x), one-at-a-time p99 "
        "%.1f us\n",
        u.pipelined.orders_per_sec, r.phases.pipelined.orders_per_sec / u.pipelined.orders_per_sec,
        u.one_at_a_time.p99_us);
    j["replicated"] = true;
    j["unreplicated"] = {{"one_at_a_time", PhaseJson(u.one_at_a_time)},
                         {"pipelined", PhaseJson(u.pipelined)}};
    j["ratio_pipelined_to_unreplicated"] =
        r.phases.pipelined.orders_per_sec / u.pipelined.orders_per_sec;
  }
  if (r.raw_publish) j["yardstick_raw_jetstream_publish"] = *r.raw_publish;
  out << j.dump() << std::endl;
}

}  // namespace cfx::perf
