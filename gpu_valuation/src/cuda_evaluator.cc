// The Evaluator interface over the CUDA kernels (built only with CFX_HAVE_CUDA).
#include "absl/strings/str_cat.h"
#include "cfx/gpu_valuation/evaluator.h"
#include "cuda_kernels.h"

namespace cfx::gpu_valuation {
namespace {

class CudaEvaluator final : public Evaluator {
 public:
  explicit CudaEvaluator(internal::CudaState* state) : state_(state) {}
  ~CudaEvaluator() override { internal::CudaDestroy(state_); }
  CudaEvaluator(const CudaEvaluator&) = delete;
  CudaEvaluator& operator=(const CudaEvaluator&) = delete;

  std::string Name() const override { return "cuda"; }

  absl::Status SetTable(const UTable& table) override {
    std::string error;
    if (!internal::CudaSetTable(state_, table.values.data(), table.num_contracts,
                                table.num_scenarios, &error)) {
      return absl::InternalError(absl::StrCat("cuda: ", error));
    }
    num_scenarios_ = table.num_scenarios;
    return absl::OkStatus();
  }

  absl::Status SetPortfolios(const PortfolioBatch& batch) override {
    std::string error;
    if (!internal::CudaSetPortfolios(state_, batch.offsets.data(), batch.size(),
                                     batch.contracts.data(), batch.qtys.data(),
                                     batch.contracts.size(), &error)) {
      return absl::InternalError(absl::StrCat("cuda: ", error));
    }
    num_portfolios_ = batch.size();
    return absl::OkStatus();
  }

  absl::Status Evaluate(int32_t rank, std::vector<RankedLoss>* out) override {
    if (rank < 1 || rank > num_scenarios_) return absl::InvalidArgumentError("rank out of range");
    std::vector<int64_t> loss(num_portfolios_);
    std::vector<int32_t> scenario(num_portfolios_);
    std::string error;
    if (!internal::CudaEvaluate(state_, rank, loss.data(), scenario.data(), &error)) {
      return absl::InternalError(absl::StrCat("cuda: ", error));
    }
    out->resize(num_portfolios_);
    for (size_t i = 0; i < num_portfolios_; ++i) (*out)[i] = {loss[i], scenario[i]};
    return absl::OkStatus();
  }

 private:
  internal::CudaState* state_;
  int32_t num_scenarios_ = 0;
  size_t num_portfolios_ = 0;
};

}  // namespace

bool CudaCompiledIn() { return true; }

absl::StatusOr<std::unique_ptr<Evaluator>> MakeCudaEvaluator() {
  std::string why;
  if (!internal::CudaDeviceUsable(&why)) {
    return absl::UnavailableError(why);
  }
  internal::CudaState* state = internal::CudaCreate(&why);
  if (state == nullptr) return absl::UnavailableError(why);
  return std::unique_ptr<Evaluator>(new CudaEvaluator(state));
}

absl::StatusOr<DeviceDescription> DescribeCudaDevice() {
  std::string why;
  if (!internal::CudaDeviceUsable(&why)) return absl::UnavailableError(why);
  DeviceDescription d;
  if (!internal::CudaDescribe(&d.name, &d.peak_memory_bytes_per_sec, &d.multiprocessors, &why)) {
    return absl::InternalError(absl::StrCat("cuda: ", why));
  }
  return d;
}

}  // namespace cfx::gpu_valuation
