#include "file_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace cfx::gateway::internal {

FileLimitPlan PlanFileLimit(const common::ExchangeConfig& config, uint64_t soft, uint64_t hard) {
  const common::LimitsConfig& l = config.limits;
  FileLimitPlan plan;
  plan.needed = static_cast<uint64_t>(std::max(l.http_max_connections, 0)) +
                2 * static_cast<uint64_t>(std::max(l.fix_max_connections, 0)) +
                4 * static_cast<uint64_t>(config.sessions.size()) + kFileReserve;
  plan.soft = soft >= plan.needed ? soft : std::min(hard, plan.needed);
  plan.enough = plan.soft >= plan.needed;
  return plan;
}

absl::Status RaiseFileLimit(const common::ExchangeConfig& config, const std::string& config_name) {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) {
    return absl::InternalError(absl::StrCat("getrlimit(RLIMIT_NOFILE): ", std::strerror(errno)));
  }
  const uint64_t hard = r.rlim_max == RLIM_INFINITY ? UINT64_MAX : r.rlim_max;
  const uint64_t soft = r.rlim_cur == RLIM_INFINITY ? UINT64_MAX : r.rlim_cur;
  const FileLimitPlan plan = PlanFileLimit(config, soft, hard);
  if (!plan.enough) {
    const common::LimitsConfig& l = config.limits;
    return absl::InvalidArgumentError(absl::StrCat(
        config_name, ": [limits] http_max_connections = ", l.http_max_connections,
        " and fix_max_connections = ", l.fix_max_connections, " with ", config.sessions.size(),
        " sessions need ", plan.needed, " file descriptors, but this process may open at most ",
        hard, " (ulimit -Hn): lower them, or raise the hard limit"));
  }
  if (plan.soft != soft) {
    r.rlim_cur = plan.soft;
    if (::setrlimit(RLIMIT_NOFILE, &r) != 0) {
      return absl::InternalError(absl::StrCat("setrlimit(RLIMIT_NOFILE, ", plan.soft,
                                              "): ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

}  // namespace cfx::gateway::internal
