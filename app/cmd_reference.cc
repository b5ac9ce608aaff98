// `cfx reference build|explain|sample`: the benchmark administrator's commands (SPEC §8, §12).
// Thin: parse flags, call cfx_reference, print. Records go to stdout, everything else to stderr.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cfx/audit/audit_log.h"
#include "cfx/common/config.h"
#include "cfx/common/csv.h"
#include "cfx/common/decimal.h"
#include "cfx/reference/builder.h"
#include "cfx/reference/explain.h"
#include "cfx/reference/fix_store.h"
#include "cfx/reference/inputs.h"
#include "cfx/reference/sample_data.h"
#include "cfx/storage/private_files.h"
#include "holiday_list.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

struct BuildFlags {
  std::string observations, throughput, date, to, data_dir, format = "json", reason, holidays,
                                                            config;
  bool revise = false;
  bool market_wide = false;
};

struct ExplainFlags {
  std::string grade, date, data_dir, format = "text";
  int revision = -1;
};

struct SampleFlags {
  std::string out, from, to, holidays;
  uint64_t seed = 1;
  int providers = 30;
  int per_day = 40;
  std::string regions = "US,EU";
  std::string gpus = "B200";
};

// Parses a flag's date, or prints "--flag: reason" and returns nullopt.
std::optional<common::Date> FlagDate(const std::string& flag, const std::string& text) {
  absl::StatusOr<common::Date> d = common::ParseDate(text);
  if (!d.ok()) {
    Fail("reference", absl::StrCat(flag, ": ", common::Shown(d.status().message())));
    return std::nullopt;
  }
  return *d;
}

std::optional<std::vector<common::Date>> FlagHolidayList(const std::string& text) {
  std::vector<common::Date> days;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::optional<common::Date> d = FlagDate("--holidays", std::string(part));
    if (!d) return std::nullopt;
    days.push_back(*d);
  }
  return days;
}

std::optional<common::BusinessCalendar> FlagHolidays(const std::string& text) {
  std::optional<std::vector<common::Date>> days = FlagHolidayList(text);
  if (!days) return std::nullopt;
  return common::BusinessCalendar(std::move(*days));
}

// The holidays of a build and where they came from (for messages and the audit log).
struct BuildCalendar {
  std::vector<common::Date> holidays;
  std::string source;       // "--holidays", "--config", the terms file, or "" (none given)
  std::string config_path;  // the file read, if any
};

// The build's holidays: --holidays or --config; else, with --data-dir, the calendar of the
// exchange whose data dir it is (the settlement terms `cfx serve` and `cfx replay --config`
// keep there, which `cfx settle` settles by). Fixes stored in a data dir must count the
// business days its settlement counts (a fix for a holiday, or a window opened on the wrong
// previous business day, would be settled against), so a flag that disagrees with the data
// dir's calendar is refused, not preferred. Sets *out and returns 0, or prints the error and
// returns the exit status.
ExitCode ResolveBuildCalendar(const BuildFlags& f, BuildCalendar* out) {
  if (!f.config.empty()) {
    // The exchange's own list, so that the fixes, the last trading days (`cfx serve`) and
    // settlement (`cfx settle --config`) count the same business days.
    if (!f.holidays.empty()) {
      return Fail("reference build",
                  "--holidays and --config both give the holidays: use one (the config's "
                  "`holidays` is the exchange's list)",
                  2);
    }
    absl::StatusOr<common::ExchangeConfig> config = common::LoadConfigFile(f.config);
    if (!config.ok()) return Fail("reference build", config.status(), 2);
    *out = {Normalized(config->holidays), "--config", f.config};
  } else if (!f.holidays.empty()) {
    std::optional<std::vector<common::Date>> days = FlagHolidayList(f.holidays);
    if (!days) return 2;
    *out = {Normalized(std::move(*days)), "--holidays", ""};
  }
  if (f.data_dir.empty()) return 0;
  const std::string terms = common::SettlementTermsPath(f.data_dir);
  std::error_code ec;
  if (!std::filesystem::exists(terms, ec)) return 0;
  // Nothing is read from a data dir that others could write (docs/serve.md, "Privacy").
  if (absl::Status s = storage::CheckPrivateDir(f.data_dir); !s.ok()) {
    return Fail("reference build", absl::StrCat("--data-dir: ", s.message()));
  }
  absl::StatusOr<common::ExchangeConfig> exchange = common::LoadKeptSettlementTerms(terms);
  if (!exchange.ok()) return Fail("reference build", exchange.status(), 2);
  std::vector<common::Date> kept = Normalized(exchange->holidays);
  if (out->source.empty()) {
    *out = {std::move(kept), terms, terms};
    return 0;
  }
  if (out->holidays != kept) {
    return Fail("reference build",
                absl::StrCat(out->source, ": its holidays (", HolidayText(out->holidays),
                             ") are not those of the exchange whose data dir --data-dir is (",
                             HolidayText(kept), ", in ", terms,
                             "); fixes stored there are settled by that calendar: drop ",
                             out->source, " to use it, or correct the exchange's config"),
                2);
  }
  return 0;
}

