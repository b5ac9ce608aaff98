// Private: memoises FixSource lookups for one batch (each grade and date is asked once).
#ifndef CFX_SETTLEMENT_SRC_FIX_CACHE_H_
#define CFX_SETTLEMENT_SRC_FIX_CACHE_H_

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/settlement/sources.h"

namespace cfx::settlement::internal {

class FixCache {
 public:
  explicit FixCache(FixSource* source) : source_(source) {}  // null: no fixes at all
  // A missing fix of `date` that is not a day without a fix: FailedPrecondition naming the
  // date when the source holds fixes from before `date` and none of it (FixSource::Built);
  // OK otherwise. Asked only where a tier or the FSP takes the fix as missing.
  absl::Status CheckMissing(common::Date date) {
    if (source_ == nullptr) return absl::OkStatus();
    auto it = built_.find(date);
    if (it == built_.end()) {
      auto built = source_->Built(date);
      if (!built.ok()) return built.status();
      it = built_.emplace(date, *built).first;
    }
    if (it->second) return absl::OkStatus();
    const std::string d = common::FormatDate(date);
    return absl::FailedPreconditionError(
        absl::StrCat("no reference fix was built for ", d,
                     " (the reference store has fixes of earlier "
                     "days): build them first (cfx reference build --date ",
                     d,
                     " --data-dir ...), then "
                     "settle; settling now would take ",
                     d, " as a day without a fix, for good"));
  }

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
  std::map<common::Date, bool> built_;
};

}  // namespace cfx::settlement::internal

#endif  // CFX_SETTLEMENT_SRC_FIX_CACHE_H_
