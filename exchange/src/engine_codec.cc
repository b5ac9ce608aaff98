// EngineCodec: compact, versioned binary encoding of engine commands for the journal.
#include "cfx/exchange/engine_codec.h"

#include <bit>
#include <concepts>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "cfx/exchange/engine_matcher.h"

namespace cfx::exchange {
namespace {

static_assert(std::endian::native == std::endian::little, "the codec writes host order");

using namespace cfx::engine;

enum PriceFlags : uint8_t { kPresent = 1, kOnTick = 2 };

// Out and In have the same field methods (Name, Price, Int, Enum, Bool), so each command's
// fields are listed once, in wire order, by a Fields() overload that serves both directions.
class Out {
 public:
  explicit Out(std::string* s) : s_(s) {}
  uint8_t version() const { return kEngineCodecVersion; }
  template <typename T>
  void Int(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s_->append(b, sizeof(T));
  }
  void U8(uint8_t v) { s_->push_back(static_cast<char>(v)); }
  void Bool(bool v) { U8(v); }
  // The last value (what In accepts) matters only when decoding.
  template <typename E>
  void Enum(E e, uint8_t /*max*/) {
    U8(static_cast<uint8_t>(e));
  }
  void Name(const FixedString<kMaxIdLength>& n) {
    U8(n.len);
    s_->append(n.data, n.len);
  }
  void Price(const PriceField& p) {
    U8((p.present ? kPresent : 0) | (p.on_tick ? kOnTick : 0));
    if (p.present) Int(p.ticks);
  }

 private:
  std::string* s_;
};

class In {
 public:
  In(absl::string_view b, uint8_t version) : b_(b), version_(version) {}
  uint8_t version() const { return version_; }
  template <typename T>
  void Int(T& v) {
    if (b_.size() < sizeof(T)) return Fail("truncated");
    std::memcpy(&v, b_.data(), sizeof(T));
    b_.remove_prefix(sizeof(T));
  }
  uint8_t U8() {
    uint8_t v = 0;
    Int(v);
    return v;
  }
  void Bool(bool& v) {
    uint8_t x = U8();
    if (x > 1) return Fail("bad bool");
    v = x != 0;
  }
  template <typename E>
  void Enum(E& e, uint8_t max) {
    uint8_t v = U8();
    if (v > max) return Fail("bad enum value");
    e = static_cast<E>(v);
  }
  void Name(FixedString<kMaxIdLength>& n) {
    uint8_t len = U8();
    if (len > kMaxIdLength) return Fail("name too long");
    if (b_.size() < len) return Fail("truncated name");
    n.Assign(std::string_view(b_.data(), len));
    b_.remove_prefix(len);
  }
  void Price(PriceField& p) {
    uint8_t f = U8();
    if (f & ~(kPresent | kOnTick)) return Fail("bad price flags");
    p.present = f & kPresent;
    p.on_tick = f & kOnTick;
    p.ticks = PriceTicks(0);
    if (p.present) Int(p.ticks);
  }
  absl::Status Finish() {
    if (error_.empty() && !b_.empty()) error_ = "trailing bytes";
    if (error_.empty()) return absl::OkStatus();
    return absl::DataLossError(absl::StrCat("engine command: ", error_));
  }