// Who ran the command, for the audit log: the login name of the effective user (its uid if
// it has none).
std::string OperatorName() {
  if (const passwd* pw = getpwuid(geteuid()); pw != nullptr && pw->pw_name != nullptr) {
    return pw->pw_name;
  }
  return absl::StrCat("uid:", geteuid());
}

// The longest --date..--to (or --from..--to) range a command takes, in days.
constexpr int kMaxRangeDays = 3660;

ExitCode RunBuild(const BuildFlags& f) {
  std::optional<common::Date> from = FlagDate("--date", f.date);
  if (!from) return 2;
  std::optional<common::Date> to = f.to.empty() ? from : FlagDate("--to", f.to);
  if (!to) return 2;
  // A range is held in memory whole (records, and the days' observations): ten years at
  // most (`--to 9999-12-31` grew past 6 GB before anything was printed).
  if (to->days - from->days > kMaxRangeDays) {
    return Fail("reference build",
                absl::StrCat("--to: at most ", kMaxRangeDays, " days after --date"), 2);
  }
  BuildCalendar holidays;
  if (ExitCode rc = ResolveBuildCalendar(f, &holidays); rc != 0) return rc;
  const common::BusinessCalendar calendar(holidays.holidays);
  if (f.format != "json" && f.format != "csv") {
    return Fail("reference build", "--format: must be json or csv, got '" + f.format + "'", 2);
  }
  // Every flag is checked before anything is read or created: a refused run leaves no data
  // dir, store or audit log behind (SPEC §11). BuildFixes checks the same again.
  if (*to < *from) return Fail("reference build", "--to: before --date", 2);
  if (f.revise && f.reason.empty()) {
    return Fail("reference build", "--reason: --revise needs a non-empty --reason", 2);
  }
  // A reason is recorded only with a revision: without --revise nothing would keep it, and
  // an operator who meant to revise would see the day's record unchanged.
  if (!f.revise && !f.reason.empty()) {
    return Fail("reference build",
                "--reason: a reason is recorded with a revision only; add --revise to revise "
                "the stored records, or drop --reason",
                2);
  }
  if (f.revise && f.data_dir.empty()) {
    return Fail("reference build", "--data-dir: --revise needs it (revisions are stored)", 2);
  }
  // The reason goes into JSON (the store, `reference explain`): bytes that are not UTF-8
  // (a Latin-1 terminal) ended the run in the JSON library's error, naming no flag.
  try {
    (void)nlohmann::json(f.reason).dump();
  } catch (const nlohmann::json::exception&) {
    return Fail("reference build",
                "--reason: not UTF-8 text ('" + common::Shown(f.reason) + "'): write it in UTF-8",
                2);
  }
  if (calendar.BusinessDays(*from, *to).empty()) {
    return Fail("reference build",
                absl::StrCat(f.to.empty() ? "--date: " : "--date/--to: ", "no business day in ",
                             common::FormatDate(*from), "..", common::FormatDate(*to),
                             " (weekends and holidays have no fix)"),
                2);
  }
  absl::StatusOr<std::vector<reference::Observation>> obs =
      reference::ReadObservationsFile(f.observations);
  if (!obs.ok()) return Fail("reference build", obs.status());
  absl::StatusOr<std::vector<reference::ThroughputRow>> tput =
      reference::ReadThroughputFile(f.throughput);
  if (!tput.ok()) return Fail("reference build", tput.status());
  // The builder's bound on records a run holds, checked before a data dir is made (a run it
  // refuses leaves nothing behind; until 2026-12-07 it left an empty store and audit log, a
  // review). The store's grades can only add to it: the builder checks again.
  {
    std::set<std::string> grades, regions;
    for (const reference::Observation& o : *obs) {
      grades.insert(absl::StrCat(o.gpu, "-", common::TierName(o.tier), "-", o.region));
      regions.insert(o.region);
    }
    const uint64_t days = calendar.BusinessDays(*from, *to).size();
    const uint64_t records = (grades.size() + regions.size()) * days;
    if (records > reference::kMaxRecordsPerRun) {
      return Fail("reference build",
                  absl::StrCat("the observations name ", grades.size(), " grades, which over ",
                               days, " business days make ", records, " records, more than ",
                               reference::kMaxRecordsPerRun,
                               " in one run: build fewer days at a time; nothing was written"));
    }
  }
  std::unique_ptr<reference::FixStore> store;
  std::unique_ptr<audit::AuditLog> audit;
  if (!f.data_dir.empty()) {
    if (absl::Status s = storage::PrepareDataDir(f.data_dir, /*create=*/true); !s.ok()) {
      return Fail("reference build", absl::StrCat("--data-dir: ", s.message()));
    }
    absl::StatusOr<std::unique_ptr<audit::AuditLog>> audit_log =
        audit::AuditLog::Open(f.data_dir + "/audit.log");
    if (!audit_log.ok()) return Fail("reference build", audit_log.status());
    audit = *std::move(audit_log);
    if (!holidays.config_path.empty()) {
      audit->Record("config_load",
                    {{"command", "reference build"}, {"path", holidays.config_path}});
    }
    absl::StatusOr<std::unique_ptr<reference::FixStore>> opened =
        reference::FixStore::Open(f.data_dir);
    if (!opened.ok()) {
      return Fail("reference build", absl::StrCat("--data-dir: ", opened.status().message()));
    }
    store = std::move(*opened);
  }
  reference::BuildOptions options{.from = *from,
                                  .to = *to,
                                  .calendar = calendar,
                                  .revise = f.revise,
                                  .reason = f.reason,
                                  .market_wide = true,
                                  .throughput_file = f.throughput};
  absl::StatusOr<reference::BuildResult> result =
      reference::BuildFixes(*obs, *tput, options, store.get());
  if (!result.ok()) return Fail("reference build", result.status());
  const std::string by = OperatorName();
  for (const reference::PublishItem& item : result->stored) {  // only with a store
    const reference::FixRecord& r = item.record;
    audit->Record(item.revision == 0 ? "reference_publish" : "reference_revision",
                  {{"grade", r.grade},
                   {"date", common::FormatDate(r.date)},
                   {"revision", std::to_string(item.revision)},
                   {"fix", r.fix_e4 ? common::FormatScaled(*r.fix_e4, 4) : "null"},
                   {"reason", item.reason},
                   {"methodology", r.methodology},
                   {"inputs_sha256", r.inputs_sha256.value_or("")},
                   {"by", by}});
  }
  // A first publication of a measurement is audited as a first fix is: it drives θ, the
  // price per token and every TSR margin (until 2026-12-06 only its revisions were).
  for (const reference::OperatorThroughput& row : result->throughput_stored) {
    audit->Record("reference_throughput_publish",
                  {{"gpu", row.gpu},
                   {"operator", row.operator_name},
                   {"tier", common::TierName(row.tier)},
                   {"date", common::FormatDate(row.date)},
                   {"revision", "0"},
                   {"output_tps_per_gpu", common::FormatMeasure(row.output_tps_per_gpu)},
                   {"by", by}});
  }
  for (const reference::ThroughputCorrection& c : result->throughput_revised) {
    const reference::OperatorThroughput& row = c.stored.row;
    audit->Record("reference_throughput_revision",
                  {{"gpu", row.gpu},
                   {"operator", row.operator_name},
                   {"tier", common::TierName(row.tier)},
                   {"date", common::FormatDate(row.date)},
                   {"revision", std::to_string(c.stored.revision)},
                   {"output_tps_per_gpu", common::FormatMeasure(row.output_tps_per_gpu)},
                   {"previous", common::FormatMeasure(c.previous.output_tps_per_gpu)},
                   {"reason", c.stored.reason},
                   {"by", by}});
  }
  for (const std::string& w : result->warnings)
    std::cerr << "cfx reference build: warning: " << w << "\n";
  std::string out;
  if (f.format == "csv") out = reference::RecordCsvHeader() + "\n";
  for (const reference::FixRecord& r : result->records) {
    if (!f.market_wide && r.HasFlag(reference::kFlagMarketWide)) continue;
    out += f.format == "csv" ? reference::RecordToCsv(r) : reference::RecordToJson(r);
    out += '\n';
  }
  std::cout << out << std::flush;
  std::cerr << "cfx reference build: " << obs->size() << " observations, " << tput->size()
            << " throughput rows; " << result->records.size() << " records";
  if (store) {
    std::cerr << "; stored " << result->published << " new, " << result->revised << " revisions in "
              << f.data_dir << "/reference";
    if (!result->throughput_revised.empty()) {
      std::cerr << " (and " << result->throughput_revised.size() << " throughput revisions)";
    }
  }
  std::cerr << "\n";
  return 0;
}

