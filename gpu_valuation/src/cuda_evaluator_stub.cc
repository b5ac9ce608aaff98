// Built when nvcc was not found (or CFX_CUDA=OFF): the CUDA evaluator is absent, cleanly.
#include "cfx/gpu_valuation/evaluator.h"

namespace cfx::gpu_valuation {

bool CudaCompiledIn() { return false; }

absl::StatusOr<std::unique_ptr<Evaluator>> MakeCudaEvaluator() {
  return absl::UnavailableError("built without the CUDA path (nvcc not found or CFX_CUDA=OFF)");
}

absl::StatusOr<DeviceDescription> DescribeCudaDevice() {
  return absl::UnavailableError("built without the CUDA path (nvcc not found or CFX_CUDA=OFF)");
}

}  // namespace cfx::gpu_valuation
