// The hot loop of the margin engine: scenario losses of many portfolios against one U table,
// and the rank-th largest loss of each. Two implementations with one contract — a threaded,
// vectorised CPU evaluator and a CUDA evaluator — so one test suite checks both.
//
//   UTable u = ...;                                   // int64 micro-USD, [c][s]
//   std::unique_ptr<Evaluator> ev = MakeEvaluator();   // CUDA if usable, else CPU
//   ev->SetTable(u); ev->SetPortfolios(batch);
//   std::vector<RankedLoss> worst; ev->Evaluate(/*rank=*/1, &worst);
#ifndef CFX_GPU_VALUATION_EVALUATOR_H_
#define CFX_GPU_VALUATION_EVALUATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cfx::gpu_valuation {

// U[c][s] in micro-USD, row-major: values[c * num_scenarios + s].
struct UTable {
  int32_t num_contracts = 0;
  int32_t num_scenarios = 0;
  std::vector<int64_t> values;
  int64_t At(int32_t c, int32_t s) const {
    return values[static_cast<size_t>(c) * num_scenarios + s];
  }
};

// Netted portfolios in CSR form: portfolio i holds entries [offsets[i], offsets[i+1]).
// Each entry is (contract index into the U table, signed quantity).
struct PortfolioBatch {
  std::vector<int64_t> offsets{0};
  std::vector<int32_t> contracts;
  std::vector<int64_t> qtys;
  size_t size() const { return offsets.size() - 1; }
  void AddEntry(int32_t contract, int64_t qty) {
    contracts.push_back(contract);
    qtys.push_back(qty);
  }
  void EndPortfolio() { offsets.push_back(static_cast<int64_t>(contracts.size())); }
};

// L(s) = -Σ qty × U[c][s]; the answer is the rank-th element of the scenarios ordered by
// (L desc, scenario index asc), so ties go to the lowest scenario.
struct RankedLoss {
  int64_t loss = 0;      // micro-USD, may be negative
  int32_t scenario = 0;  // 0-based index
  friend bool operator==(const RankedLoss&, const RankedLoss&) = default;
};

// Thread safety: not thread-safe; one caller at a time (MarginEngine serialises).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::string Name() const = 0;  // "cpu" or "cuda"
  // Copies the table (to the device for CUDA, where it stays resident).
  virtual absl::Status SetTable(const UTable& table) = 0;
  // Copies the portfolios (resident until the next call). REQUIRES: contract indices
  // < num_contracts, and no partial sum Σ|qty × U| of a portfolio overflows int64 (the
  // MarginEngine checks this).
  virtual absl::Status SetPortfolios(const PortfolioBatch& batch) = 0;
  // One RankedLoss per resident portfolio. REQUIRES: 1 <= rank <= num_scenarios.
  // Internal on a device failure.
  virtual absl::Status Evaluate(int32_t rank, std::vector<RankedLoss>* out) = 0;
};

// `threads` <= 0: std::thread::hardware_concurrency().
std::unique_ptr<Evaluator> MakeCpuEvaluator(int threads = 0);

namespace internal {
// The CPU evaluator's kernels (cpu_evaluator.cc); MakeCpuEvaluator picks the best one the
// CPU runs. For tests, which check each kernel this machine can run against one reference.
enum class CpuKernel { kAvx512, kAvx2, kBaseline };
// nullptr when this CPU cannot run `kernel`.
std::unique_ptr<Evaluator> MakeCpuEvaluatorWithKernel(CpuKernel kernel, int threads = 0);
}  // namespace internal

// True when this binary was built with the CUDA path.
bool CudaCompiledIn();
// Unavailable when not compiled in or no usable device; the message is the reason.
absl::StatusOr<std::unique_ptr<Evaluator>> MakeCudaEvaluator();

// The device the CUDA evaluator runs on, for reports (the bench's bandwidth floor).
struct DeviceDescription {
  std::string name;                      // "NVIDIA H200"
  double peak_memory_bytes_per_sec = 0;  // 2 x memory clock x bus width / 8
  int multiprocessors = 0;
};
// Unavailable as MakeCudaEvaluator; Internal when the device cannot be queried.
absl::StatusOr<DeviceDescription> DescribeCudaDevice();

enum class BackendChoice { kAuto, kCpu, kCuda };
// kAuto: CUDA when compiled in, CFX_FORCE_CPU is not "1" and cudaGetDeviceCount > 0 succeeds;
// otherwise the CPU (the reason goes to a debug log on stderr when CFX_DEBUG=1). With
// CFX_FORCE_CPU=1 no CUDA function is called. kCuda fails if CUDA is unusable.
absl::StatusOr<std::unique_ptr<Evaluator>> MakeEvaluator(BackendChoice choice = BackendChoice::kAuto);

}  // namespace cfx::gpu_valuation

#endif  // CFX_GPU_VALUATION_EVALUATOR_H_
