#include "cfx/replication/jetstream_log.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "steady_micros.h"
#include "cfx/replication/batch_format.h"
#include "nats_connection.h"

namespace cfx::replication {
namespace {

using internal::SteadyMicros;

// Destroys a libnats object at scope exit.
template <typename T, void (*Destroy)(T*)>
struct Owned {
  T* p = nullptr;
  ~Owned() {
    if (p != nullptr) Destroy(p);
  }
};

}  // namespace

struct JetStreamLog::Subscription {
  natsSubscription* sub = nullptr;
  ~Subscription() {
    if (sub != nullptr) {
      natsSubscription_Unsubscribe(sub);
      natsSubscription_Destroy(sub);
    }
  }
};

JetStreamLog::JetStreamLog(const NatsOptions& options, std::unique_ptr<NatsConnection> conn)
    : options_(options), conn_(std::move(conn)) {}

JetStreamLog::~JetStreamLog() { Unsubscribe(); }

absl::StatusOr<std::unique_ptr<JetStreamLog>> JetStreamLog::Open(const NatsOptions& options) {
  auto conn = NatsConnection::Connect(options);
  if (!conn.ok()) return conn.status();
  std::unique_ptr<JetStreamLog> log(new JetStreamLog(options, std::move(*conn)));
  // Creating a replicated stream waits for its servers to agree, which can take longer than
  // one request's timeout on a cluster that just started or lost a server: retry a while.
  const int64_t give_up = SteadyMicros() + kOpenRetryUs;
  for (;;) {
    absl::Status s = log->EnsureStream();
    if (s.ok()) return log;
    if (!(absl::IsDeadlineExceeded(s) || absl::IsUnavailable(s)) || SteadyMicros() > give_up) {
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

absl::Status JetStreamLog::EnsureStream() {
  Owned<jsStreamInfo, jsStreamInfo_Destroy> si;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&si.p, conn_->js(), options_.stream.c_str(), nullptr, &jerr);
  if (s == NATS_NOT_FOUND) {
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = options_.stream.c_str();
    const char* subjects[1] = {options_.subject.c_str()};
    cfg.Subjects = subjects;
    cfg.SubjectsLen = 1;
    cfg.Storage = js_FileStorage;
    cfg.Replicas = options_.replicas;
    // Two nodes starting at once both create it: the same config twice is not an error.
    s = js_AddStream(&si.p, conn_->js(), &cfg, nullptr, &jerr);
    if (s != NATS_OK) return NatsError(absl::StrCat("create stream ", options_.stream), s, jerr);
  } else if (s != NATS_OK) {
    return NatsError(absl::StrCat("stream info ", options_.stream), s, jerr);
  }
  if (si.p->State.LastSeq != 0) return absl::OkStatus();
  // The genesis marker: after it the stream is never empty, so every real append can name
  // the last sequence it expects. Nodes racing here publish the same message id and the
  // stream keeps one.
  std::string genesis;
  EncodeBatch(1, {}, &genesis);
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MsgId = "cfx-genesis";
  po.MaxWait = options_.timeout_ms;
  Owned<jsPubAck, jsPubAck_Destroy> ack;
  s = js_Publish(&ack.p, conn_->js(), options_.subject.c_str(), genesis.data(),
                 static_cast<int>(genesis.size()), &po, &jerr);
  if (s != NATS_OK) return NatsError("publish the stream's genesis marker", s, jerr);
  return absl::OkStatus();
}

absl::Status JetStreamLog::PeekBatch(uint64_t stream_seq, uint64_t* first_seq,
                                     uint64_t* count) {
  Owned<natsMsg, natsMsg_Destroy> m;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetMsg(&m.p, conn_->js(), options_.stream.c_str(), stream_seq, nullptr, &jerr);
  if (s != NATS_OK) return NatsError(absl::StrCat("get message ", stream_seq), s, jerr);
  BatchView b;
  absl::Status d = DecodeBatch(
      absl::string_view(natsMsg_GetData(m.p), static_cast<size_t>(natsMsg_GetDataLength(m.p))),
      &b);
  if (!d.ok()) return absl::DataLossError(absl::StrCat("stream message ", stream_seq, ": ", d.message()));
  *first_seq = b.first_seq;
  *count = b.payloads.size();
  return absl::OkStatus();
}

void JetStreamLog::Unsubscribe() { sub_.reset(); }

absl::Status JetStreamLog::Position(uint64_t seq) {
  Unsubscribe();
  Owned<jsStreamInfo, jsStreamInfo_Destroy> si;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&si.p, conn_->js(), options_.stream.c_str(), nullptr, &jerr);
  if (s != NATS_OK) return NatsError("stream info", s, jerr);
  uint64_t lo = si.p->State.FirstSeq, hi = si.p->State.LastSeq;
  uint64_t start = lo == 0 ? 1 : lo;
  // The last message whose batch starts at or before `seq`: first_seq grows with the
  // stream sequence, so a binary search over js_GetMsg finds it in log2(messages) requests.
  while (lo != 0 && lo <= hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    uint64_t first = 0, count = 0;
    if (absl::Status p = PeekBatch(mid, &first, &count); !p.ok()) return p;
    if (first <= seq) {
      start = mid;
      lo = mid + 1;
    } else {
      if (mid == 0) break;
      hi = mid - 1;
    }
  }
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Stream = options_.stream.c_str();
  so.Ordered = true;
  so.Config.DeliverPolicy = js_DeliverByStartSequence;
  so.Config.OptStartSeq = start;
  auto sub = std::make_unique<Subscription>();
  s = js_SubscribeSync(&sub->sub, conn_->js(), options_.subject.c_str(), nullptr, &so, &jerr);
  if (s != NATS_OK) return NatsError("subscribe to the stream", s, jerr);
  sub_ = std::move(sub);
  read_next_seq_ = seq;
  return absl::OkStatus();
}

absl::Status JetStreamLog::Read(uint64_t next_seq, int64_t timeout_ms,
                                journal::ReplicatedBatch* out) {
  if (sub_ == nullptr || read_next_seq_ != next_seq) {
    if (absl::Status p = Position(next_seq); !p.ok()) return p;
  }
  const int64_t deadline = SteadyMicros() + timeout_ms * 1000;
  for (;;) {
    const int64_t left_ms = std::max<int64_t>(0, (deadline - SteadyMicros()) / 1000);
    Owned<natsMsg, natsMsg_Destroy> m;
    natsStatus s = natsSubscription_NextMsg(&m.p, sub_->sub, std::max<int64_t>(1, left_ms));
    if (s == NATS_TIMEOUT) {
      // A consumer whose server died stalls until its heartbeats are missed (seconds): when
      // nothing came for a while but the stream has grown, subscribe afresh.
      if (SteadyMicros() - last_delivery_us_ > kStallCheckUs) {
        last_delivery_us_ = SteadyMicros();
        Owned<jsStreamInfo, jsStreamInfo_Destroy> si;
        if (js_GetStreamInfo(&si.p, conn_->js(), options_.stream.c_str(), nullptr, nullptr) ==
                NATS_OK &&
            si.p->State.LastSeq > last_stream_seq_) {
          Unsubscribe();
        }
      }
      return absl::DeadlineExceededError("no new batch in the stream");
    }
    if (s != NATS_OK) {
      Unsubscribe();  // the next Read positions afresh
      return NatsError("read the stream", s);
    }
    Owned<jsMsgMetaData, jsMsgMetaData_Destroy> meta;
    s = natsMsg_GetMetaData(&meta.p, m.p);
    if (s != NATS_OK) {
      Unsubscribe();
      return NatsError("message metadata", s);
    }
    const uint64_t stream_seq = meta.p->Sequence.Stream;
    last_delivery_us_ = SteadyMicros();
    BatchView b;
    absl::Status d = DecodeBatch(
        absl::string_view(natsMsg_GetData(m.p), static_cast<size_t>(natsMsg_GetDataLength(m.p))),
        &b);
    if (!d.ok()) {
      Unsubscribe();
      return absl::DataLossError(absl::StrCat("stream message ", stream_seq, ": ", d.message()));
    }
    last_stream_seq_ = stream_seq;
    const uint64_t end = b.first_seq + b.payloads.size();
    if (b.payloads.empty() && b.first_seq == next_seq && b.checkpoint_seq != 0) {
      out->first_seq = next_seq;  // an idle primary's state hash, on its own
      out->checkpoint = {b.checkpoint_seq, b.checkpoint_hash};
      out->payloads.clear();
      return absl::OkStatus();
    }
    if (end <= next_seq) continue;  // the genesis marker, or inputs this node already has
    if (b.first_seq > next_seq) {
      Unsubscribe();
      return absl::DataLossError(absl::StrCat("stream message ", stream_seq, " starts at input ",
                                              b.first_seq, ", but input ", next_seq,
                                              " is missing"));
    }
    out->first_seq = next_seq;
    out->checkpoint = {b.checkpoint_seq, b.checkpoint_hash};
    out->payloads.clear();
    for (size_t i = next_seq - b.first_seq; i < b.payloads.size(); ++i) {
      out->payloads.emplace_back(b.payloads[i]);
    }
    read_next_seq_ = end;
    return absl::OkStatus();
  }
}

absl::StatusOr<uint64_t> JetStreamLog::EndSeq() {
  Owned<jsStreamInfo, jsStreamInfo_Destroy> si;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&si.p, conn_->js(), options_.stream.c_str(), nullptr, &jerr);
  if (s != NATS_OK) return NatsError("stream info", s, jerr);
  const uint64_t last = si.p->State.LastSeq;
  if (last == 0) return uint64_t{1};
  uint64_t first = 0, count = 0;
  if (absl::Status p = PeekBatch(last, &first, &count); !p.ok()) return p;
  const uint64_t end = first + count;
  // This reader has every input up to the stream's end: it may append after `last`.
  if (end == read_next_seq_) last_stream_seq_ = last;
  return end;
}

absl::Status JetStreamLog::Append(uint64_t first_seq,
                                  absl::Span<const absl::string_view> payloads,
                                  const journal::StateCheckpoint& checkpoint) {
  if (SteadyMicros() > leader_deadline_us_.load(std::memory_order_acquire)) {
    return absl::FailedPreconditionError("replication: the leadership lease lapsed");
  }
  if (last_stream_seq_ == 0 || first_seq != read_next_seq_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replication: append of input ", first_seq, " before reading the stream to its end"));
  }
  Unsubscribe();  // a leader reads nothing more; a demoted one positions afresh
  scratch_.clear();
  EncodeBatch(first_seq, payloads, &scratch_, checkpoint.seq, checkpoint.hash);
  // A publish that times out (a NATS server died, the stream's leader moves) may or may not
  // have been stored: retry while the lease lasts. A retry refused for "wrong last sequence"
  // is ours if the stream's last message is this very batch; otherwise this writer is fenced.
  const int64_t give_up = SteadyMicros() + options_.lease_ttl_ms * 1000;
  bool retried = false;
  for (;;) {
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.ExpectLastSeq = last_stream_seq_;
    po.MaxWait = options_.timeout_ms;
    Owned<jsPubAck, jsPubAck_Destroy> ack;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_Publish(&ack.p, conn_->js(), options_.subject.c_str(), scratch_.data(),
                              static_cast<int>(scratch_.size()), &po, &jerr);
    if (s == NATS_OK) {
      last_stream_seq_ = ack.p->Sequence;
      break;
    }
    absl::Status err = NatsError(
        absl::StrCat("append ", payloads.size(), " inputs from ", first_seq), s, jerr);
    if (absl::IsFailedPrecondition(err) && retried) {
      Owned<natsMsg, natsMsg_Destroy> last;
      if (js_GetLastMsg(&last.p, conn_->js(), options_.stream.c_str(), options_.subject.c_str(),
                        nullptr, nullptr) == NATS_OK &&
          absl::string_view(natsMsg_GetData(last.p),
                            static_cast<size_t>(natsMsg_GetDataLength(last.p))) == scratch_ &&
          natsMsg_GetSequence(last.p) == last_stream_seq_ + 1) {
        last_stream_seq_ = natsMsg_GetSequence(last.p);  // an earlier try landed
        break;
      }
    }
    const bool transient = absl::IsDeadlineExceeded(err) || absl::IsUnavailable(err);
    const int64_t now = SteadyMicros();
    if (!transient || now > give_up ||
        now > leader_deadline_us_.load(std::memory_order_acquire)) {
      last_stream_seq_ = 0;  // whatever happened, this writer no longer knows the tail
      return err;
    }
    retried = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  read_next_seq_ = first_seq + payloads.size();
  return absl::OkStatus();
}

}  // namespace cfx::replication
