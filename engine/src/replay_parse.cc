// JSON command lines -> engine commands (§4.1, the invalid_field rules of §4.2).
#include <istream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cfx/engine/price.h"
#include "cfx/engine/replay.h"
#include "cfx/json/strict_json.h"

namespace cfx::engine {
namespace {

using nlohmann::json;

// Field readers: false means invalid_field (wrong type, bad value or missing when required).
class Fields {
 public:
  explicit Fields(const json& j) : j_(j) {}

  bool Str(const char* key, bool required, std::string_view* out) const {
    auto it = j_.find(key);
    if (it == j_.end()) return !required;
    if (!it->is_string()) return false;
    *out = it->get_ref<const std::string&>();
    return true;
  }
  template <size_t N>
  bool Fixed(const char* key, bool required, FixedString<N>* out) const {
    std::string_view s;
    if (!Str(key, required, &s)) return false;
    if (j_.find(key) == j_.end()) return true;
    return !s.empty() && out->Assign(s);
  }
  // A client id, STP id or firm: printable ASCII without spaces (0x21-0x7E), as the FIX
  // gateway requires of every id from outside (SPEC §5, poison input): an id is stored in
  // the journal and the trade store and echoed in reports.
  template <size_t N>
  bool Id(const char* key, bool required, FixedString<N>* out) const {
    if (!Fixed(key, required, out)) return false;
    for (char c : out->view()) {
      if (c < 0x21 || c > 0x7E) return false;
    }
    return true;
  }
  // An account id (SPEC §9): [A-Za-z0-9][A-Za-z0-9_-]*, not `settlement_prices`. Account
  // ids name settlement statements, so one that could collide with the batch's own files
  // (`_summary.json`) or leave the folder is invalid_field here. The same rule as
  // common::IsValidAccountId (the config loader, the batch), written again because the
  // engine depends on no other cfx module: change both together.
  template <size_t N>
  bool Account(const char* key, bool required, FixedString<N>* out) const {
    if (!Fixed(key, required, out)) return false;
    const std::string_view s = out->view();
    if (s.empty()) return !required;
    if (s == "settlement_prices") return false;
    auto alnum = [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    };
    if (!alnum(s.front())) return false;
    for (char c : s) {
      if (!alnum(c) && c != '_' && c != '-') return false;
    }
    return true;
  }
  bool Int(const char* key, bool required, bool* present, int64_t* out) const {
    auto it = j_.find(key);
    *present = it != j_.end();
    if (!*present) return !required;
    if (!it->is_number_integer()) return false;
    if (it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return false;
    }
    *out = it->get<int64_t>();
    return true;
  }
  bool Int(const char* key, bool required, bool* present, Qty* out) const {
    // A JSON integer past int64 is still a quantity, above any maximum: the engine's
    // qty_above_max says so (SPEC §4.2's order of checks), not invalid_field.
    if (auto it = j_.find(key); it != j_.end() && it->is_number_unsigned() &&
                                it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      *present = true;
      *out = Qty(INT64_MAX);
      return true;
    }
    int64_t v = 0;
    if (!Int(key, required, present, &v)) return false;
    if (*present) *out = Qty(v);
    return true;
  }
  // An optional extension key (replay's "session"): its value when it is one, else none. A
  // key the spec does not name is ignored whatever it holds (SPEC §4.1).
  uint64_t OptionalSession(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end() || !it->is_number_unsigned()) return 0;
    const uint64_t v = it->get<uint64_t>();
    return v <= UINT32_MAX ? v : 0;
  }
  bool Price(const char* key, bool required, PriceField* out) const {
    std::string_view s;
    if (!Str(key, required, &s)) return false;
    if (j_.find(key) == j_.end()) return true;
    ParsedPrice p = ParsePrice(s);
    if (!p.ok) return false;
    *out = PriceField{true, p.on_tick, p.ticks};
    return true;
  }
  bool Bool(const char* key, bool* out) const {
    auto it = j_.find(key);
    if (it == j_.end()) return true;
    if (!it->is_boolean()) return false;
    *out = it->get<bool>();
    return true;
  }
  template <typename E, size_t K>
  bool Enum(const char* key, bool required, const std::pair<const char*, E> (&names)[K],
            E* out) const {
    std::string_view s;
    if (!Str(key, required, &s)) return false;
    if (j_.find(key) == j_.end()) return true;
    for (const auto& [name, value] : names) {
      if (s == name) {
        *out = value;
        return true;
      }
    }
    return false;
  }
  bool Has(const char* key) const { return j_.find(key) != j_.end(); }

