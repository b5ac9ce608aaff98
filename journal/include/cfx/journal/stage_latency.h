// Where a lone input's time goes, stage by stage (PipelineOptions::trace_stages): each
// input's offer, pick-up by the sequencer, release as durable, start and end of its apply
// and the delivery of its ack are read from one steady clock, and each stage's duration
// goes into a log-linear histogram (eight buckets per power of two: within 9%) that the
// delivering thread alone writes and anyone reads (relaxed). Two readings subtract, so a
// bench can take a phase's own figures.
//
//   PipelineStats before = pipeline.stats();
//   ... run a phase ...
//   StageLatencies phase = pipeline.stats().stages - before.stages;
//   double p99_us = phase.of(Stage::kJournal).PercentileNs(0.99) / 1e3;
#ifndef CFX_JOURNAL_STAGE_LATENCY_H_
#define CFX_JOURNAL_STAGE_LATENCY_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace cfx::journal {

enum class Stage : int {
  kQueued = 0,  // TryOffer -> the sequencer takes it (its wake-up, the batch before)
  kJournal,     // taken -> released to the matcher as durable (encode, commit, sync)
  kToMatcher,   // released -> the matcher starts applying it (its wake-up, inputs before)
  kApply,       // the matcher's apply of the input (engine, risk, outcomes built)
  kDeliver,     // applied -> its ack delivered (the listener's work on its outcomes, and
                // on the outcomes delivered before them in the same burst)
  kTotal,       // TryOffer -> ack delivered
  // Per call, not per input (the sequencer writes these):
  kCommitCall,  // one Journal::AppendBatch (a group commit: its pages written and flushed)
  kSyncCall,    // one Journal::Sync (the flush that makes a held commit durable)
};
inline constexpr int kStages = 8;

inline int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Counts of durations by bucket; a plain value (copy, subtract, read percentiles).
struct LatencyCounts {
  static constexpr int kSubBits = 3;  // 8 buckets per power of two
  static constexpr int kBuckets = 64 << kSubBits;
  std::array<uint64_t, kBuckets> n{};

  static int BucketOf(int64_t ns) {
    if (ns < (1 << kSubBits)) return ns < 0 ? 0 : static_cast<int>(ns);
    const uint64_t v = static_cast<uint64_t>(ns);
    const int top = 63 - __builtin_clzll(v);  // >= kSubBits
    const int sub = static_cast<int>((v >> (top - kSubBits)) & ((1 << kSubBits) - 1));
    return ((top - kSubBits + 1) << kSubBits) + sub;
  }
  // The bucket's middle, in ns.
  static double MidNs(int bucket) {
    if (bucket < (1 << kSubBits)) return bucket;
    const int top = (bucket >> kSubBits) + kSubBits - 1;
    const int sub = bucket & ((1 << kSubBits) - 1);
    const double lo = static_cast<double>((uint64_t{1} << top) +
                                          (static_cast<uint64_t>(sub) << (top - kSubBits)));
    return lo + static_cast<double>(uint64_t{1} << (top - kSubBits)) / 2;
  }
  uint64_t count() const {
    uint64_t c = 0;
    for (uint64_t x : n) c += x;
    return c;
  }
  // The q-quantile (0 < q <= 1), the middle of its bucket; 0 when empty.
  double PercentileNs(double q) const {
    const uint64_t total = count();
    if (total == 0) return 0;
    const double want = q * static_cast<double>(total);
    uint64_t seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
      seen += n[b];
      if (static_cast<double>(seen) >= want) return MidNs(b);
    }
    return MidNs(kBuckets - 1);
  }
};

struct StageLatencies {
  std::array<LatencyCounts, kStages> stage{};
  const LatencyCounts& of(Stage s) const { return stage[static_cast<int>(s)]; }
  // REQUIRES: `before` is an earlier reading of the same histograms.
  StageLatencies operator-(const StageLatencies& before) const {
    StageLatencies d = *this;
    for (int s = 0; s < kStages; ++s) {
      for (int b = 0; b < LatencyCounts::kBuckets; ++b) d.stage[s].n[b] -= before.stage[s].n[b];
    }
    return d;
  }
};

// The live histograms: one writer a stage (Add), any number of readers (Get).
class StageHistograms {
 public:
  void Add(Stage s, int64_t ns) {
    std::atomic<uint64_t>& c = counts_[static_cast<int>(s)][LatencyCounts::BucketOf(ns)];
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  StageLatencies Get() const {
    StageLatencies out;
    for (int s = 0; s < kStages; ++s) {
      for (int b = 0; b < LatencyCounts::kBuckets; ++b) {
        out.stage[s].n[b] = counts_[s][b].load(std::memory_order_relaxed);
      }
    }
    return out;
  }

 private:
  std::array<std::array<std::atomic<uint64_t>, LatencyCounts::kBuckets>, kStages> counts_{};
};

inline const char* StageName(Stage s) {
  switch (s) {
    case Stage::kQueued: return "queued";
    case Stage::kJournal: return "journal";
    case Stage::kToMatcher: return "to_matcher";
    case Stage::kApply: return "apply";
    case Stage::kDeliver: return "deliver";
    case Stage::kTotal: return "total";
    case Stage::kCommitCall: return "commit_call";
    case Stage::kSyncCall: return "sync_call";
  }
  return "?";
}

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_STAGE_LATENCY_H_
