// Private: memoises FixSource lookups for one batch (each grade and date is asked once).
#ifndef CFX_SETTLEMENT_SRC_FIX_CACHE_H_
#define CFX_SETTLEMENT_SRC_FIX_CACHE_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "cfx/settlement/sources.h"

namespace cfx::settlement::internal {

class FixCache {
 public:
  explicit FixCache(FixSource* source) : source_(source) {}  // null: no fixes at all
  absl::StatusOr<std::optional<int64_t>> Get(const std::string& grade, common::Date date) {
    if (source_ == nullptr) return std::optional<int64_t>();
    auto key = std::make_pair(grade, date);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    auto fix = source_->FixE4(grade, date);
    if (!fix.ok()) return fix.status();
    cache_.emplace(std::move(key), *fix);
    return *fix;
  }

 private:
  FixSource* source_;
  std::map<std::pair<std::string, common::Date>, std::optional<int64_t>> cache_;
};

}  // namespace cfx::settlement::internal

#endif  // CFX_SETTLEMENT_SRC_FIX_CACHE_H_
