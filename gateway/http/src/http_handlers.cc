#include "http_handlers.h"

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/common/grade.h"
#include "cfx/json/strict_json.h"
#include "http_json.h"
#include "nlohmann/json.hpp"

namespace cfx::gateway::internal {
namespace {

using nlohmann::json;

constexpr int64_t kMaxWhatIfQty = 1'000'000'000;

// The one answer for "not yours" and "does not exist" under a firm token (docs/http.md).
HttpResponse Forbidden() {
  return ErrorResponse(403, "forbidden", "account not accessible with this token");
}

// nullopt when every key of `query` is in `allowed`, else a 400 naming the first stranger.
std::optional<HttpResponse> CheckQueryKeys(const Query& query,
                                           std::initializer_list<const char*> allowed) {
  for (const auto& [key, value] : query) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok)
      return ErrorResponse(400, "invalid_parameter", "unknown query parameter '" + key + "'");
  }
  return std::nullopt;
}

std::optional<MarginMethod> ParseMethod(const std::string& text) {
  if (text == "span16") return MarginMethod::kSpan16;
  if (text == "mc") return MarginMethod::kMc;
  return std::nullopt;
}

HttpResponse Unavailable(const char* what) {
  return ErrorResponse(503, "unavailable", absl::StrCat(what, " is not available"));
}

// Strict decimal integer in [lo, hi].
std::optional<int> ParseSmallInt(const std::string& text, int lo, int hi) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

// The query parameter `key`, when present, into *value: an integer in 1..max, else a 400.
std::optional<HttpResponse> IntParam(const Query& query, const char* key, int max, int* value) {
  auto it = query.find(key);
  if (it == query.end()) return std::nullopt;
  std::optional<int> v = ParseSmallInt(it->second, 1, max);
  if (!v) {
    return ErrorResponse(400, "invalid_parameter",
                         absl::StrCat(key, " must be an integer in 1..", max));
  }
  *value = *v;
  return std::nullopt;
}

}  // namespace

std::optional<HttpResponse> CheckAccess(const HandlerContext& ctx, const Principal& who,
                                        const std::string& account) {
  switch (ctx.auth->CheckAccount(who, account)) {
    case AccountAccess::kAllowed:
      return std::nullopt;
    case AccountAccess::kDenied:
      return Forbidden();
    case AccountAccess::kUnknownAccount:
      return ErrorResponse(404, "not_found", "unknown account");
  }
  return Forbidden();
}

HttpResponse JsonResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse ErrorResponse(int status, const std::string& error, const std::string& detail) {
  return JsonResponse(status, ErrorJson(error, detail));
}

HttpResponse ProviderErrorResponse(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return ErrorResponse(404, "not_found", std::string(status.message()));
    case absl::StatusCode::kInvalidArgument:
      return ErrorResponse(400, "invalid_parameter", std::string(status.message()));
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kFailedPrecondition:
      return ErrorResponse(503, "unavailable", "the backend cannot answer now; retry later");
    default:
      // The message may name internals; it is not shown.
      return ErrorResponse(500, "internal", "internal error");
  }
}

HttpResponse HandleMargin(const HandlerContext& ctx, const Principal& who,
                          const std::string& account, const Query& query) {
  if (auto denied = CheckAccess(ctx, who, account)) return *denied;
  if (auto bad = CheckQueryKeys(query, {"method"})) return *bad;
  MarginMethod method = MarginMethod::kSpan16;
  if (auto it = query.find("method"); it != query.end()) {
    std::optional<MarginMethod> m = ParseMethod(it->second);
    if (!m) return ErrorResponse(400, "invalid_parameter", "method must be span16 or mc");
    method = *m;
  }
  if (ctx.providers.margin == nullptr) return Unavailable("margin");
  absl::StatusOr<MarginResult> result = ctx.providers.margin->AccountMargin(account, method);
  if (!result.ok()) return ProviderErrorResponse(result.status());
  return JsonResponse(200, MarginJson(account, method, *result));
}

