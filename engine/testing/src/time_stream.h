// The bench drivers' timing loop (internal to cfx_engine_testing): the Engine's and the
// book's drivers (workload.cc) and the memory floor (memory_floor.cc) are timed the same way.
#ifndef CFX_ENGINE_TESTING_TIME_STREAM_H_
#define CFX_ENGINE_TESTING_TIME_STREAM_H_

#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "cfx/engine/engine.h"
#include "cfx/engine/workload.h"

namespace cfx::engine::internal {

// How far ahead a driver with Ahead() is told of the inputs to come: Engine::kPrefetchAhead,
// which journal::Pipeline's matcher thread uses too, so the bench times what `cfx serve` does.
constexpr size_t kAhead = Engine::kPrefetchAhead;

// Calls d.Ahead(inputs[i + kAhead]) when the driver has it and that input exists, and brings
// in the input twice as far ahead, for Ahead to read. The stream of commands (0.26 KB each,
// 0.8 GB for 3 M) is the bench's, not the engine's: in `cfx serve` a command is read from a
// ring slot the sequencer has just written, which the pipeline's matcher brings in ahead the
// same way (journal::Pipeline). Without this a third of the Engine path's time was the
// stream's cache misses (docs/performance.md, "one hash a name").
template <typename Driver, typename Input>
void TellAhead(const Driver& d, const std::vector<Input>& inputs, size_t i) {
  if constexpr (requires(const Driver& x, const Input& in) { x.Ahead(in); }) {
    if (i + 2 * kAhead < inputs.size()) {
      const char* next = reinterpret_cast<const char*>(&inputs[i + 2 * kAhead]);
      for (size_t off = 0; off < sizeof(Input); off += 64) __builtin_prefetch(next + off);
      __builtin_prefetch(next + sizeof(Input) - 1);
    }
    if (i + kAhead < inputs.size()) d.Ahead(inputs[i + kAhead]);
  }
}

// Times `inputs` through fresh drivers from `make()` (a std::unique_ptr<Driver>), one at a
// time as each is freed before the next is made: pass 1 times the whole batch and hands its
// driver to `pass1_done`; pass 2 times each input with rdtsc, calibrated against
// steady_clock over the pass. Driver: Apply(input), trades(), resting(), and optionally
// Ahead(input) (a prefetch hint, see TellAhead).
template <typename Input, typename Make, typename Done>
BenchFigures TimeStream(const std::vector<Input>& inputs, Make make, Done pass1_done) {
  BenchFigures f;
  using Clock = std::chrono::steady_clock;
  {
    auto first = make();
    auto t0 = Clock::now();
    for (size_t i = 0; i < inputs.size(); ++i) {
      TellAhead(*first, inputs, i);
      first->Apply(inputs[i]);
    }
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    f.ns_per_order = ns / static_cast<double>(inputs.size());
    f.orders_per_sec = 1e9 / f.ns_per_order;
    f.trades = first->trades();
    f.resting_at_end = first->resting();
    pass1_done(*first);
  }
  {
    auto second = make();
    std::vector<uint64_t> ticks(inputs.size());
    auto t0 = Clock::now();
    uint64_t c0 = __rdtsc();
    for (size_t i = 0; i < inputs.size(); ++i) {
      uint64_t a = __rdtsc();
      TellAhead(*second, inputs, i);
      second->Apply(inputs[i]);
      ticks[i] = __rdtsc() - a;
    }
    uint64_t c1 = __rdtsc();
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    double ns_per_tick = ns / static_cast<double>(c1 - c0);
    auto pct = [&](double p) {
      size_t k = std::min(ticks.size() - 1, static_cast<size_t>(p * ticks.size()));
      std::nth_element(ticks.begin(), ticks.begin() + k, ticks.end());
      return static_cast<double>(ticks[k]) * ns_per_tick;
    };
    if (!ticks.empty()) {
      f.p50_ns = pct(0.50);
      f.p99_ns = pct(0.99);
      f.p999_ns = pct(0.999);
    }
  }
  return f;
}

}  // namespace cfx::engine::internal

#endif  // CFX_ENGINE_TESTING_TIME_STREAM_H_
