#include "cfx/replication/lease.h"

#include <chrono>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "nats_connection.h"

namespace cfx::replication {
namespace {

constexpr char kKey[] = "leader";

// What a holder writes: its node id, then '|' and a number drawn for this Lease, so that a
// renewal of its own that NATS applied but whose answer was lost is told from another
// process with the same node id (a restart, a misconfigured twin).
std::string NewToken(const std::string& node_id) {
  std::random_device rd;
  const uint64_t nonce = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return absl::StrCat(node_id, "|", absl::Hex(nonce, absl::kZeroPad16));
}

// The node id of a value NewToken wrote (a value without '|' is a node id alone).
std::string NodeOf(const std::string& value) {
  const size_t bar = value.rfind('|');
  return bar == std::string::npos ? value : value.substr(0, bar);
}

}  // namespace

struct Lease::Bucket {
  kvStore* kv = nullptr;
  ~Bucket() {
    if (kv != nullptr) kvStore_Destroy(kv);
  }
};

Lease::Lease(const NatsOptions& options, std::unique_ptr<NatsConnection> conn)
    : options_(options),
      token_(NewToken(options.node_id)),
      conn_(std::move(conn)),
      kv_(std::make_unique<Bucket>()) {}

Lease::~Lease() = default;

absl::StatusOr<std::unique_ptr<Lease>> Lease::Open(const NatsOptions& options) {
  if (options.node_id.empty()) return absl::InvalidArgumentError("lease: node_id is empty");
  auto conn = NatsConnection::Connect(options);
  if (!conn.ok()) return conn.status();
  std::unique_ptr<Lease> lease(new Lease(options, std::move(*conn)));
  // Retried like JetStreamLog::Open: a replicated bucket is created once all agree.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::microseconds(kOpenRetryUs);
  for (;;) {
    natsStatus s = js_KeyValue(&lease->kv_->kv, lease->conn_->js(), options.lease_bucket.c_str());
    if (s == NATS_NOT_FOUND) {
      kvConfig cfg;
      kvConfig_Init(&cfg);
      cfg.Bucket = options.lease_bucket.c_str();
      cfg.History = 1;
      cfg.TTL = options.lease_ttl_ms * 1000000;  // libnats takes nanoseconds
      cfg.Replicas = options.replicas;
      cfg.StorageType = js_FileStorage;
      s = js_CreateKeyValue(&lease->kv_->kv, lease->conn_->js(), &cfg);
    }
    if (s == NATS_OK) return lease;
    absl::Status err = NatsError(absl::StrCat("lease bucket ", options.lease_bucket), s);
    if (!(absl::IsDeadlineExceeded(err) || absl::IsUnavailable(err)) ||
        std::chrono::steady_clock::now() > give_up) {
      return err;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

absl::StatusOr<uint64_t> Lease::TryAcquire() {
  uint64_t rev = 0;
  natsStatus s = kvStore_CreateString(&rev, kv_->kv, kKey, token_.c_str());
  if (s == NATS_OK) return rev;
  absl::Status err = NatsError("acquire the lease", s);
  // Create fails on an existing key with "wrong last sequence": held by someone.
  auto holder = HolderValue();
  if (holder.ok() && holder->first == token_) {
    // A create NATS applied but whose answer timed out: the lease is this Lease's. Renewed
    // from its revision, so that the term runs from a write made now. Until 2026-12-07 it
    // answered "held by" itself, and nobody led until the key lapsed (a review).
    s = kvStore_UpdateString(&rev, kv_->kv, kKey, token_.c_str(), holder->second);
    if (s == NATS_OK) return rev;
    err = NatsError("acquire the lease", s);
    holder = HolderValue();
  }
  if (holder.ok() && holder->first.empty()) {
    // Free (released or lapsed), yet the create was refused: the client library's read of
    // the key before its retry can be answered by a replica that has not seen the delete
    // yet. Tried once more after a moment, rather than a whole period later (a clean-clone
    // run refused a create right after a release this way).
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s = kvStore_CreateString(&rev, kv_->kv, kKey, token_.c_str());
    if (s == NATS_OK) return rev;
    err = NatsError("acquire the lease", s);
    holder = HolderValue();
  }
  if (holder.ok() && !holder->first.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("lease held by ", NodeOf(holder->first), " at revision ", holder->second));
  }
  return err;
}

absl::StatusOr<uint64_t> Lease::Renew(uint64_t revision) {
  uint64_t rev = 0;
  natsStatus s = kvStore_UpdateString(&rev, kv_->kv, kKey, token_.c_str(), revision);
  if (s == NATS_OK) return rev;
  absl::Status err = NatsError("renew the lease", s);
  auto holder = HolderValue();
  if (holder.ok() && holder->second != revision && holder->first == token_) {
    // A renewal of this Lease's that NATS applied but whose answer timed out moved the
    // revision: still ours. Renewed again from it, so the term runs from a write made now
    // (until 2026-12-07 the leader took this for a lost lease and stopped).
    s = kvStore_UpdateString(&rev, kv_->kv, kKey, token_.c_str(), holder->second);
    if (s == NATS_OK) return rev;
    err = NatsError("renew the lease", s);
    holder = HolderValue();
  }
  if (holder.ok() && holder->second != revision) {
    if (holder->first.empty()) {
      // Lapsed and not taken since (or taken and lapsed again): free, but not ours.
      return absl::FailedPreconditionError("lease lost: it lapsed and nobody holds it now");
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "lease lost: now held by '", NodeOf(holder->first), "' at revision ", holder->second));
  }
  return err;
}

absl::Status Lease::Release(uint64_t revision) {
  // What kvStore_Delete publishes (a message with a KV-Operation: DEL header on the key's
  // subject), with the stream's check that the key's last write is still `revision`. Until
  // 2026-12-07 the key was read and then deleted unconditionally: a lease that lapsed and
  // was taken between the read and the delete lost its new holder's key (a review).
  natsMsg* msg = nullptr;
  const std::string subject = absl::StrCat("$KV.", options_.lease_bucket, ".", kKey);
  natsStatus s = natsMsg_Create(&msg, subject.c_str(), nullptr, nullptr, 0);
  if (s == NATS_OK) s = natsMsgHeader_Set(msg, "KV-Operation", "DEL");
  if (s != NATS_OK) {
    natsMsg_Destroy(msg);
    return NatsError("release the lease", s);
  }
  jsPubOptions opts;
  jsPubOptions_Init(&opts);
  opts.ExpectLastSubjectSeq = revision;
  jsPubAck* ack = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  s = js_PublishMsg(&ack, conn_->js(), msg, &opts, &code);
  jsPubAck_Destroy(ack);
  natsMsg_Destroy(msg);
  if (s == NATS_OK) return absl::OkStatus();
  if (code == JSStreamWrongLastSequenceErr) return absl::OkStatus();  // no longer ours
  return NatsError("release the lease", s);
}

absl::StatusOr<std::pair<std::string, uint64_t>> Lease::Holder() {
  auto h = HolderValue();
  if (h.ok()) h->first = NodeOf(h->first);
  return h;
}

absl::StatusOr<std::pair<std::string, uint64_t>> Lease::HolderValue() {
  kvEntry* e = nullptr;
  natsStatus s = kvStore_Get(&e, kv_->kv, kKey);
  if (s == NATS_NOT_FOUND) return std::make_pair(std::string(), uint64_t{0});
  if (s != NATS_OK) return NatsError("read the lease", s);
  std::pair<std::string, uint64_t> h;
  if (kvEntry_Operation(e) == kvOp_Put) {
    h.first.assign(static_cast<const char*>(kvEntry_Value(e)),
                   static_cast<size_t>(kvEntry_ValueLen(e)));
  }
  h.second = kvEntry_Revision(e);
  kvEntry_Destroy(e);
  return h;
}

}  // namespace cfx::replication