HttpResponse HandleWhatIf(const HandlerContext& ctx, const Query& query, const std::string& body) {
  if (auto bad = CheckQueryKeys(query, {})) return *bad;
  bool duplicate_key = false;
  json doc = cfx::json::ParseStrict(body, &duplicate_key);
  if (duplicate_key) {
    return ErrorResponse(400, "invalid_json", "a key appears twice in one JSON object");
  }
  if (doc.is_discarded()) return ErrorResponse(400, "invalid_json", "the body is not valid JSON");
  if (!doc.is_object())
    return ErrorResponse(400, "invalid_field", "the body must be a JSON object");

  MarginMethod method = MarginMethod::kSpan16;
  if (auto it = doc.find("method"); it != doc.end()) {
    std::optional<MarginMethod> m =
        it->is_string() ? ParseMethod(it->get<std::string>()) : std::nullopt;
    if (!m) return ErrorResponse(400, "invalid_field", "method must be \"span16\" or \"mc\"");
    method = *m;
  }
  auto pos = doc.find("positions");
  if (pos == doc.end()) return ErrorResponse(400, "invalid_field", "positions: missing");
  if (!pos->is_array()) return ErrorResponse(400, "invalid_field", "positions: must be an array");
  if (pos->size() > ctx.options->max_whatif_positions) {
    return ErrorResponse(400, "invalid_field",
                         absl::StrCat("positions: at most ", ctx.options->max_whatif_positions));
  }
  std::vector<WhatIfPosition> positions;
  positions.reserve(pos->size());
  for (size_t i = 0; i < pos->size(); ++i) {
    const json& p = (*pos)[i];
    std::string where = absl::StrCat("positions[", i, "]");
    if (!p.is_object()) return ErrorResponse(400, "invalid_field", where + ": must be an object");
    auto sym = p.find("sym");
    if (sym == p.end() || !sym->is_string()) {
      return ErrorResponse(400, "invalid_field", where + ".sym: missing or not a string");
    }
    std::string sym_text = sym->get<std::string>();
    if (!common::ParseSymbol(sym_text).ok()) {
      return ErrorResponse(400, "invalid_field", where + ".sym: not a contract symbol");
    }
    auto qty = p.find("qty");
    if (qty == p.end() || !qty->is_number_integer()) {
      return ErrorResponse(400, "invalid_field", where + ".qty: missing or not an integer");
    }
    // Unsigned JSON integers above int64 range are rejected by the range check too.
    if (qty->is_number_unsigned() && qty->get<uint64_t>() > static_cast<uint64_t>(kMaxWhatIfQty)) {
      return ErrorResponse(400, "invalid_field", where + ".qty: out of range");
    }
    int64_t q = qty->get<int64_t>();
    if (q > kMaxWhatIfQty || q < -kMaxWhatIfQty) {
      return ErrorResponse(400, "invalid_field", where + ".qty: out of range");
    }
    positions.push_back({std::move(sym_text), q});
  }
  if (ctx.providers.margin == nullptr) return Unavailable("margin");
  absl::StatusOr<MarginResult> result = ctx.providers.margin->WhatIf(positions, method);
  if (!result.ok()) return ProviderErrorResponse(result.status());
  return JsonResponse(200, MarginJson(std::nullopt, method, *result));
}

HttpResponse HandlePositions(const HandlerContext& ctx, const Principal& who,
                             const std::string& account, const Query& query) {
  if (auto denied = CheckAccess(ctx, who, account)) return *denied;
  if (auto bad = CheckQueryKeys(query, {})) return *bad;
  if (ctx.providers.positions == nullptr) return Unavailable("positions");
  absl::StatusOr<std::vector<PositionLine>> lines = ctx.providers.positions->Positions(account);
  if (!lines.ok()) return ProviderErrorResponse(lines.status());
  return JsonResponse(200, PositionsJson(account, *lines));
}

