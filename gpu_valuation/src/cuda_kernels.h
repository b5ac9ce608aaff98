// Plain C++ interface to the CUDA kernels (cuda_kernels.cu), so that neither absl nor any
// CUDA type crosses between nvcc- and g++-compiled code. Every function returns false and
// fills *error on failure; no function aborts or prints.
#ifndef CFX_GPU_VALUATION_SRC_CUDA_KERNELS_H_
#define CFX_GPU_VALUATION_SRC_CUDA_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace cfx::gpu_valuation::internal {

struct CudaState;  // device buffers of one evaluator

// True when cudaGetDeviceCount succeeds with at least one device; else the reason.
bool CudaDeviceUsable(std::string* why);
// Device 0: its name, peak memory bandwidth (2 × memory clock × bus width, bytes/s) and
// multiprocessor count.
bool CudaDescribe(std::string* name, double* peak_memory_bytes_per_sec, int* multiprocessors,
                  std::string* error);
CudaState* CudaCreate(std::string* error);
void CudaDestroy(CudaState* state);
bool CudaSetTable(CudaState* state, const int64_t* values, int32_t num_contracts,
                  int32_t num_scenarios, std::string* error);
bool CudaSetPortfolios(CudaState* state, const int64_t* offsets, size_t num_portfolios,
                       const int32_t* contracts, const int64_t* qtys, size_t num_entries,
                       std::string* error);
// out_loss/out_scenario: num_portfolios host elements each.
bool CudaEvaluate(CudaState* state, int32_t rank, int64_t* out_loss, int32_t* out_scenario,
                  std::string* error);

}  // namespace cfx::gpu_valuation::internal

#endif  // CFX_GPU_VALUATION_SRC_CUDA_KERNELS_H_
