// Replay driver and the §4.1 event line format. Key order follows the spec's examples.
#include <algorithm>
#include <istream>
#include <ostream>
#include <string>

#include "cfx/engine/price.h"
#include "cfx/engine/replay.h"

namespace cfx::engine {
namespace {

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(ch);
    } else if (c < 0x20) {
      static const char kHex[] = "0123456789abcdef";
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back('"');
}

class LineWriter {
 public:
  explicit LineWriter(std::ostream& out) : out_(out) {}

  // Starts `{"seq":N,"ev":"<ev>"`.
  void Begin(std::string_view ev) {
    line_.clear();
    line_.append("{\"seq\":").append(std::to_string(++seq_)).append(",\"ev\":\"");
    line_.append(ev).push_back('"');
  }
  void Str(std::string_view key, std::string_view v) {
    Key(key);
    AppendJsonString(&line_, v);
  }
  void Int(std::string_view key, int64_t v) {
    Key(key);
    line_.append(std::to_string(v));
  }
  void Raw(std::string_view key, std::string_view v) {
    Key(key);
    line_.append(v);
  }
  void End() {
    line_.append("}\n");
    out_ << line_;
  }
  uint64_t count() const { return seq_; }

 private:
  void Key(std::string_view key) {
    line_.push_back(',');
    AppendJsonString(&line_, key);
    line_.push_back(':');
  }
  std::ostream& out_;
  std::string line_;
  uint64_t seq_ = 0;
};

class ReplayPrinter : public EngineListener {
 public:
  ReplayPrinter(const Engine& engine, LineWriter& w) : engine_(engine), w_(w) {}
  void set_context(const Command* cmd, uint64_t line) {
    cmd_ = cmd;
    line_ = line;
  }

  void OnAccepted(const Event& e) override {
    w_.Begin("accepted");
    Ids(e.order);
    w_.Int("oid", static_cast<int64_t>(e.order.oid));
    w_.End();
  }
  void OnRejected(const Event& e) override {
    w_.Begin("rejected");
    if (const auto* n = std::get_if<NewOrderCmd>(cmd_)) {
      w_.Str("cl", n->cl.view());
      w_.Str("acct", n->acct.view());
    } else if (const auto* m = std::get_if<MassCancelCmd>(cmd_)) {
      w_.Str("acct", m->acct.view());
      if (!m->sym.empty()) w_.Str("sym", m->sym.view());
    } else if (const auto* s = std::get_if<StateCmd>(cmd_)) {
      w_.Str("sym", s->sym.view());
    } else if (const auto* c = std::get_if<CloseCmd>(cmd_)) {
      w_.Str("sym", c->sym.view());
    } else if (const auto* p = std::get_if<ProductCmd>(cmd_)) {
      w_.Str("sym", p->sym.view());
    }
    w_.Str("reason", ToString(e.reject));
    if (e.reject == RejectReason::kInvalidField) w_.Int("line", static_cast<int64_t>(line_));
    w_.End();
  }
  void OnTrade(const Event& e) override {
    w_.Begin("trade");
    w_.Str("sym", engine_.SymbolName(e.sym));
    w_.Str("px", FormatPrice(e.px));
    w_.Int("qty", e.qty.value());
    w_.Str("buy_cl", e.order.cl.view());
    w_.Str("buy_acct", engine_.AccountName(e.order.acct));
    w_.Str("sell_cl", e.other.cl.view());
    w_.Str("sell_acct", engine_.AccountName(e.other.acct));
    w_.Str("aggressor", ToString(e.aggressor));
    w_.End();
  }
  void OnCanceled(const Event& e) override {
    w_.Begin("canceled");
    Ids(e.order);
    w_.Int("qty", e.qty.value());
    w_.Str("reason", ToString(e.cancel));
    w_.End();
  }
  void OnReplaced(const Event& e) override {
    w_.Begin("replaced");
    w_.Str("cl", e.order.cl.view());
    w_.Str("orig", e.orig.view());
    w_.Str("acct", engine_.AccountName(e.order.acct));
    if (e.has_px) w_.Str("px", FormatPrice(e.px));
    w_.Int("qty", e.qty.value());
    w_.End();
  }
  void OnTriggered(const Event& e) override {
    w_.Begin("triggered");
    Ids(e.order);
    w_.End();
  }
  void OnCancelRejected(const Event& e) override {
    w_.Begin("cancel_rejected");
    w_.Str("orig", e.orig.view());
    w_.Str("acct", engine_.AccountName(e.order.acct));
    w_.Str("reason", ToString(e.reject));
    w_.End();
  }

 private:
  void Ids(const OrderInfo& o) {
    w_.Str("cl", o.cl.view());
    w_.Str("acct", engine_.AccountName(o.acct));
  }
  const Engine& engine_;
  LineWriter& w_;
  const Command* cmd_ = nullptr;
  uint64_t line_ = 0;
};

std::string LevelsJson(const std::vector<LevelView>& levels) {
  std::string s = "[";
  for (size_t i = 0; i < levels.size(); ++i) {
    if (i > 0) s.push_back(',');
    s.append("[\"").append(FormatPrice(levels[i].px)).append("\",");
    s.append(std::to_string(levels[i].display_qty.value())).push_back(',');
    s.append(std::to_string(levels[i].count)).push_back(']');
  }
  s.push_back(']');
  return s;
}

}  // namespace

ReplayResult RunReplay(std::istream& in, std::ostream& out, Engine* engine_in) {
  Engine local;
  Engine& engine = engine_in != nullptr ? *engine_in : local;
  LineWriter w(out);
  ReplayPrinter printer(engine, w);
  engine.set_listener(&printer);
  ReplayResult result;
  std::string line;
  for (ReplayLine read; (read = ReadReplayLine(in, &line)) != ReplayLine::kEnd;) {
    ++result.lines;
    ParsedLine parsed;
    if (read == ReplayLine::kTooLong) {
      parsed.kind = ParsedLine::Kind::kInvalid;  // its fields are not read: no cl, no acct
    } else {
      parsed = ParseCommandLine(line);
    }
    if (parsed.kind == ParsedLine::Kind::kBlank) continue;
    if (parsed.kind == ParsedLine::Kind::kInvalid) {
      w.Begin("rejected");
      if (!parsed.cl.empty()) w.Str("cl", parsed.cl);
      if (!parsed.acct.empty()) w.Str("acct", parsed.acct);
      w.Str("reason", "invalid_field");
      w.Int("line", static_cast<int64_t>(result.lines));
      w.End();
      continue;
    }
    printer.set_context(&parsed.command, result.lines);
    engine.Process(parsed.command);
  }
  engine.set_listener(nullptr);
  // Book events: symbols that ever accepted an order, sorted by symbol.
  std::vector<std::pair<std::string_view, SymbolId>> syms;
  for (SymbolId id = 0; id < engine.symbol_count(); ++id) {
    if (engine.book(id).ever_accepted()) syms.emplace_back(engine.SymbolName(id), id);
  }
  std::sort(syms.begin(), syms.end());
  std::vector<LevelView> levels;
  for (const auto& [name, id] : syms) {
    w.Begin("book");
    w.Str("sym", name);
    engine.book(id).Depth(Side::kBuy, &levels);
    w.Raw("bids", LevelsJson(levels));
    engine.book(id).Depth(Side::kSell, &levels);
    w.Raw("asks", LevelsJson(levels));
    w.End();
  }
  out.flush();
  result.events = w.count();
  result.state_hash = engine.StateHash();
  return result;
}

}  // namespace cfx::engine
