#include "http_target.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"

namespace cfx::gateway::internal {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes %XX (and '+' as space in a query). Rejects a NUL byte: no caller wants one and
// it would truncate C strings downstream.
absl::StatusOr<std::string> Decode(std::string_view in, bool plus_is_space) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return absl::InvalidArgumentError("truncated %-escape");
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return absl::InvalidArgumentError("bad %-escape");
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    if (c == '\0') return absl::InvalidArgumentError("NUL in target");
    out.push_back(c);
  }
  return out;
}

}  // namespace

// The absolute form, "http://host:port/path?query" (RFC 9112 §3.2.2: a server must accept
// it; a proxy sends it): the scheme and authority are dropped, the rest is the origin form.
// The authority is not compared with anything: cfx serves one origin.
std::optional<std::string_view> OriginFormOf(std::string_view target) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.size() < scheme.size()) continue;
    bool same = true;
    for (size_t i = 0; i < scheme.size() && same; ++i) {
      same = (target[i] | 0x20) == scheme[i] || target[i] == scheme[i];
    }
    if (!same) continue;
    std::string_view rest = target.substr(scheme.size());
    const size_t end = rest.find_first_of("/?#");
    if (end == 0) return std::nullopt;  // no authority
    if (end == std::string_view::npos) return std::string_view("/");
    return rest.substr(end);
  }
  return std::nullopt;
}

absl::StatusOr<ParsedTarget> ParseTarget(std::string_view target) {
  if (std::optional<std::string_view> origin = OriginFormOf(target)) {
    // "http://h?x=1": the path is empty, i.e. "/" (RFC 9112 §3.2.1).
    if (origin->front() != '/') return ParseTarget(absl::StrCat("/", std::string(*origin)));
    target = *origin;
  }
  if (target.empty() || target[0] != '/') {
    return absl::InvalidArgumentError("target must start with '/' (or be an absolute http:// URI)");
  }
  ParsedTarget parsed;
  std::string_view path = target;
  std::string_view query;
  if (size_t q = target.find('?'); q != std::string_view::npos) {
    path = target.substr(0, q);
    query = target.substr(q + 1);
  }
  if (size_t h = query.find('#'); h != std::string_view::npos) query = query.substr(0, h);

  std::string_view rest = path.substr(1);
  while (!rest.empty()) {
    size_t slash = rest.find('/');
    std::string_view raw = rest.substr(0, slash);
    if (raw.empty()) return absl::InvalidArgumentError("empty path segment");
    absl::StatusOr<std::string> seg = Decode(raw, /*plus_is_space=*/false);
    if (!seg.ok()) return seg.status();
    if (seg->find('/') != std::string::npos) {
      return absl::InvalidArgumentError("encoded '/' in path segment");
    }
    parsed.segments.push_back(*std::move(seg));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
    // A trailing slash ("/healthz/") is tolerated: it ends the path.
  }

  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      absl::StatusOr<std::string> key = Decode(pair.substr(0, eq), true);
      if (!key.ok()) return key.status();
      absl::StatusOr<std::string> value =
          Decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
      if (!value.ok()) return value.status();
      if (parsed.query.count(*key)) parsed.duplicate_query_key = true;
      parsed.query[*key] = *std::move(value);
    }
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  return parsed;
}

}  // namespace cfx::gateway::internal
