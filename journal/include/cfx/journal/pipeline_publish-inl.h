// The pipeline's last two threads, out of the class: the publisher, which hands each
// output to the listener in seq order (Delivery), and the snapshot writer, which stores the
// matcher's snapshots off the matcher's path. Included by pipeline.h only.
#ifndef CFX_JOURNAL_PIPELINE_PUBLISH_INL_H_
#define CFX_JOURNAL_PIPELINE_PUBLISH_INL_H_

#include "cfx/journal/pipeline.h"

namespace cfx::journal {

template <typename Command, typename Outcome>
void Pipeline<Command, Outcome>::RunPublisher() {
  ParkingIdle idle(&publisher_wake_);
  auto on_empty = [&] { delivery_.OnEmpty(); };
  while (const Output* out = FrontOrDone(output_, matcher_done_, idle, on_empty)) {
    if (const Output* ahead = output_.PeekAhead(kOutputPrefetchAhead)) {
      __builtin_prefetch(ahead);
    }
    delivery_.One(*out);
    output_.PopFront();
  }
  on_empty();
}

template <typename Command, typename Outcome>
void Pipeline<Command, Outcome>::RunSnapshotter() {
  SnapshotJob job;
  ParkingIdle idle(&snapshot_wake_);
  while (PopOrDone(snapshot_jobs_, matcher_done_, idle, job, [] {})) {
    // A failed snapshot costs recovery time, not correctness: the journal has it all.
    if (journal_->WriteSnapshot(job.seq, job.state).ok()) {
      snapshots_written_.fetch_add(1, std::memory_order_relaxed);
    } else {
      snapshots_dropped_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_PIPELINE_PUBLISH_INL_H_
