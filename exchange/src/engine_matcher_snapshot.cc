// EngineMatcher's snapshot: the engine's blob, then the matcher's own state (positions,
// margins, FIX sessions, the risk settings and the blocks after them), and its Restore.
// docs/formats.md (the `CFXM` blob).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/engine_matcher.h"
#include "snapshot_bytes.h"

namespace cfx::exchange {
namespace {

constexpr uint32_t kMagic = 0x4D584643;            // "CFXM"
constexpr uint32_t kRiskMagic = 0x4B534952;        // "RISK": the risk settings section
constexpr uint32_t kOpenOrdersMagic = 0x5043504F;  // "OPCP": the open-order cap, after it
constexpr uint32_t kDayCloseMagic = 0x43594144;    // "DAYC": day orders expire at the closes
constexpr uint32_t kStampCloseMagic = 0x504D5453;  // "STMP": closes at the first input past them
constexpr uint32_t kStampClockMagic = 0x534B4C43;  // "CLKS": the engine's clock at the stamps
constexpr uint32_t kStpGroupsMagic = 0x47505453;   // "STPG": the per-firm STP-group cap

using internal::Get;
using internal::Put;

uint64_t Key(engine::AccountId a, engine::SymbolId s) { return (uint64_t{a} << 32) | s; }

}  // namespace

std::string EngineMatcher::Snapshot() const {
  std::string out;
  const std::string blob = engine_->Snapshot();
  Put(&out, kMagic);
  Put<uint64_t>(&out, blob.size());
  out += blob;
  Put(&out, last_seq_);
  Put(&out, last_time_);
  // Positions only: open quantities are rebuilt from the engine's live orders.
  std::vector<std::pair<uint64_t, int64_t>> pos;
  for (size_t a = 0; a < exposure_.size(); ++a) {
    for (const SymExposure& e : exposure_[a]) pos.emplace_back(Key(static_cast<engine::AccountId>(a), e.sym), e.x.pos);
  }
  std::sort(pos.begin(), pos.end());  // byte-identical snapshots for equal states
  Put<uint64_t>(&out, pos.size());
  for (const auto& [key, p] : pos) {
    Put(&out, key);
    Put(&out, p);
  }
  Put<uint64_t>(&out, margins_.size());
  for (int64_t m : margins_) Put(&out, m);
  // Only when there is one: an unreplicated exchange's snapshots stay as they were.
  if (!fix_sessions_.empty() || risk_recorded_) fix_sessions_.AppendTo(&out);
  if (risk_recorded_) {  // after the FIX sessions (then always written, maybe empty)
    Put(&out, kRiskMagic);
    Put<uint8_t>(&out, options_.pre_trade_risk ? 1 : 0);
    Put<uint64_t>(&out, options_.collateral.size());
    for (const auto& [name, amount] : options_.collateral) {  // a std::map: in name order
      Put<uint8_t>(&out, static_cast<uint8_t>(name.size()));
      out += name;
      Put<int64_t>(&out, amount.value());
    }
    // Only when set: snapshots of an exchange without the cap stay as they were.
    if (max_open_orders_ != 0) {
      Put(&out, kOpenOrdersMagic);
      Put<int64_t>(&out, max_open_orders_);
    }
    if (close_day_orders_) Put(&out, kDayCloseMagic);  // only when on, as the cap
    if (close_at_stamps_) Put(&out, kStampCloseMagic);  // only with the day close
    if (clock_at_stamps_) Put(&out, kStampClockMagic);  // only with the closes at stamps
    if (engine_->stp_groups_per_firm() != 0) {          // only when set, as the open-order cap
      Put(&out, kStpGroupsMagic);
      Put<uint64_t>(&out, engine_->stp_groups_per_firm());
    }
  }
  return out;
}

absl::Status EngineMatcher::Restore(absl::string_view in) {
  auto bad = [](absl::string_view why) {
    return absl::DataLossError(absl::StrCat("matcher snapshot: ", why));
  };
  uint32_t magic = 0;
  uint64_t n = 0;
  if (!Get(&in, &magic) || magic != kMagic) return bad("bad magic");
  if (!Get(&in, &n) || n > in.size()) return bad("truncated engine state");
  engine_ = std::make_unique<engine::Engine>(options_.engine);
  engine_->set_pre_trade_risk(this);
  engine_->set_stp_groups_per_firm(0);  // as the constructor: the STPG block below, if any
  last_trading_day_.clear();  // by symbol id of the engine being replaced
  // The whole state is replaced, whatever came before (Recover restores the empty state's
  // blob after a snapshot it refused): the risk settings are the constructed ones until the
  // blob's own block says otherwise.
  options_.pre_trade_risk = initial_pre_trade_risk_;
  options_.collateral = initial_collateral_;
  risk_recorded_ = false;
  if (absl::Status s = engine_->Restore(in.substr(0, n)); !s.ok()) return s;
  in.remove_prefix(n);
  exposure_.clear();
  margins_.clear();
  collateral_.clear();  // by the replaced engine's account ids
  if (!Get(&in, &last_seq_) || !Get(&in, &last_time_) || !Get(&in, &n) || n > in.size() / 16) {
    return bad("truncated");
  }
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t key = 0;
    int64_t p = 0;
    if (!Get(&in, &key) || !Get(&in, &p)) return bad("truncated positions");
    if ((key >> 32) >= engine_->account_count() || (key & 0xffffffffu) >= engine_->symbol_count()) {
      return bad("a position of an unknown account or contract");
    }
    ExposureOf(static_cast<engine::AccountId>(key >> 32),
               static_cast<engine::SymbolId>(key & 0xffffffffu))
        .pos = p;
  }
  if (!Get(&in, &n) || n > in.size() / 8) return bad("truncated margins");
  margins_.resize(n);
  for (uint64_t i = 0; i < n; ++i) Get(&in, &margins_[i]);
  fix_sessions_.Clear();
  if (!in.empty()) {
    if (absl::Status s = fix_sessions_.ReadFrom(&in); !s.ok()) return s;
  }
  if (!in.empty()) {  // the risk settings RiskCmds set (else MatcherOptions' stay)
    uint32_t risk_magic = 0;
    uint8_t check = 0;
    if (!Get(&in, &risk_magic) || risk_magic != kRiskMagic) return bad("trailing bytes");
    if (!Get(&in, &check) || check > 1 || !Get(&in, &n) || n > in.size() / 9) {
      return bad("truncated risk settings");
    }
    std::map<std::string, common::MicroUsd, std::less<>> collateral;
    for (uint64_t i = 0; i < n; ++i) {
      uint8_t len = 0;
      int64_t amount = 0;
      if (!Get(&in, &len) || len > in.size()) return bad("truncated risk settings");
      std::string name(in.substr(0, len));
      in.remove_prefix(len);
      if (!Get(&in, &amount)) return bad("truncated risk settings");
      collateral[std::move(name)] = common::MicroUsd(amount);
    }
    options_.pre_trade_risk = check != 0;
    options_.collateral = std::move(collateral);
    risk_recorded_ = true;
  }
  max_open_orders_ = 0;
  close_day_orders_ = false;
  close_at_stamps_ = false;
  clock_at_stamps_ = false;
  next_close_ = engine::kNoTime;
  // Then, each when set and in this order: the open-order cap, the day-close rule, the
  // closes at stamps, the clock at stamps, the per-firm STP-group cap.
  uint32_t block = 0;
  bool have_block = !in.empty();
  if (have_block && !Get(&in, &block)) return bad("trailing bytes");
  if (have_block && block == kOpenOrdersMagic) {
    int64_t cap = 0;
    if (!Get(&in, &cap) || cap < 0) return bad("truncated open-order cap");
    max_open_orders_ = cap;
    have_block = !in.empty();
    if (have_block && !Get(&in, &block)) return bad("trailing bytes");
  }
  if (have_block && block == kDayCloseMagic) {
    close_day_orders_ = true;
    have_block = !in.empty();
    if (have_block && !Get(&in, &block)) return bad("trailing bytes");
    if (have_block && block == kStampCloseMagic) {
      close_at_stamps_ = true;
      have_block = !in.empty();
      if (have_block && !Get(&in, &block)) return bad("trailing bytes");
      if (have_block && block == kStampClockMagic) {
        clock_at_stamps_ = true;
        have_block = !in.empty();
        if (have_block && !Get(&in, &block)) return bad("trailing bytes");
      }
    }
  }
  if (have_block && block == kStpGroupsMagic) {  // the engine starts with none (options_)
    uint64_t cap = 0;
    if (!Get(&in, &cap) || cap == 0 || cap > UINT32_MAX) return bad("bad STP-group cap");
    engine_->set_stp_groups_per_firm(static_cast<size_t>(cap));
    have_block = false;
  }
  if (have_block || !in.empty()) return bad("trailing bytes");
  published_time_.store(last_time_, std::memory_order_relaxed);
  RebuildLeaves();
  return absl::OkStatus();
}

}  // namespace cfx::exchange
