// `cfx margin`: scenario margin per account from CSV files (SPEC §10, §12).
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
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

ExitCode RunMargin(const MarginFlags& flags, bool method_given) {
  absl::StatusOr<common::Date> date = common::ParseDate(flags.date);
  if (!date.ok()) return Fail("margin", "--date: expected YYYY-MM-DD");
  gv::MarginOptions options;
  options.as_of = *date;
  options.psr = flags.psr;
  options.mc_scenarios = flags.mc_scenarios;
  options.mc_seed = flags.seed;
  if (!flags.scenarios.empty()) {
    if (method_given) {
      return Fail("margin", "--scenarios replaces --method; give one of them");
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
  cmd->add_option("--psr", flags->psr, "price scan range, (0, 1/3] (default 0.15)");
  cmd->add_option("--mc-scenarios", flags->mc_scenarios, "mc scenario count (default 10000)");
  cmd->add_option("--seed", flags->seed, "mc seed")->check(CLI::NonNegativeNumber);
  cmd->callback([flags, method, rc] { *rc = RunMargin(*flags, method->count() > 0); });
}

CFX_REGISTER_COMMAND("", SetupMargin);

}  // namespace
}  // namespace cfx::app