HttpResponse HandleBook(const HandlerContext& ctx, const std::string& sym, const Query& query) {
  if (auto bad = CheckQueryKeys(query, {"depth"})) return *bad;
  if (!common::ParseSymbol(sym).ok()) {
    return ErrorResponse(400, "invalid_parameter",
                         "not a contract symbol (GPU-TIER-REGION-YYYYMM)");
  }
  int depth = ctx.options->default_book_depth;
  if (auto bad = IntParam(query, "depth", ctx.options->max_book_depth, &depth)) return *bad;
  if (ctx.providers.book == nullptr) return Unavailable("market data");
  absl::StatusOr<BookSnapshot> book = ctx.providers.book->Book(sym, depth);
  if (!book.ok()) return ProviderErrorResponse(book.status());
  return JsonResponse(200, BookJson(*book));
}

HttpResponse HandleReference(const HandlerContext& ctx, const std::string& grade_text,
                             const Query& query) {
  if (auto bad = CheckQueryKeys(query, {"from", "to", "revisions"})) return *bad;
  bool revisions = false;
  if (auto it = query.find("revisions"); it != query.end()) {
    if (it->second != "true" && it->second != "false") {
      return ErrorResponse(400, "invalid_parameter", "revisions: must be true or false");
    }
    revisions = it->second == "true";
  }
  absl::StatusOr<common::Grade> grade = common::ParseGrade(grade_text);
  if (!grade.ok()) {
    return ErrorResponse(400, "invalid_parameter", "not a grade (GPU-TIER-REGION)");
  }
  auto from_it = query.find("from");
  if (from_it == query.end()) {
    return ErrorResponse(400, "invalid_parameter", "from: missing (YYYY-MM-DD)");
  }
  absl::StatusOr<common::Date> from = common::ParseDate(from_it->second);
  if (!from.ok()) return ErrorResponse(400, "invalid_parameter", "from: not a date (YYYY-MM-DD)");
  common::Date to = *from;
  if (auto it = query.find("to"); it != query.end()) {
    absl::StatusOr<common::Date> t = common::ParseDate(it->second);
    if (!t.ok()) return ErrorResponse(400, "invalid_parameter", "to: not a date (YYYY-MM-DD)");
    to = *t;
  }
  if (to < *from) return ErrorResponse(400, "invalid_parameter", "to is before from");
  if (to.days - from->days + 1 > ctx.options->max_reference_days) {
    return ErrorResponse(
        400, "invalid_parameter",
        absl::StrCat("range longer than ", ctx.options->max_reference_days, " days"));
  }
  if (ctx.providers.reference == nullptr) return Unavailable("reference data");
  absl::StatusOr<std::vector<FixRecord>> fixes =
      revisions ? ctx.providers.reference->Revisions(*grade, *from, to)
                : ctx.providers.reference->Fixes(*grade, *from, to);
  if (!fixes.ok()) return ProviderErrorResponse(fixes.status());
  return JsonResponse(200, FixesJson(grade->Key(), common::FormatDate(*from),
                                     common::FormatDate(to), *fixes, revisions));
}

HttpResponse HandleReferenceExplain(const HandlerContext& ctx, const std::string& grade_text,
                                    const std::string& date_text, const Query& query) {
  if (auto bad = CheckQueryKeys(query, {})) return *bad;
  absl::StatusOr<common::Grade> grade = common::ParseGrade(grade_text);
  if (!grade.ok()) {
    return ErrorResponse(400, "invalid_parameter", "not a grade (GPU-TIER-REGION)");
  }
  absl::StatusOr<common::Date> date = common::ParseDate(date_text);
  if (!date.ok()) return ErrorResponse(400, "invalid_parameter", "not a date (YYYY-MM-DD)");
  if (ctx.providers.reference == nullptr) return Unavailable("reference data");
  absl::StatusOr<std::string> explanation = ctx.providers.reference->Explain(*grade, *date);
  if (!explanation.ok()) return ProviderErrorResponse(explanation.status());
  return JsonResponse(200, *explanation);
}