ExitCode RunExplain(const ExplainFlags& f) {
  std::optional<common::Date> date = FlagDate("--date", f.date);
  if (!date) return 2;
  if (f.format != "text" && f.format != "json") {
    return Fail("reference explain", "--format: must be text or json, got '" + f.format + "'", 2);
  }
  if (absl::Status s = storage::PrepareDataDir(f.data_dir, /*create=*/false); !s.ok()) {
    return Fail("reference explain", absl::StrCat("--data-dir: ", s.message()));
  }
  // A read-only command: a data dir where no fix was ever built has nothing to explain, and
  // opening the store there must not create it.
  absl::StatusOr<std::unique_ptr<reference::FixStore>> store =
      reference::FixStore::Open(f.data_dir, /*create=*/false);
  if (absl::IsNotFound(store.status())) {
    return Fail("reference explain",
                absl::StrCat("--data-dir: no reference fixes stored under ", f.data_dir, " (no ",
                             f.data_dir, "/reference; `cfx reference build` stores them)"));
  }
  if (!store.ok()) {
    return Fail("reference explain", absl::StrCat("--data-dir: ", store.status().message()));
  }
  std::optional<int> revision;
  if (f.revision >= 0) revision = f.revision;
  absl::StatusOr<std::optional<std::string>> json =
      (*store)->Explanation(f.grade, *date, revision);
  if (!json.ok()) return Fail("reference explain", json.status());
  if (!json->has_value()) {
    return Fail("reference explain",
                absl::StrCat("no explanation stored for ", f.grade, " ", f.date,
                             revision ? absl::StrCat(" revision ", *revision) : "",
                             " (never published, or published before ",
                             reference::kMethodologyVersion, ")"));
  }
  // Read in full in either format: a damaged record (a page of the store overwritten) is
  // refused naming the store's file, not printed as it is.
  // The json format is judged as HTTP serves it (CheckExplanationJson); the text format
  // also needs every field it renders.
  absl::StatusOr<std::string> text = std::string();
  if (f.format == "json") {
    if (absl::Status s = reference::CheckExplanationJson(**json); !s.ok()) text = s;
  } else {
    text = reference::ExplanationText(**json);
  }
  if (!text.ok()) {
    return Fail("reference explain",
                absl::DataLossError(absl::StrCat(
                    f.data_dir, "/reference/data.mdb: the explanation stored for ", f.grade, " ",
                    f.date, revision ? absl::StrCat(" revision ", *revision) : "", " is damaged (",
                    text.status().message(), ")")));
  }
  std::cout << (f.format == "json" ? **json + "\n" : *text) << std::flush;
  return 0;
}