 private:
  const json& j_;
};

constexpr std::pair<const char*, Side> kSides[] = {{"buy", Side::kBuy}, {"sell", Side::kSell}};
constexpr std::pair<const char*, OrderType> kTypes[] = {{"limit", OrderType::kLimit},
                                                        {"market", OrderType::kMarket},
                                                        {"stop", OrderType::kStop},
                                                        {"stop_limit", OrderType::kStopLimit}};
constexpr std::pair<const char*, TimeInForce> kTifs[] = {
    {"day", TimeInForce::kDay}, {"gtc", TimeInForce::kGtc}, {"ioc", TimeInForce::kIoc},
    {"fok", TimeInForce::kFok}, {"gtd", TimeInForce::kGtd}};
constexpr std::pair<const char*, StpAction> kStp[] = {
    {"cancel_resting", StpAction::kCancelResting},
    {"cancel_aggressor", StpAction::kCancelAggressor},
    {"cancel_both", StpAction::kCancelBoth}};
constexpr std::pair<const char*, TradingState> kStates[] = {{"pre_open", TradingState::kPreOpen},
                                                            {"open", TradingState::kOpen},
                                                            {"halted", TradingState::kHalted},
                                                            {"closed", TradingState::kClosed}};

bool ParseNew(const Fields& f, NewOrderCmd* c) {
  bool has = false;
  if (!f.Id("cl", true, &c->cl) || !f.Account("acct", true, &c->acct) ||
      !f.Fixed("sym", true, &c->sym) || !f.Enum("side", true, kSides, &c->side) ||
      !f.Enum("type", true, kTypes, &c->type) || !f.Enum("tif", false, kTifs, &c->tif) ||
      !f.Int("qty", true, &has, &c->qty) ||
      !f.Int("display", false, &c->has_display, &c->display) ||
      !f.Bool("post_only", &c->post_only) || !f.Id("stp", false, &c->stp) ||
      !f.Enum("stp_action", false, kStp, &c->stp_action) || !f.Id("firm", false, &c->firm)) {
    return false;
  }
  bool limit_px = c->type == OrderType::kLimit || c->type == OrderType::kStopLimit;
  bool stop = c->type == OrderType::kStop || c->type == OrderType::kStopLimit;
  if (!f.Price("px", limit_px, &c->px) || !f.Price("stop", stop, &c->stop)) return false;
  std::string_view expire;
  if (!f.Str("expire", c->tif == TimeInForce::kGtd, &expire)) return false;
  if (f.Has("expire") && !ParseTimestamp(expire, &c->expire)) return false;
  c->session = static_cast<SessionId>(f.OptionalSession("session"));
  return true;
}

bool ParseObject(const json& j, Command* out) {
  Fields f(j);
  std::string_view op;
  if (!f.Str("op", true, &op)) return false;
  if (op == "product") {
    ProductCmd c;
    if (!f.Fixed("sym", true, &c.sym) || !f.Price("ref", false, &c.ref)) return false;
    if (c.ref.present && !c.ref.on_tick) return false;
    *out = c;
  } else if (op == "state") {
    StateCmd c;
    if (!f.Fixed("sym", true, &c.sym) || !f.Enum("state", true, kStates, &c.state)) return false;
    *out = c;
  } else if (op == "new") {
    NewOrderCmd c;
    if (!ParseNew(f, &c)) return false;
    *out = c;
  } else if (op == "cancel") {
    CancelCmd c;
    if (!f.Id("orig", true, &c.orig) || !f.Account("acct", true, &c.acct)) return false;
    *out = c;
  } else if (op == "replace") {
    ReplaceCmd c;
    if (!f.Id("cl", true, &c.cl) || !f.Id("orig", true, &c.orig) ||
        !f.Account("acct", true, &c.acct) || !f.Price("px", false, &c.px) ||
        !f.Int("qty", false, &c.has_qty, &c.qty)) {
      return false;
    }
    *out = c;
  } else if (op == "mass_cancel") {
    MassCancelCmd c;
    // With "acct" the spec's mass cancel, whatever else the line holds (an extra "session"
    // is ignored, as any extra key: until 2026-12-07 it turned the line into a disconnect
    // of that session, canceling other accounts' orders and not the account's). Without it,
    // replay's extension: "session" names a session whose orders a disconnect cancels.
    if (f.Has("acct")) {
      if (!f.Account("acct", true, &c.acct) || !f.Fixed("sym", false, &c.sym)) return false;
    } else {
      bool has = false;
      int64_t session = 0;
      if (!f.Int("session", true, &has, &session) || session <= 0 || session > UINT32_MAX ||
          !f.Fixed("sym", false, &c.sym)) {
        return false;
      }
      c.session = static_cast<SessionId>(session);
      c.disconnect = true;  // replay's "session" stands for cancel-on-disconnect
    }
    *out = c;
  } else if (op == "time") {
    TimeCmd c;
    std::string_view ts;
    if (!f.Str("ts", true, &ts) || !ParseTimestamp(ts, &c.ts)) return false;
    // Past 2262 every time is held at the end of the nanosecond range, and so is every
    // expiry: a time is held just before it, so that no expiry past the range comes (a time
    // in 2300 expired a gtd of 2400, and refused one of 2500 as already expired).
    if (c.ts == INT64_MAX) c.ts = INT64_MAX - 1;
    *out = c;
  } else if (op == "close") {
    CloseCmd c;
    if (!f.Fixed("sym", true, &c.sym)) return false;
    *out = c;
  } else {
    return false;
  }
  return true;
}

bool IsBlank(std::string_view line) {
  for (char ch : line) {
    if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') return false;
  }
  return true;
}

}  // namespace

