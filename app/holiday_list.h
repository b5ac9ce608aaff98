// Holiday lists compared as sets and said in messages, for the commands that check a
// holiday list they are given against the exchange's (the settlement terms `cfx serve`
// keeps in its data dir, or `cfx replay --data-dir` kept there): `cfx reference build`, `cfx
// settle` and `cfx replay`.
//
//   if (Normalized(given) != Normalized(kept)) Fail(..., HolidayText(given), ...);
#ifndef CFX_APP_HOLIDAY_LIST_H_
#define CFX_APP_HOLIDAY_LIST_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"

namespace cfx::app {

// A holiday list sorted, without repeats, for comparing two lists as sets.
inline std::vector<common::Date> Normalized(std::vector<common::Date> days) {
  std::sort(days.begin(), days.end());
  days.erase(std::unique(days.begin(), days.end()), days.end());
  return days;
}

// "2027-12-24,2027-12-25", or "none".
inline std::string HolidayText(const std::vector<common::Date>& days) {
  if (days.empty()) return "none";
  std::string out;
  for (const common::Date& d : days) {
    absl::StrAppend(&out, out.empty() ? "" : ",", common::FormatDate(d));
  }
  return out;
}

}  // namespace cfx::app

#endif  // CFX_APP_HOLIDAY_LIST_H_
