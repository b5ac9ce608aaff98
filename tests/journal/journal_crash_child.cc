// Test helper for crash_test.cc: runs the journaled pipeline with the counter machine
// under load and reports on standard output, one line per write(2) (atomic on a pipe, so a
// kill -9 never leaves half a line):
//   "R <next_seq> <state_hash>\n"  once, after recovery
//   "A <id>\n"                      for every acknowledged input, after its ack
//   "E <message>\n"                 recovery failed (exit 2)
// Usage: journal_crash_child DATA_DIR ROUND [log]   (runs until killed; `log`: with the
// journal's commit log)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "cfx/journal/counter_machine.h"
#include "cfx/journal/pipeline.h"

namespace {

using cfx::journal::CounterCommand;
using cfx::journal::CounterOutcome;

void WriteLine(const std::string& line) {
  // A short write to a pipe is all or nothing; the parent may have stopped reading.
  (void)!write(STDOUT_FILENO, line.data(), line.size());
}

class AckPrinter : public cfx::journal::PipelineListener<CounterOutcome> {
 public:
  void OnOutcome(uint64_t, uint64_t, const CounterOutcome&) override {}
  void OnAck(uint64_t, uint64_t tag, int64_t) override {
    WriteLine("A " + std::to_string(tag) + "\n");
  }
  void OnJournalError(const absl::Status& status) override {
    WriteLine("E " + std::string(status.message()) + "\n");
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && !(argc == 4 && std::string(argv[3]) == "log")) {
    std::fprintf(stderr, "usage: %s DATA_DIR ROUND [log]\n", argv[0]);
    return 1;
  }
  const uint64_t round = std::strtoull(argv[2], nullptr, 10);
  auto journal = cfx::journal::Journal::Open({.data_dir = argv[1],
                                              .keep_snapshots = 2,
                                              .defer_commit_sync = true,
                                              .commit_log = argc == 4,
                                              // Every batch through the log, however large
                                              // a slow (sanitized) run's batches grow: the
                                              // kills then land on inputs only it holds.
                                              .commit_log_max_batch_bytes = 64 << 20});
  if (!journal.ok()) {
    WriteLine("E " + std::string(journal.status().message()) + "\n");
    return 2;
  }
  cfx::journal::CounterCodec codec;
  cfx::journal::CounterMachine machine;
  AckPrinter printer;
  cfx::journal::Pipeline<CounterCommand, CounterOutcome> pipeline(
      {.input_capacity = 4096, .max_batch = 1024, .snapshot_every = 3000}, journal->get(),
      &codec, &machine, &printer);
  auto recovered = pipeline.Start();
  if (!recovered.ok()) {
    WriteLine("E " + std::string(recovered.status().message()) + "\n");
    return 2;
  }
  WriteLine("R " + std::to_string(recovered->next_seq) + " " +
            std::to_string(machine.StateHash()) + "\n");

  // Ids are unique across rounds: round in the high bits.
  std::mt19937_64 rng(round);
  for (uint64_t i = 0;; ++i) {
    const uint64_t id = (round << 32) | i;
    CounterCommand command{id, rng() % 500, static_cast<int64_t>(rng() % 21) - 10};
    while (pipeline.TryOffer(id, command) == cfx::journal::OfferResult::kFull) {
      std::this_thread::yield();
    }
    if (i % 64 == 63) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}
