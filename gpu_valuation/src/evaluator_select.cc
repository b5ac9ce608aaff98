#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "cfx/gpu_valuation/evaluator.h"

namespace cfx::gpu_valuation {
namespace {

bool EnvIs(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

void DebugLog(const std::string& line) {
  if (EnvIs("CFX_DEBUG", "1")) std::fprintf(stderr, "cfx gpu_valuation: %s\n", line.c_str());
}

}  // namespace

absl::StatusOr<std::unique_ptr<Evaluator>> MakeEvaluator(BackendChoice choice) {
  if (choice == BackendChoice::kCpu) return MakeCpuEvaluator();
  if (choice == BackendChoice::kAuto && EnvIs("CFX_FORCE_CPU", "1")) {
    DebugLog("CFX_FORCE_CPU=1: using the CPU evaluator");
    return MakeCpuEvaluator();
  }
  absl::StatusOr<std::unique_ptr<Evaluator>> cuda = MakeCudaEvaluator();
  if (cuda.ok() || choice == BackendChoice::kCuda) return cuda;
  DebugLog(absl::StrCat("using the CPU evaluator: ", cuda.status().message()));
  return MakeCpuEvaluator();
}

}  // namespace cfx::gpu_valuation
