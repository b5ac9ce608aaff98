#include "engine_test_util.h"

#include <regex>
#include <sstream>

#include "cfx/engine/replay.h"

namespace cfx::engine::testing {

std::string ProductLine(const std::string& ref, const std::string& sym) {
  if (ref.empty()) return R"({"op":"product","sym":")" + sym + R"("})";
  return R"({"op":"product","sym":")" + sym + R"(","ref":")" + ref + R"("})";
}

std::string StateLine(const std::string& state, const std::string& sym) {
  return R"({"op":"state","sym":")" + sym + R"(","state":")" + state + R"("})";
}

std::string Order(const std::string& cl, const std::string& acct, const std::string& side,
                  const std::string& type, int qty, const std::string& extra) {
  return R"({"op":"new","cl":")" + cl + R"(","acct":")" + acct + R"(","sym":")" + kSym +
         R"(","side":")" + side + R"(","type":")" + type + R"(","qty":)" + std::to_string(qty) +
         extra + "}";
}

std::string Limit(const std::string& cl, const std::string& acct, const std::string& side,
                  const std::string& px, int qty, const std::string& extra) {
  return Order(cl, acct, side, "limit", qty, R"(,"px":")" + px + "\"" + extra);
}

std::string CancelLine(const std::string& orig, const std::string& acct) {
  return R"({"op":"cancel","orig":")" + orig + R"(","acct":")" + acct + R"("})";
}

std::string ReplaceLine(const std::string& cl, const std::string& orig, const std::string& acct,
                        const std::string& extra) {
  return R"({"op":"replace","cl":")" + cl + R"(","orig":")" + orig + R"(","acct":")" + acct +
         "\"" + extra + "}";
}

std::vector<std::string> Run(const std::vector<std::string>& lines, Engine* engine) {
  std::string input;
  for (const auto& l : lines) input += l + "\n";
  std::istringstream in(input);
  std::ostringstream out;
  RunReplay(in, out, engine);
  std::vector<std::string> result;
  std::istringstream outs(out.str());
  static const std::regex kOid(R"(,"oid":\d+)");
  for (std::string line; std::getline(outs, line);) {
    result.push_back(std::regex_replace(line, kOid, ""));
  }
  return result;
}

std::vector<std::string> RunNoSeq(const std::vector<std::string>& lines, Engine* engine) {
  std::vector<std::string> out = Run(lines, engine);
  static const std::regex kSeq(R"(^\{"seq":\d+,)");
  for (auto& l : out) l = std::regex_replace(l, kSeq, "{");
  return out;
}

std::vector<std::string> Grep(const std::vector<std::string>& out, const std::string& needle) {
  std::vector<std::string> r;
  for (const auto& l : out) {
    if (l.find(needle) != std::string::npos) r.push_back(l);
  }
  return r;
}

std::string Trade(const std::string& px, int qty, const std::string& bcl, const std::string& bacct,
                  const std::string& scl, const std::string& sacct, const std::string& agg) {
  return std::string(R"({"ev":"trade","sym":")") + kSym + R"(","px":")" + px + R"(","qty":)" +
         std::to_string(qty) + R"(,"buy_cl":")" + bcl + R"(","buy_acct":")" + bacct +
         R"(","sell_cl":")" + scl + R"(","sell_acct":")" + sacct + R"(","aggressor":")" + agg +
         "\"}";
}

std::string Canceled(const std::string& cl, const std::string& acct, int qty,
                     const std::string& reason) {
  return R"({"ev":"canceled","cl":")" + cl + R"(","acct":")" + acct + R"(","qty":)" +
         std::to_string(qty) + R"(,"reason":")" + reason + "\"}";
}

std::string BookLine(const std::string& bids, const std::string& asks) {
  return std::string(R"({"ev":"book","sym":")") + kSym + R"(","bids":)" + bids + R"(,"asks":)" +
         asks + "}";
}

}  // namespace cfx::engine::testing
