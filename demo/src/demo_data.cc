// Demo step a: bundled sample data (generated, seeded) and the benchmark fixes built from
// it into the exchange's data dir, exactly as `cfx reference sample` + `cfx reference build
// --data-dir` would.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/reference/builder.h"
#include "cfx/reference/fix_store.h"
#include "cfx/reference/inputs.h"
#include "cfx/reference/sample_data.h"
#include "demo_internal.h"

namespace cfx::demo {

absl::StatusOr<DataResult> BuildData(const common::ExchangeConfig& config,
                                     const std::vector<common::Date>& days, uint64_t seed,
                                     const DemoPaths& paths, std::ostream& log) {
  const common::BusinessCalendar calendar = config.Calendar();
  int year, month, day;
  common::YmdFromDate(days.front(), &year, &month, &day);
  // The whole month before: level-3 carries and the T3 tier need earlier fixes, and the
  // first trading day's band reference is the previous business day's fix.
  const common::Date from =
      month == 1 ? common::DateFromYmd(year - 1, 12, 1) : common::DateFromYmd(year, month - 1, 1);
  const common::Date to = days.back();

  reference::SampleOptions sample;
  sample.from = from;
  sample.to = to;
  sample.seed = seed;
  sample.calendar = calendar;
  const reference::SampleData generated = reference::GenerateSample(sample);
  if (absl::Status s = reference::WriteSampleFiles(generated, paths.inputs); !s.ok()) return s;

  // Read back what was written: the CSV files are the demo's inputs, as a user would give them.
  absl::StatusOr<std::vector<reference::Observation>> obs =
      reference::ReadObservationsFile(paths.inputs + "/observations.csv");
  if (!obs.ok()) return obs.status();
  absl::StatusOr<std::vector<reference::ThroughputRow>> tput =
      reference::ReadThroughputFile(paths.inputs + "/throughput.csv");
  if (!tput.ok()) return tput.status();

  absl::StatusOr<std::unique_ptr<reference::FixStore>> store =
      reference::FixStore::Open(paths.data);
  if (!store.ok()) return store.status();
  reference::BuildOptions build{.from = from, .to = to, .calendar = calendar};
  absl::StatusOr<reference::BuildResult> built =
      reference::BuildFixes(*obs, *tput, build, store->get());
  if (!built.ok()) return built.status();

  DataResult result;
  result.observations = static_cast<int64_t>(obs->size());
  result.throughput_rows = static_cast<int64_t>(tput->size());
  result.records = static_cast<int64_t>(built->records.size());
  for (const common::Date d : days) {
    const common::Date prev = calendar.PreviousBusinessDay(d);
    for (const common::ProductConfig& p : config.products) {
      const std::string grade = p.grade.Key();
      absl::StatusOr<std::optional<reference::FixRecord>> rec = (*store)->Get(grade, d);
      if (!rec.ok()) return rec.status();
      FixUsed used{.grade = grade, .date = d};
      if (*rec) {
        used.fix_e4 = (*rec)->fix_e4;
        used.level = (*rec)->level;
        used.price_per_mtok_e4 = (*rec)->price_per_mtok_e4;
        used.flags = (*rec)->flags;
      }
      result.fixes.push_back(used);
      absl::StatusOr<std::optional<reference::FixRecord>> before = (*store)->Get(grade, prev);
      if (!before.ok()) return before.status();
      if (*before && (*before)->fix_e4) {
        result.prior_fix_e4[absl::StrCat(grade, "/", common::FormatDate(d))] = *(*before)->fix_e4;
      }
    }
  }
  log << "  " << result.observations << " observations, " << result.throughput_rows
      << " throughput rows (" << common::FormatDate(from) << " .. " << common::FormatDate(to)
      << ") -> " << paths.inputs << "/\n"
      << "  " << result.records << " fix records published to " << paths.data << "/reference ("
      << built->published << " new)\n";
  return result;
}

}  // namespace cfx::demo
