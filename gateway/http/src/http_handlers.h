// The endpoint handlers: validate parameters, check account access, call a provider and
// render its answer. Called by HttpApi after routing, authentication and rate limiting.
#ifndef CFX_GATEWAY_HTTP_HANDLERS_H_
#define CFX_GATEWAY_HTTP_HANDLERS_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "cfx/gateway/http_providers.h"
#include "cfx/gateway/http_server.h"
#include "http_auth.h"
#include "http_message.h"

namespace cfx::gateway::internal {

using Query = std::map<std::string, std::string>;

// Thread safety: the referenced objects are immutable or thread-safe; handlers hold no state.
struct HandlerContext {
  const Authenticator* auth;
  HttpProviders providers;
  const HttpServerOptions* options;
};

HttpResponse JsonResponse(int status, std::string body);
HttpResponse ErrorResponse(int status, const std::string& error, const std::string& detail);
// Maps a provider's error to a response (see http_providers.h for the table).
HttpResponse ProviderErrorResponse(const absl::Status& status);

// The access check of the per-account endpoints: 403 (another firm's account) or 404
// (unknown account); nullopt when allowed.
std::optional<HttpResponse> CheckAccess(const HandlerContext& ctx, const Principal& who,
                                        const std::string& account);
// The audit log is the risk desk's: a 403 for any other principal, decided before the query.
std::optional<HttpResponse> CheckAuditAccess(const Principal& who);

HttpResponse HandleMargin(const HandlerContext& ctx, const Principal& who,
                          const std::string& account, const Query& query);
HttpResponse HandleWhatIf(const HandlerContext& ctx, const Query& query, const std::string& body);
HttpResponse HandlePositions(const HandlerContext& ctx, const Principal& who,
                             const std::string& account, const Query& query);
HttpResponse HandleBook(const HandlerContext& ctx, const std::string& sym, const Query& query);
// GET /v1/reference/{grade}/{date}/explain: the stored explanation of a fix, as is.
HttpResponse HandleReferenceExplain(const HandlerContext& ctx, const std::string& grade,
                                    const std::string& date, const Query& query);
HttpResponse HandleReference(const HandlerContext& ctx, const std::string& grade,
                             const Query& query);
// GET /v1/contracts[?state=listed|expired]: the security master, `{"contracts":[row...]}`
// with each row as stored (docs/formats.md, "Security master"). Public to every token.
HttpResponse HandleContracts(const HandlerContext& ctx, const Query& query);
// GET /v1/contracts/{sym}: the row and its `history`; 404 for a symbol never listed.
HttpResponse HandleContract(const HandlerContext& ctx, const std::string& sym, const Query& query);
// GET /v1/audit?after=&limit=: the risk desk only (others 403).
HttpResponse HandleAudit(const HandlerContext& ctx, const Principal& who, const Query& query);

}  // namespace cfx::gateway::internal

#endif  // CFX_GATEWAY_HTTP_HANDLERS_H_
