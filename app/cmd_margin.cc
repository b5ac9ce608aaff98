// `cfx margin`: scenario margin per account from CSV files (SPEC §10, §12).
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cfx/common/date.h"
#include "cfx/gpu_valuation/csv_inputs.h"
#include "cfx/gpu_valuation/margin_engine.h"
#include "cfx/gpu_valuation/margin_json.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

namespace gv = cfx::gpu_valuation;

struct MarginFlags {
  std::string positions;
  std::string prices;
  std::string throughput;
  std::string date;
  std::string method = "span16";
  std::string scenarios;
  double psr = gv::kDefaultPsr;
  int32_t mc_scenarios = gv::kDefaultMcScenarios;
  uint64_t seed = gv::kDefaultMcSeed;
};

// Which flags were given: a flag that the chosen scenarios do not use is a usage error, not
// silently ignored (a `--psr` beside `--scenarios` would let its user think it applied).
struct MarginFlagsGiven {
  bool method = false;
  bool psr = false;
  bool mc = false;  // --mc-scenarios or --seed
};

ExitCode RunMargin(const MarginFlags& flags, const MarginFlagsGiven& given) {
  absl::StatusOr<common::Date> date = common::ParseDate(flags.date);
  if (!date.ok()) return Fail("margin", "--date: expected YYYY-MM-DD", 2);
  const bool method_given = given.method;
  if (!flags.scenarios.empty() && given.psr) {
    return Fail("margin", "--psr applies to span16 and mc; a --scenarios file has its own moves",
                2);
  }
  if (given.mc && (flags.method != "mc" || !flags.scenarios.empty())) {
    return Fail("margin", "--mc-scenarios and --seed apply to --method mc only", 2);
  }
  gv::MarginOptions options;
  options.as_of = *date;
  options.psr = flags.psr;
  options.mc_scenarios = flags.mc_scenarios;
  options.mc_seed = flags.seed;
  if (!flags.scenarios.empty()) {
    if (method_given) {
      return Fail("margin", "--scenarios replaces --method; give one of them", 2);
    }
    absl::StatusOr<gv::ScenarioSet> file = gv::ReadScenarioFile(flags.scenarios);
    if (!file.ok()) return Fail("margin", file.status());
    options.method = gv::ScenarioMethod::kFile;
    options.file_scenarios = std::move(*file);
  } else if (flags.method == "mc") {
    options.method = gv::ScenarioMethod::kMonteCarlo;
  } else {
    options.method = gv::ScenarioMethod::kSpan16;
  }
  auto prices = gv::ReadPricesCsv(flags.prices);
  if (!prices.ok()) return Fail("margin", prices.status());
  auto rows = gv::ReadPositionsCsv(flags.positions);
  if (!rows.ok()) return Fail("margin", rows.status());
  auto throughput = gv::ReadThroughputCsv(flags.throughput);
  if (!throughput.ok()) return Fail("margin", throughput.status());
  auto accounts = gv::GroupByAccount(*rows, *prices, flags.positions);
  if (!accounts.ok()) return Fail("margin", accounts.status());
  auto engine = gv::MarginEngine::Create(*prices, *throughput, options);
  if (!engine.ok()) return Fail("margin", engine.status());
  auto results = (*engine)->ComputeMany(*accounts);
  if (absl::IsInvalidArgument(results.status()) || absl::IsNotFound(results.status())) {
    // About one account's rows of the positions file (their sum too large to value exactly,
    // a contract without a price): the file is named, as every input error is (SPEC §11).
    return Fail("margin",
                absl::Status(results.status().code(),
                             absl::StrCat(flags.positions, ": ", results.status().message())));
  }
  if (!results.ok()) return Fail("margin", results.status());
  // Everything is computed before anything is printed: an error leaves no partial output.
  std::string out;
  for (const gv::MarginResult& r : *results) {
    out += gv::MarginResultToJson(r);
    out += '\n';
  }
  std::cout << out << std::flush;
  return 0;
}

void SetupMargin(CLI::App& parent, ExitCode* rc) {
  auto flags = std::make_shared<MarginFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "margin", "Scenario margin per account (span16, mc or a scenario file); one JSON line each");
  cmd->add_option("--positions", flags->positions, "CSV account,sym,qty")->required();
  cmd->add_option("--prices", flags->prices, "CSV sym,settle (latest settlement prices)")
      ->required();
  cmd->add_option("--throughput", flags->throughput,
                  "throughput.csv (date,operator,tier,gpu,model,isl,osl,output_tps_per_gpu)")
      ->required();
  cmd->add_option("--date", flags->date, "valuation date YYYY-MM-DD; throughput rows <= date")
      ->required();
  CLI::Option* method = cmd->add_option("--method", flags->method, "span16 (default) or mc")
                            ->check(CLI::IsMember({"span16", "mc"}));
  cmd->add_option(
      "--scenarios", flags->scenarios,
      "scenario CSV scenario,weight,price_move,tput_PLAT,tput_GOLD,tput_SILV,tput_BRNZ");
  CLI::Option* psr =
      cmd->add_option("--psr", flags->psr, "price scan range, (0, 1/3] (default 0.15)")
          ->check(CLI::Validator(
              [](std::string& v) -> std::string {
                double x = 0;
                if (!absl::SimpleAtod(v, &x) || !(x > 0.0 && x <= gv::kMaxPsr)) {
                  return "must be in (0, 1/3], got " + v;
                }
                return "";
              },
              "(0, 1/3]"));
  CLI::Option* mc = cmd->add_option("--mc-scenarios", flags->mc_scenarios,
                                    "mc scenario count, 1 .. 1000000 (default 10000)")
                        ->check(CLI::Range(1, gv::kMaxScenarios));
  CLI::Option* seed =
      cmd->add_option("--seed", flags->seed, "mc seed")->check(CLI::NonNegativeNumber);
  cmd->callback([flags, method, psr, mc, seed, rc] {
    MarginFlagsGiven given;
    given.method = method->count() > 0;
    given.psr = psr->count() > 0;
    given.mc = mc->count() > 0 || seed->count() > 0;
    *rc = RunMargin(*flags, given);
  });
}

CFX_REGISTER_COMMAND("", SetupMargin);

}  // namespace
}  // namespace cfx::app