HttpResponse HandleContracts(const HandlerContext& ctx, const Query& query) {
  if (auto bad = CheckQueryKeys(query, {"state"})) return *bad;
  std::optional<security_master::ContractState> state;
  if (auto it = query.find("state"); it != query.end()) {
    if (it->second == "listed") {
      state = security_master::ContractState::kListed;
    } else if (it->second == "expired") {
      state = security_master::ContractState::kExpired;
    } else {
      return ErrorResponse(400, "invalid_parameter", "state: must be listed or expired");
    }
  }
  if (ctx.providers.contracts == nullptr) return Unavailable("security master");
  absl::StatusOr<std::vector<security_master::Contract>> contracts =
      ctx.providers.contracts->Contracts();
  if (!contracts.ok()) return ProviderErrorResponse(contracts.status());
  // Each row in its one encoding (security_master::FormatContractJson), spliced as is.
  std::string body = "{\"contracts\":[";
  bool first = true;
  for (const security_master::Contract& c : *contracts) {
    if (state && c.state != *state) continue;
    if (!first) body += ",";
    first = false;
    body += security_master::FormatContractJson(c);
  }
  body += "]}";
  return JsonResponse(200, std::move(body));
}

HttpResponse HandleContract(const HandlerContext& ctx, const std::string& sym,
                            const Query& query) {
  if (auto bad = CheckQueryKeys(query, {})) return *bad;
  // As /v1/book/{sym}: a malformed symbol is a bad parameter (SPEC §7: 400), one that is well
  // formed but never listed is not found (404).
  if (!common::ParseSymbol(sym).ok()) {
    return ErrorResponse(400, "invalid_parameter",
                         "not a contract symbol (GPU-TIER-REGION-YYYYMM)");
  }
  if (ctx.providers.contracts == nullptr) return Unavailable("security master");
  absl::StatusOr<security_master::ContractRecord> record =
      ctx.providers.contracts->FindContract(sym);
  if (!record.ok()) return ProviderErrorResponse(record.status());
  std::string body = security_master::FormatContractJson(record->contract);
  body.pop_back();  // the closing brace: the history follows
  body += ",\"history\":[";
  for (size_t i = 0; i < record->history.size(); ++i) {
    if (i > 0) body += ",";
    body += security_master::FormatContractEventJson(record->history[i]);
  }
  body += "]}";
  return JsonResponse(200, std::move(body));
}

std::optional<HttpResponse> CheckAuditAccess(const Principal& who) {
  // Who logged on from where is the risk desk's to see, no firm's.
  if (who.role != common::TokenRole::kRiskDesk) {
    return ErrorResponse(403, "forbidden", "the audit log is the risk desk's");
  }
  return std::nullopt;
}

HttpResponse HandleAudit(const HandlerContext& ctx, const Principal& who, const Query& query) {
  if (auto denied = CheckAuditAccess(who)) return *denied;
  if (auto bad = CheckQueryKeys(query, {"after", "limit"})) return *bad;
  uint64_t after = 0;
  if (auto it = query.find("after"); it != query.end()) {
    const std::string& text = it->second;
    const bool digits = !text.empty() && text.size() <= 18 &&
                        text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) return ErrorResponse(400, "invalid_parameter", "after: not a sequence number");
    after = std::strtoull(text.c_str(), nullptr, 10);
  }
  int limit = ctx.options->default_audit_limit;
  if (auto bad = IntParam(query, "limit", ctx.options->max_audit_limit, &limit)) return *bad;
  if (ctx.providers.audit == nullptr) return Unavailable("the audit log");
  absl::StatusOr<AuditEvents> page =
      ctx.providers.audit->Events(after, static_cast<size_t>(limit));
  if (!page.ok()) return ProviderErrorResponse(page.status());
  json events = json::array();
  for (const std::string& line : page->events) {
    // A line with a NUL (damage: the writer escapes every control byte) is no event.
    json e = cfx::json::ParseStored(line);
    if (e.is_object()) events.push_back(std::move(e));
  }
  json out = {{"events", std::move(events)}, {"next_after", page->next_after},
              {"more", page->more}};
  // Field values come from clients (a CompID): bytes that are not UTF-8 are replaced.
  return JsonResponse(200, out.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace cfx::gateway::internal
