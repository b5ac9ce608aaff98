// The leadership lease: one key in a JetStream key-value bucket whose entries expire
// `lease_ttl_ms` after their last write. Whoever creates the key leads; the leader renews it
// by revision (compare-and-set), so a renewal fails once anyone else has taken it. The
// revision a leader holds is its fencing token (docs/replication.md, "Leadership").
//
//   auto lease = Lease::Open(options);
//   absl::StatusOr<uint64_t> rev = (*lease)->TryAcquire();   // FailedPrecondition: held
//   ... every ttl / 3: rev = (*lease)->Renew(*rev);           // error: leadership lost
#ifndef CFX_REPLICATION_LEASE_H_
#define CFX_REPLICATION_LEASE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cfx/replication/nats_options.h"

namespace cfx::replication {

class NatsConnection;

// Thread safety: one thread at a time.
class Lease {
 public:
  // Connects and makes sure the bucket exists (TTL lease_ttl_ms, `replicas` copies).
  static absl::StatusOr<std::unique_ptr<Lease>> Open(const NatsOptions& options);
  ~Lease();

  // Takes the lease if nobody holds it (never held, released, or lapsed). Returns its
  // revision. FailedPrecondition: someone holds it (the message names the holder).
  absl::StatusOr<uint64_t> TryAcquire();
  // Extends a lease held at `revision`; returns the new revision. FailedPrecondition: the
  // lease is no longer this holder's (lapsed and taken, or deleted); other errors: NATS
  // could not confirm (treat as lost once the TTL runs out). A renewal of this Lease's that
  // was applied but whose answer was lost (the revision moved, the value is this Lease's
  // own) is no loss: it renews from the newer revision.
  absl::StatusOr<uint64_t> Renew(uint64_t revision);
  // Gives the lease up (best effort), so a standby need not wait for the TTL. Deletes the
  // key only while `revision` is still its last write (a delete conditional on it): a
  // holder whose lease lapsed and was taken meanwhile never deletes the next holder's key.
  // OK when the lease was no longer this revision's.
  absl::Status Release(uint64_t revision);
  // Who holds it now (its node id; "" when nobody), and at which revision.
  absl::StatusOr<std::pair<std::string, uint64_t>> Holder();

  const NatsOptions& options() const { return options_; }

 private:
  Lease(const NatsOptions& options, std::unique_ptr<NatsConnection> conn);
  // The key's value as written (the holder's token) and its revision.
  absl::StatusOr<std::pair<std::string, uint64_t>> HolderValue();
  const NatsOptions options_;
  const std::string token_;  // node id + '|' + a number drawn for this Lease
  std::unique_ptr<NatsConnection> conn_;
  struct Bucket;
  std::unique_ptr<Bucket> kv_;
};

}  // namespace cfx::replication

#endif  // CFX_REPLICATION_LEASE_H_
