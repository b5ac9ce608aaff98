#include "cfx/exchange/fix_session_table.h"

#include <algorithm>

#include "snapshot_bytes.h"

namespace cfx::exchange {
namespace {

using internal::Get;
using internal::Put;

constexpr size_t kEntryBytes = sizeof(uint32_t) + 2 * sizeof(uint64_t);

}  // namespace

void FixSessionTable::Apply(const engine::FixSessionCmd& cmd) {
  std::lock_guard<std::mutex> lock(mu_);
  FixSessionSeqs& s = sessions_[cmd.session];
  s.session = cmd.session;
  if (cmd.next_target != 0) s.next_target = cmd.next_target;
  if (cmd.sender_limit != 0) s.sender_limit = cmd.sender_limit;
}

std::vector<FixSessionSeqs> FixSessionTable::Entries() const {
  std::vector<FixSessionSeqs> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.reserve(sessions_.size());
    for (const auto& [id, s] : sessions_) all.push_back(s);
  }
  std::sort(all.begin(), all.end(),
            [](const FixSessionSeqs& a, const FixSessionSeqs& b) { return a.session < b.session; });
  return all;
}

std::vector<FixSessionSeqs> FixSessionTable::All() const {
  std::vector<FixSessionSeqs> all = Entries();
  if (!all.empty() && all.front().session == kReportsEntry) all.erase(all.begin());
  return all;
}

uint64_t FixSessionTable::ReportsSentThrough() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(kReportsEntry);
  return it == sessions_.end() || it->second.next_target == 0 ? 0 : it->second.next_target - 1;
}

bool FixSessionTable::empty() const {  // the reports entry counts: it is state
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.empty();
}

void FixSessionTable::AppendTo(std::string* out) const {
  const std::vector<FixSessionSeqs> all = Entries();  // the reports entry too
  Put<uint64_t>(out, all.size());
  for (const FixSessionSeqs& s : all) {
    Put(out, s.session);
    Put(out, s.next_target);
    Put(out, s.sender_limit);
  }
}

absl::Status FixSessionTable::ReadFrom(absl::string_view* in) {
  uint64_t n = 0;
  if (!Get(in, &n) || n > in->size() / kEntryBytes) {
    return absl::DataLossError("matcher snapshot: truncated FIX sessions");
  }
  absl::flat_hash_map<engine::SessionId, FixSessionSeqs> read;
  for (uint64_t i = 0; i < n; ++i) {
    FixSessionSeqs s;
    Get(in, &s.session);
    Get(in, &s.next_target);
    Get(in, &s.sender_limit);
    if (!read.emplace(s.session, s).second) {
      return absl::DataLossError("matcher snapshot: a FIX session listed twice");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  sessions_ = std::move(read);
  return absl::OkStatus();
}

void FixSessionTable::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.clear();
}

}  // namespace cfx::exchange
