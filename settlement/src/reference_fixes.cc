// Compiled only when the cfx_reference target exists (see settlement/CMakeLists.txt).
#include "cfx/settlement/reference_fixes.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "cfx/reference/fix_store.h"

namespace cfx::settlement {
namespace {

class ReferenceFixSource : public FixSource {
 public:
  explicit ReferenceFixSource(std::unique_ptr<reference::FixStore> store)
      : store_(std::move(store)) {}

  absl::StatusOr<std::optional<int64_t>> FixE4(const std::string& grade,
                                               common::Date date) override {
    auto record = store_->Get(grade, date);
    if (!record.ok()) return record.status();
    // A stale record carries the earlier fix in fix_e4 and counts as a fix (SPEC §9.1);
    // insufficient_data has no fix_e4.
    if (!record->has_value()) return std::optional<int64_t>();
    return (*record)->fix_e4;
  }

  absl::StatusOr<bool> Built(common::Date date) override {
    if (!dates_) {
      auto dates = store_->Dates();
      if (!dates.ok()) return dates.status();
      dates_ = *std::move(dates);
    }
    if (dates_->empty() || date < dates_->front()) return true;  // no benchmark yet
    return std::binary_search(dates_->begin(), dates_->end(), date);
  }

 private:
  std::unique_ptr<reference::FixStore> store_;
  std::optional<std::vector<common::Date>> dates_;  // read once, at the first Built
};

}  // namespace

absl::StatusOr<std::unique_ptr<FixSource>> OpenReferenceFixSource(const std::string& data_dir) {
  auto store = reference::FixStore::Open(data_dir, /*create=*/false);
  if (!store.ok()) return store.status();
  return std::unique_ptr<FixSource>(new ReferenceFixSource(*std::move(store)));
}

}  // namespace cfx::settlement
