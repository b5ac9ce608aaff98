#include "cfx/journal/counter_machine.h"

#include <cassert>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace cfx::journal {
namespace {

void PutU64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out->append(b, 8);
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}
// A 64-bit mixer (splitmix64 finaliser constants); any good avalanche works here.
uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

}  // namespace

void CounterCodec::Encode(const CounterCommand& command, std::string* out) const {
  PutU64(out, command.id);
  PutU64(out, command.key);
  PutU64(out, static_cast<uint64_t>(command.delta));
  for (int i = 0; i < 5; ++i) PutU64(out, Mix(command.id, i));
}

absl::Status CounterCodec::Decode(absl::string_view bytes, CounterCommand* command) const {
  if (bytes.size() != kEncodedSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("counter command: ", bytes.size(), " bytes, want ", kEncodedSize));
  }
  command->id = GetU64(bytes.data());
  command->key = GetU64(bytes.data() + 8);
  command->delta = static_cast<int64_t>(GetU64(bytes.data() + 16));
  for (int i = 0; i < 5; ++i) {
    if (GetU64(bytes.data() + 24 + 8 * i) != Mix(command->id, i)) {
      return absl::InvalidArgumentError("counter command: bad filler");
    }
  }
  return absl::OkStatus();
}

void CounterMachine::Apply(uint64_t seq, const CounterCommand& command,
                           OutcomeSink<CounterOutcome>& sink) {
  assert(seq > last_seq_);
  int64_t& value = counters_[command.key];
  value += command.delta;
  last_seq_ = seq;
  ++applied_;
  history_hash_ = Mix(Mix(Mix(Mix(history_hash_, seq), command.id), command.key),
                      static_cast<uint64_t>(command.delta));
  sink.Emit(CounterOutcome{command.id, value});
}

std::string CounterMachine::Snapshot() const {
  std::string out;
  out.reserve(32 + 16 * counters_.size());
  PutU64(&out, last_seq_);
  PutU64(&out, applied_);
  PutU64(&out, history_hash_);
  PutU64(&out, counters_.size());
  for (const auto& [key, value] : counters_) {
    PutU64(&out, key);
    PutU64(&out, static_cast<uint64_t>(value));
  }
  return out;
}

absl::Status CounterMachine::Restore(absl::string_view snapshot) {
  if (snapshot.size() < 32) return absl::InvalidArgumentError("counter snapshot: too short");
  const char* p = snapshot.data();
  const uint64_t n = GetU64(p + 24);
  if (snapshot.size() != 32 + 16 * n) {
    return absl::InvalidArgumentError("counter snapshot: size does not match its count");
  }
  counters_.clear();
  last_seq_ = GetU64(p);
  applied_ = GetU64(p + 8);
  history_hash_ = GetU64(p + 16);
  for (uint64_t i = 0; i < n; ++i) {
    counters_.emplace_hint(counters_.end(), GetU64(p + 32 + 16 * i),
                           static_cast<int64_t>(GetU64(p + 40 + 16 * i)));
  }
  return absl::OkStatus();
}

uint64_t CounterMachine::StateHash() const {
  uint64_t h = Mix(Mix(history_hash_, last_seq_), applied_);
  for (const auto& [key, value] : counters_) h = Mix(Mix(h, key), static_cast<uint64_t>(value));
  return h;
}

}  // namespace cfx::journal