ReplayLine ReadReplayLine(std::istream& in, std::string* line) {
  line->clear();
  std::streambuf* buf = in.rdbuf();
  bool any = false, too_long = false, blank = true;
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      if (!any) return ReplayLine::kEnd;
      break;
    }
    any = true;
    if (c == '\n') break;
    blank = blank && (c == ' ' || c == '\t' || c == '\r');
    if (too_long) continue;
    if (line->size() == kMaxReplayLine) {
      too_long = true;
      line->clear();
      line->shrink_to_fit();
      continue;
    }
    line->push_back(static_cast<char>(c));
  }
  // A blank line is one however long (SPEC §4.1 skips them): read as empty.
  return too_long && !blank ? ReplayLine::kTooLong : ReplayLine::kLine;
}

ParsedLine ParseCommandLine(std::string_view line) {
  ParsedLine r;
  if (IsBlank(line)) return r;
  // Strictly (cfx::json::ParseStrict): a raw NUL (nlohmann stopped at one: `{...}\0junk` was
  // accepted as `{...}`) and a key repeated in the line (the last one was taken silently:
  // `"side":"buy","side":"sell"` a sell, until 2026-12-07) are invalid_field.
  json j = cfx::json::ParseStrict(line);
  if (j.is_discarded() || !j.is_object()) {
    r.kind = ParsedLine::Kind::kInvalid;
    return r;
  }
  // A key whose value is null is a key not given (a generator writing absent fields as
  // null): optional ones take their default, required ones are missing (invalid_field).
  for (auto it = j.begin(); it != j.end();) {
    it = it->is_null() ? j.erase(it) : std::next(it);
  }
  if (ParseObject(j, &r.command)) {
    r.kind = ParsedLine::Kind::kCommand;
    return r;
  }
  r.kind = ParsedLine::Kind::kInvalid;
  auto cl = j.find("cl");
  if (cl != j.end() && cl->is_string()) r.cl = cl->get<std::string>();
  auto acct = j.find("acct");
  if (acct != j.end() && acct->is_string()) r.acct = acct->get<std::string>();
  return r;
}

}  // namespace cfx::engine