// What `reference sample` builds in memory at most (about 3 GB).
constexpr int64_t kMaxSampleObservations = 20'000'000;

ExitCode RunSample(const SampleFlags& f) {
  std::optional<common::Date> from = FlagDate("--from", f.from);
  if (!from) return 2;
  std::optional<common::Date> to = FlagDate("--to", f.to);
  if (!to) return 2;
  if (to->days - from->days > kMaxRangeDays) {
    return Fail("reference sample",
                absl::StrCat("--to: at most ", kMaxRangeDays, " days after --from"), 2);
  }
  // The sample is built in memory: 20 million observations a grade at most.
  if (static_cast<int64_t>(to->days - from->days + 1) * f.per_day > kMaxSampleObservations) {
    return Fail("reference sample",
                "--per-day x the days from --from to --to: at most 20,000,000 observations", 2);
  }
  std::optional<common::BusinessCalendar> calendar = FlagHolidays(f.holidays);
  if (!calendar) return 2;
  reference::SampleOptions options;
  options.from = *from;
  options.to = *to;
  options.seed = f.seed;
  options.providers = f.providers;
  options.observations_per_grade_day = f.per_day;
  options.calendar = *calendar;
  options.regions = absl::StrSplit(f.regions, ',', absl::SkipEmpty());
  options.gpus = absl::StrSplit(f.gpus, ',', absl::SkipEmpty());
  for (const std::string& r : options.regions) {
    if (!common::IsKnownRegion(r)) {
      return Fail("reference sample", "--regions: unknown region '" + r + "'", 2);
    }
  }
  for (const std::string& g : options.gpus) {
    if (!common::IsValidGpuName(g)) {
      return Fail("reference sample", "--gpus: bad gpu name '" + g + "'", 2);
    }
  }
  if (*to < *from) return Fail("reference sample", "--to is before --from", 2);
  // And in all: every grade (gpu x tier x region) gets --per-day a day, so the lists, which
  // are not bounded themselves (a name may come twice), multiply it. Until 2026-12-07 only a
  // grade's count was: 48 grades of a year at 50,000 a day ran out of memory and aborted.
  const int64_t grades = static_cast<int64_t>(options.gpus.size()) * common::kNumTiers *
                         static_cast<int64_t>(options.regions.size());
  if (grades * (to->days - from->days + 1) * f.per_day > kMaxSampleObservations) {
    return Fail("reference sample",
                absl::StrCat("--per-day x the days x the ", grades,
                             " grades (--gpus x 4 tiers x --regions): at most 20,000,000 "
                             "observations in all"),
                2);
  }
  reference::SampleData data = reference::GenerateSample(options);
  if (absl::Status s = reference::WriteSampleFiles(data, f.out); !s.ok()) {
    return Fail("reference sample", s);
  }
  std::cerr << "cfx reference sample: wrote " << data.observations.size() << " observations and "
            << data.throughput.size() << " throughput rows to " << f.out << "\n";
  return 0;
}

