// Whole path: a random order flow is sequenced into the LMDB journal (through the journal
// codec), a snapshot is taken part way, and recovery (snapshot + journal tail) must give the
// engine the exact state hash of the engine that applied the flow live; a second recovery
// from record 1 (snapshot ignored) must give it too. Replay is deterministic or this fails.
#include <fuzzer/FuzzedDataProvider.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/engine_matcher.h"
#include "cfx/journal/journal.h"
#include "cfx/journal/matcher_state_machine.h"
#include "cfx/journal/recovery.h"
#include "command_gen.h"

namespace {

using cfx::exchange::EngineCodec;
using cfx::exchange::EngineMatcher;
using cfx::exchange::MatcherOptions;
using cfx::exchange::Outcome;

struct NullSink : cfx::journal::OutcomeSink<Outcome> {
  void Emit(const Outcome&) override {}
};

std::string ScratchDir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/cfx_fuzz_flow_XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    if (d == nullptr) abort();
    std::string path = d;
    static std::string to_remove = path;
    ::atexit([] { std::filesystem::remove_all(to_remove); });
    return path;
  }();
  return dir;
}

MatcherOptions Options() {
  MatcherOptions o;
  o.emit_closes = false;
  o.expire_contracts = false;
  o.engine.order_capacity = 64;  // small pools: an engine per input
  o.engine.client_id_capacity = 64;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string dir = ScratchDir() + "/run";
  std::filesystem::remove_all(dir);
  auto journal = cfx::journal::Journal::Open({.data_dir = dir, .unsafe_no_sync = true});
  if (!journal.ok()) abort();
  EngineCodec codec;
  EngineMatcher live(Options());
  NullSink sink;
  cfx::engine::Timestamp clock = 1'800'000'000'000'000'000;
  const size_t snapshot_at = in.ConsumeIntegralInRange<size_t>(0, 64);
  uint64_t seq = 0;
  std::string bytes;
  for (size_t i = 0; i < 256 && in.remaining_bytes() > 0; ++i) {
    const cfx::engine::Command command = cfx::fuzz::NextCommand(in, &clock);
    bytes.clear();
    cfx::journal::EncodeInput(0, codec, command, &bytes);
    cfx::engine::Command decoded;
    // Every command round-trips (the journal payload: its stamp, then the command).
    const absl::string_view encoded =
        absl::string_view(bytes).substr(cfx::journal::kInputStampSize);
    if (!codec.Decode(encoded, &decoded).ok()) abort();
    const absl::string_view payload(bytes);
    auto last = (*journal)->AppendBatch(absl::MakeConstSpan(&payload, 1));  // no sync: cheap
    if (!last.ok()) abort();
    seq = *last;
    live.Apply(seq, decoded, sink);
    if (i == snapshot_at && !(*journal)->WriteSnapshot(seq, live.Snapshot()).ok()) abort();
  }
  const uint64_t want = live.engine().StateHash();
  {  // snapshot + tail, as `cfx serve` restarts
    EngineMatcher recovered(Options());
    cfx::journal::MatcherStateMachine<cfx::engine::Command, Outcome> machine(&codec, &recovered);
    auto r = cfx::journal::Recover(**journal, machine);
    if (!r.ok()) abort();
    if (r->next_seq != seq + 1) abort();
    if (recovered.engine().StateHash() != want) abort();  // recovery != live
  }
  {  // every record from 1, as `cfx replay` of the journal would
    EngineMatcher replayed(Options());
    cfx::engine::Command c;
    absl::Status read = (*journal)->ReadFrom(1, [&](uint64_t s, absl::string_view p) {
      int64_t time_us = 0;
      if (!cfx::journal::DecodeInput(p, codec, &time_us, &c).ok()) abort();
      replayed.ApplyAt(s, time_us, c, sink);
      return true;
    });
    if (!read.ok()) abort();
    if (replayed.engine().StateHash() != want) abort();  // replay != live
  }
  return 0;
}