 private:
  void Fail(const char* why) {
    if (error_.empty()) error_ = why;
    b_ = {};
  }
  absl::string_view b_;
  uint8_t version_;
  std::string error_;
};

// `C` is the command type `T`, const when encoding.
template <typename C, typename T>
concept CommandOf = std::same_as<std::remove_const_t<C>, T>;

// Version 2 on: the request's Origin (u32 session, u32 MsgSeqNum); version 1 has none.
template <typename IO, typename O>
void OriginField(IO& io, O& origin) {
  if (io.version() < 2) return;
  io.Int(origin.session);
  io.Int(origin.msg_seq);
}

template <typename IO, CommandOf<ProductCmd> C>
void Fields(IO& io, C& c) {
  io.Name(c.sym);
  io.Price(c.ref);
  io.Int(c.max_order_qty);
  io.Int(c.band_percent);
  io.Int(c.protection_ticks);
  io.Int(c.initial_margin);
}
template <typename IO, CommandOf<StateCmd> C>
void Fields(IO& io, C& c) {
  io.Name(c.sym);
  io.Enum(c.state, 3);
}
template <typename IO, CommandOf<NewOrderCmd> C>
void Fields(IO& io, C& c) {
  io.Name(c.cl);
  io.Name(c.acct);
  io.Name(c.sym);
  io.Enum(c.side, 1);
  io.Enum(c.type, 3);
  io.Enum(c.tif, 4);
  io.Price(c.px);
  io.Price(c.stop);
  io.Int(c.qty);
  io.Bool(c.has_display);
  io.Int(c.display);
  io.Bool(c.post_only);
  io.Name(c.stp);
  io.Enum(c.stp_action, 2);
  io.Name(c.firm);
  io.Int(c.expire);
  io.Int(c.session);
  OriginField(io, c.origin);
}
template <typename IO, CommandOf<CancelCmd> C>
void Fields(IO& io, C& c) {
  io.Name(c.orig);
  io.Name(c.acct);
  OriginField(io, c.origin);
  if (io.version() >= 4) {  // version 4 on: the request's own id and session
    io.Name(c.req);
    io.Int(c.answer_to);
  }
}
template <typename IO, CommandOf<ReplaceCmd> C>
void Fields(IO& io, C& c) {
  io.Name(c.cl);
  io.Name(c.orig);
  io.Name(c.acct);
  io.Price(c.px);
  io.Bool(c.has_qty);
  io.Int(c.qty);
  OriginField(io, c.origin);
  if (io.version() >= 4) io.Int(c.answer_to);  // version 4 on: the request's session
}
template <typename IO, CommandOf<MassCancelCmd> C>
void Fields(IO& io, C& c) {
  io.Name(c.acct);
  io.Name(c.sym);
  io.Int(c.session);
  OriginField(io, c.origin);
  // Version 3 on: whether it is a cancel-on-disconnect; before, every one naming a session was.
  if (io.version() >= 3) {
    io.Bool(c.disconnect);
  } else if constexpr (!std::is_const_v<C>) {
    c.disconnect = c.session != 0;
  }
  if (io.version() >= 4) {  // version 4 on: the request's own id and session
    io.Name(c.req);
    io.Int(c.answer_to);
  }
  if (io.version() >= 5) io.Name(c.firm);  // version 5 on: a session's mass cancel's firm
}
template <typename IO, CommandOf<TimeCmd> C>
void Fields(IO& io, C& c) {
  io.Int(c.ts);
}
template <typename IO, CommandOf<CloseCmd> C>
void Fields(IO& io, C& c) {
  io.Name(c.sym);
}
template <typename IO, CommandOf<FixSessionCmd> C>
void Fields(IO& io, C& c) {
  io.Int(c.session);
  io.Int(c.next_target);
  io.Int(c.sender_limit);
}

template <typename IO, CommandOf<RiskCmd> C>
void Fields(IO& io, C& c) {
  io.Int(c.check);
  io.Name(c.acct);
  io.Int(c.collateral);
  if (io.version() >= 6) io.Int(c.max_open_orders);   // before: -1, as it is
  if (io.version() >= 7) io.Int(c.close_day_orders);  // before: -1, as it is
  if (io.version() >= 10) io.Int(c.stp_groups_per_firm);  // before: -1, as it is
}

template <size_t I>
bool DecodeIndex(size_t tag, In& in, Command* command) {
  if constexpr (I < std::variant_size_v<Command>) {
    if (tag == I) {
      std::variant_alternative_t<I, Command> c{};
      Fields(in, c);
      *command = c;
      return true;
    }
    return DecodeIndex<I + 1>(tag, in, command);
  } else {
    return false;
  }
}

absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string P(const PriceField& p) {
  if (!p.present) return "-";
  return absl::StrCat(p.ticks.value(), p.on_tick ? "" : "(off-tick)");
}

}  // namespace

void EngineCodec::Encode(const Command& command, std::string* out) const {
  Out o(out);
  o.U8(kEngineCodecVersion);
  o.U8(static_cast<uint8_t>(command.index()));
  std::visit([&](const auto& c) { Fields(o, c); }, command);
}

absl::Status EngineCodec::Decode(absl::string_view bytes, Command* command) const {
  if (bytes.size() < 2) return absl::DataLossError("engine command: truncated header");
  const uint8_t version = static_cast<uint8_t>(bytes[0]);
  if (version < kEngineCodecOldestVersion || version > kEngineCodecVersion) {
    return absl::DataLossError(
        absl::StrCat("engine command: unsupported codec version ", static_cast<int>(bytes[0])));
  }
  const size_t tag = static_cast<uint8_t>(bytes[1]);
  In in(bytes.substr(2), version);
  Command decoded;
  constexpr size_t kFixSessionTag = Command(FixSessionCmd{}).index();
  constexpr size_t kRiskTag = Command(RiskCmd{}).index();
  if ((version < 2 && (tag == kFixSessionTag || tag == kRiskTag)) ||
      !DecodeIndex<0>(tag, in, &decoded)) {
    return absl::DataLossError(absl::StrCat("engine command: unknown tag ", tag));
  }
  absl::Status s = in.Finish();
  // The day-close rule's values each version knows (docs/formats.md): a byte past them is
  // damage, not a rule to guess at.
  if (const auto* r = std::get_if<RiskCmd>(&decoded); s.ok() && r != nullptr) {
    // Version 7 holds 2 too: builds of one afternoon (2026-12-07) wrote it before version 8.
    const int max_rule = version >= 9 ? 3 : version >= 7 ? 2 : 1;
    if (r->close_day_orders < -1 || r->close_day_orders > max_rule) {
      return absl::DataLossError(absl::StrCat(
          "engine command: risk close_day_orders ", static_cast<int>(r->close_day_orders),
          " is not a rule of codec version ", static_cast<int>(version)));
    }
    if (r->stp_groups_per_firm < -1 || r->stp_groups_per_firm > UINT32_MAX) {
      return absl::DataLossError(absl::StrCat("engine command: risk stp_groups_per_firm ",
                                              r->stp_groups_per_firm, " out of range"));
    }
  }
  if (s.ok()) *command = decoded;
  return s;
}

std::string DescribeCommand(const Command& command) {
  std::string text = std::visit(
      [](const auto& c) -> std::string {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, ProductCmd>) {
          return absl::StrCat("product sym=", A(c.sym.view()), " ref=", P(c.ref),
                              " max_qty=", c.max_order_qty.value(), " band%=", c.band_percent,
                              " protection=", c.protection_ticks.value(), " im=",
                              c.initial_margin == MatcherOptions::kNoPriceMargin
                                  ? std::string("no_price")
                                  : absl::StrCat(c.initial_margin.value()));
        } else if constexpr (std::is_same_v<T, StateCmd>) {
          return absl::StrCat("state sym=", A(c.sym.view()), " state=", A(ToString(c.state)));
        } else if constexpr (std::is_same_v<T, NewOrderCmd>) {
          std::string s = absl::StrCat(
              "new cl=", A(c.cl.view()), " acct=", A(c.acct.view()), " sym=", A(c.sym.view()), " ",
              A(ToString(c.side)), " ", A(ToString(c.type)), " ", A(ToString(c.tif)),
              " px=", P(c.px), " stop=", P(c.stop), " qty=", c.qty.value());
          if (c.has_display) absl::StrAppend(&s, " display=", c.display.value());
          if (c.post_only) absl::StrAppend(&s, " post_only");
          if (!c.firm.empty()) absl::StrAppend(&s, " firm=", A(c.firm.view()));
          if (!c.stp.empty()) absl::StrAppend(&s, " stp=", A(c.stp.view()));
          if (c.session != 0) absl::StrAppend(&s, " session=", c.session);
          if (c.expire != kNoTime) absl::StrAppend(&s, " expire=", c.expire);
          return s;
        } else if constexpr (std::is_same_v<T, CancelCmd>) {
          return absl::StrCat("cancel orig=", A(c.orig.view()), " acct=", A(c.acct.view()),
                              c.req.empty() ? "" : absl::StrCat(" req=", A(c.req.view())),
                              c.answer_to == 0 ? "" : absl::StrCat(" answer_to=", c.answer_to));
        } else if constexpr (std::is_same_v<T, ReplaceCmd>) {
          return absl::StrCat("replace cl=", A(c.cl.view()), " orig=", A(c.orig.view()),
                              " acct=", A(c.acct.view()), " px=", P(c.px),
                              " qty=", c.has_qty ? absl::StrCat(c.qty.value()) : "-",
                              c.answer_to == 0 ? "" : absl::StrCat(" answer_to=", c.answer_to));
        } else if constexpr (std::is_same_v<T, MassCancelCmd>) {
          return absl::StrCat("mass_cancel acct=", A(c.acct.view()), " sym=", A(c.sym.view()),
                              " session=", c.session, c.disconnect ? " disconnect" : "",
                              c.req.empty() ? "" : absl::StrCat(" req=", A(c.req.view())),
                              c.answer_to == 0 ? "" : absl::StrCat(" answer_to=", c.answer_to),
                              c.firm.empty() ? "" : absl::StrCat(" firm=", A(c.firm.view())));
        } else if constexpr (std::is_same_v<T, TimeCmd>) {
          return absl::StrCat("time ts=", c.ts);
        } else if constexpr (std::is_same_v<T, RiskCmd>) {
          std::string s = "risk";
          if (c.check >= 0) absl::StrAppend(&s, " check=", c.check != 0 ? "on" : "off");
          if (!c.acct.empty()) {
            absl::StrAppend(&s, " acct=", A(c.acct.view()), " collateral=", c.collateral.value());
          }
          if (c.max_open_orders >= 0) absl::StrAppend(&s, " max_open_orders=", c.max_open_orders);
          if (c.close_day_orders >= 0) {
            absl::StrAppend(&s, " close_day_orders=",
                            c.close_day_orders == 3   ? "on_at_stamps_clock"
                            : c.close_day_orders == 2 ? "on_at_stamps"
                            : c.close_day_orders != 0 ? "on"
                                                      : "off");
          }
          if (c.stp_groups_per_firm >= 0) {
            absl::StrAppend(&s, " stp_groups_per_firm=", c.stp_groups_per_firm);
          }
          return s;
        } else if constexpr (std::is_same_v<T, FixSessionCmd>) {
          return absl::StrCat("fix_session session=", c.session, " next_target=", c.next_target,
                              " sender_limit=", c.sender_limit);
        } else {
          return absl::StrCat("close sym=", A(c.sym.view()));
        }
      },
      command);
  const Origin* origin = nullptr;
  if (const auto* n = std::get_if<NewOrderCmd>(&command)) origin = &n->origin;
  if (const auto* x = std::get_if<CancelCmd>(&command)) origin = &x->origin;
  if (const auto* r = std::get_if<ReplaceCmd>(&command)) origin = &r->origin;
  if (const auto* m = std::get_if<MassCancelCmd>(&command)) origin = &m->origin;
  if (origin != nullptr && origin->msg_seq != 0) {
    absl::StrAppend(&text, " from=", origin->session, "/", origin->msg_seq);
  }
  return text;
}

}  // namespace cfx::exchange