void SetupReference(CLI::App& parent, ExitCode* rc) {
  CLI::App* group =
      parent.add_subcommand("reference", "Reference rates (the rental price benchmark)");
  group->require_subcommand(1);

  auto [build, build_flags] = AddCommand<BuildFlags>(
      *group, rc, "build",
      "Compute (and with --data-dir, publish) the daily fixes; records on stdout", RunBuild);
  build->add_option("--observations", build_flags->observations, "observations.csv")->required();
  build->add_option("--throughput", build_flags->throughput, "throughput.csv")->required();
  build->add_option("--date", build_flags->date, "Business date D (YYYY-MM-DD)")->required();
  build->add_option("--to", build_flags->to, "Last date of the range (default: --date)");
  build->add_option("--data-dir", build_flags->data_dir,
                    "Store fixes in DIR/reference (LMDB); needed for level-3 carries across runs");
  build->add_option("--format", build_flags->format, "json (default) or csv");
  build->add_flag("--revise", build_flags->revise,
                  "Store differing recomputations of published dates as revisions");
  build->add_option("--reason", build_flags->reason, "Reason recorded with a revision");
  build->add_option("--holidays", build_flags->holidays,
                    "Comma-separated non-business dates (YYYY-MM-DD,...); default: the "
                    "exchange's, kept in --data-dir");
  build->add_option("--config", build_flags->config,
                    "Exchange TOML config: its holidays (instead of --holidays; must match "
                    "those kept in --data-dir)");
  build->add_flag("--market-wide", build_flags->market_wide,
                  "Also print the market-wide ALL-<REGION> series (always stored)");

  auto [explain, explain_flags] = AddCommand<ExplainFlags>(
      *group, rc, "explain",
      "Print how a published fix was determined: every eligible observation and its fate, "
      "the level decision, m, MAD, the cap and the weighted percentiles",
      RunExplain);
  explain->add_option("--grade", explain_flags->grade, "Grade (e.g. B200-GOLD-US, ALL-US)")
      ->required();
  explain->add_option("--date", explain_flags->date, "Business date (YYYY-MM-DD)")->required();
  explain->add_option("--data-dir", explain_flags->data_dir, "Data dir of the reference store")
      ->required();
  explain->add_option("--format", explain_flags->format, "text (default) or json");
  explain
      ->add_option("--revision", explain_flags->revision,
                   "Revision to explain (default: the latest)")
      ->check(CLI::NonNegativeNumber);

  auto [sample, sample_flags] = AddCommand<SampleFlags>(
      *group, rc, "sample", "Write seeded sample observations.csv and throughput.csv", RunSample);
  sample->add_option("--out", sample_flags->out, "Output folder")->required();
  sample->add_option("--from", sample_flags->from, "First date (YYYY-MM-DD)")->required();
  sample->add_option("--to", sample_flags->to, "Last date (YYYY-MM-DD)")->required();
  sample->add_option("--seed", sample_flags->seed, "Random seed (default 1)");
  sample->add_option("--providers", sample_flags->providers, "Number of providers (default 30)")
      ->check(CLI::Range(1, 10000));
  sample
      ->add_option("--per-day", sample_flags->per_day,
                   "Mean observations per grade and day (default 40)")
      ->check(CLI::Range(1, 1000000));
  sample->add_option("--regions", sample_flags->regions, "Comma-separated regions (default US,EU)");
  sample->add_option("--gpus", sample_flags->gpus, "Comma-separated GPUs (default B200)");
  sample->add_option("--holidays", sample_flags->holidays, "Comma-separated non-business dates");
}

CFX_REGISTER_COMMAND("", SetupReference);

}  // namespace
}  // namespace cfx::app
