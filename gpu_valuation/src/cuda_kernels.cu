// CUDA evaluator kernels. One thread block per portfolio (grid-stride over portfolios), its
// threads over scenarios: thread j computes L(s) = -Σ qty × U[c][s] for s = j, j+B, ... so
// that a warp reads 32 consecutive U entries of a contract row (coalesced), and positions'
// (contract, qty) are broadcast loads. The losses of the portfolio stay in shared memory
// (or a per-block global scratch when they do not fit) for the selection of the rank-th
// largest: a binary search on the loss value with block-wide counts, then an ordered scan
// of the ties, so the answer is the same total order as the CPU's (loss desc, index asc).
// Block reductions use warp shuffles and __syncthreads, never atomics; the arithmetic is
// int64 only, so results are bit-identical to the CPU path.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "cuda_kernels.h"

namespace cfx::gpu_valuation::internal {
namespace {

constexpr int kMaxThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;
// Global scratch (only for scenario counts beyond shared memory) is capped at this size.
constexpr size_t kMaxScratchBytes = size_t{1} << 30;

struct MaxOp {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};
struct MinOp {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};
struct SumOp {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return a + b; }
};

// Every thread of the block gets the reduction of `v`. REQUIRES: blockDim.x % 32 == 0 and
// all threads call it (it synchronises). `shared` holds 32 values.
template <typename Op>
__device__ int64_t BlockReduce(int64_t v, Op op, int64_t* shared) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int num_warps = blockDim.x >> 5;
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = op(v, __shfl_xor_sync(kFullMask, v, offset));
  }
  __syncthreads();  // the previous user of `shared` is done reading it
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  int64_t r = shared[0];
  for (int w = 1; w < num_warps; ++w) r = op(r, shared[w]);
  return r;
}

// Exclusive prefix sum of `v` in thread order. Same requirements as BlockReduce.
__device__ int64_t BlockExclusiveScan(int64_t v, int64_t* shared) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  int64_t inclusive = v;
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int64_t y = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive += y;
  }
  __syncthreads();
  if (lane == 31) shared[warp] = inclusive;
  __syncthreads();
  int64_t before = 0;
  for (int w = 0; w < warp; ++w) before += shared[w];
  return before + inclusive - v;
}

__global__ void MarginKernel(const int64_t* __restrict__ u, int32_t ns,
                             const int64_t* __restrict__ offsets,
                             const int32_t* __restrict__ contracts,
                             const int64_t* __restrict__ qtys, int64_t num_portfolios,
                             int32_t rank, int64_t* scratch, int use_shared,
                             int64_t* __restrict__ out_loss, int32_t* __restrict__ out_scenario) {
  extern __shared__ int64_t dynamic_shared[];
  __shared__ int64_t reduce_buffer[32];
  int64_t* loss = use_shared ? dynamic_shared : scratch + static_cast<size_t>(blockIdx.x) * ns;
  // Contiguous slice of scenarios per thread for the ordered tie scan.
  const int32_t chunk = (ns + blockDim.x - 1) / blockDim.x;
  const int32_t chunk_begin = min(ns, static_cast<int32_t>(threadIdx.x) * chunk);
  const int32_t chunk_end = min(ns, chunk_begin + chunk);

  for (int64_t acct = blockIdx.x; acct < num_portfolios; acct += gridDim.x) {
    const int64_t begin = offsets[acct];
    const int64_t end = offsets[acct + 1];
    int64_t local_max = LLONG_MIN;
    int64_t local_min = LLONG_MAX;
    for (int32_t s = threadIdx.x; s < ns; s += blockDim.x) {
      int64_t acc = 0;
      for (int64_t p = begin; p < end; ++p) {
        acc -= qtys[p] * u[static_cast<size_t>(contracts[p]) * ns + s];
      }
      loss[s] = acc;
      local_max = max(local_max, acc);
      local_min = min(local_min, acc);
    }
    // BlockReduce synchronises, which also publishes `loss` to the whole block.
    const int64_t top = BlockReduce(local_max, MaxOp(), reduce_buffer);
    int64_t value = top;
    if (rank > 1) {
      // Largest v with count(L >= v) >= rank: that is the rank-th largest loss value.
      int64_t lo = BlockReduce(local_min, MinOp(), reduce_buffer);
      int64_t hi = top;
      while (lo < hi) {
        const uint64_t width = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
        const int64_t mid = lo + static_cast<int64_t>(width / 2 + (width & 1));
        int64_t count = 0;
        for (int32_t s = threadIdx.x; s < ns; s += blockDim.x) count += loss[s] >= mid;
        count = BlockReduce(count, SumOp(), reduce_buffer);
        if (count >= rank) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      value = lo;
    }
    // The answer is the first scenario, in index order, whose loss == value (SPEC §10: ties
    // go to the lowest number, whatever the rank).
    const int64_t wanted = 1;
    int64_t equal = 0;
    for (int32_t s = chunk_begin; s < chunk_end; ++s) equal += loss[s] == value;
    const int64_t before = BlockExclusiveScan(equal, reduce_buffer);
    if (before < wanted && wanted <= before + equal) {
      int64_t seen = before;
      for (int32_t s = chunk_begin; s < chunk_end; ++s) {
        if (loss[s] == value && ++seen == wanted) {
          out_loss[acct] = value;
          out_scenario[acct] = s;
          break;
        }
      }
    }
    __syncthreads();  // `loss` is rewritten for the next portfolio
  }
}

bool Check(cudaError_t err, const char* what, std::string* error) {
  if (err == cudaSuccess) return true;
  *error = std::string(what) + ": " + cudaGetErrorString(err);
  return false;
}

// A device allocation that only grows: Reserve keeps it when it already holds `count`.
template <typename T>
struct DeviceBuffer {
  T* data = nullptr;
  size_t capacity = 0;

  bool Reserve(size_t count, std::string* error) {
    if (count <= capacity && data != nullptr) return true;
    Free();
    const size_t n = std::max<size_t>(count, 1);
    if (!Check(cudaMalloc(reinterpret_cast<void**>(&data), n * sizeof(T)), "cudaMalloc", error)) {
      data = nullptr;
      return false;
    }
    capacity = n;
    return true;
  }
  void Free() {
    if (data != nullptr) cudaFree(data);
    data = nullptr;
    capacity = 0;
  }
};

}  // namespace

struct CudaState {
  cudaStream_t stream = nullptr;
  int sm_count = 1;
  int max_shared_optin = 48 * 1024;
  DeviceBuffer<int64_t> table;
  int32_t num_contracts = 0;
  int32_t num_scenarios = 0;
  DeviceBuffer<int64_t> offsets;
  DeviceBuffer<int32_t> contracts;
  DeviceBuffer<int64_t> qtys;
  size_t num_portfolios = 0;
  DeviceBuffer<int64_t> out_loss;
  DeviceBuffer<int32_t> out_scenario;
  DeviceBuffer<int64_t> scratch;
};

bool CudaDeviceUsable(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky error so later runtime calls are not poisoned
    return false;
  }
  if (count <= 0) {
    *why = "cudaGetDeviceCount returned 0 devices";
    return false;
  }
  return true;
}

bool CudaDescribe(std::string* name, double* peak_memory_bytes_per_sec, int* multiprocessors,
                  std::string* error) {
  cudaDeviceProp prop{};
  int clock_khz = 0;
  int bus_bits = 0;
  if (!Check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties", error) ||
      !Check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0),
             "cudaDeviceGetAttribute", error) ||
      !Check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0),
             "cudaDeviceGetAttribute", error) ||
      !Check(cudaDeviceGetAttribute(multiprocessors, cudaDevAttrMultiProcessorCount, 0),
             "cudaDeviceGetAttribute", error)) {
    return false;
  }
  *name = prop.name;
  *peak_memory_bytes_per_sec = 2.0 * clock_khz * 1000.0 * bus_bits / 8.0;  // double data rate
  return true;
}

CudaState* CudaCreate(std::string* error) {
  auto* state = new CudaState();
  if (!Check(cudaSetDevice(0), "cudaSetDevice", error) ||
      !Check(cudaStreamCreateWithFlags(&state->stream, cudaStreamNonBlocking),
             "cudaStreamCreate", error) ||
      !Check(cudaDeviceGetAttribute(&state->sm_count, cudaDevAttrMultiProcessorCount, 0),
             "cudaDeviceGetAttribute", error) ||
      !Check(cudaDeviceGetAttribute(&state->max_shared_optin,
                                    cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
             "cudaDeviceGetAttribute", error)) {
    CudaDestroy(state);
    return nullptr;
  }
  return state;
}

void CudaDestroy(CudaState* state) {
  if (state == nullptr) return;
  state->table.Free();
  state->offsets.Free();
  state->contracts.Free();
  state->qtys.Free();
  state->out_loss.Free();
  state->out_scenario.Free();
  state->scratch.Free();
  if (state->stream != nullptr) cudaStreamDestroy(state->stream);
  delete state;
}

bool CudaSetTable(CudaState* state, const int64_t* values, int32_t num_contracts,
                  int32_t num_scenarios, std::string* error) {
  const size_t n = static_cast<size_t>(num_contracts) * num_scenarios;
  if (!state->table.Reserve(n, error)) return false;
  if (n > 0 && !Check(cudaMemcpyAsync(state->table.data, values, n * sizeof(int64_t),
                                      cudaMemcpyHostToDevice, state->stream),
                      "cudaMemcpy table", error)) {
    return false;
  }
  state->num_contracts = num_contracts;
  state->num_scenarios = num_scenarios;
  return Check(cudaStreamSynchronize(state->stream), "cudaStreamSynchronize", error);
}

bool CudaSetPortfolios(CudaState* state, const int64_t* offsets, size_t num_portfolios,
                       const int32_t* contracts, const int64_t* qtys, size_t num_entries,
                       std::string* error) {
  if (!state->offsets.Reserve(num_portfolios + 1, error) ||
      !state->contracts.Reserve(num_entries, error) || !state->qtys.Reserve(num_entries, error) ||
      !state->out_loss.Reserve(num_portfolios, error) ||
      !state->out_scenario.Reserve(num_portfolios, error)) {
    return false;
  }
  if (!Check(cudaMemcpyAsync(state->offsets.data, offsets, (num_portfolios + 1) * sizeof(int64_t),
                             cudaMemcpyHostToDevice, state->stream),
             "cudaMemcpy offsets", error)) {
    return false;
  }
  if (num_entries > 0 &&
      (!Check(cudaMemcpyAsync(state->contracts.data, contracts, num_entries * sizeof(int32_t),
                              cudaMemcpyHostToDevice, state->stream),
              "cudaMemcpy contracts", error) ||
       !Check(cudaMemcpyAsync(state->qtys.data, qtys, num_entries * sizeof(int64_t),
                              cudaMemcpyHostToDevice, state->stream),
              "cudaMemcpy qtys", error))) {
    return false;
  }
  state->num_portfolios = num_portfolios;
  return Check(cudaStreamSynchronize(state->stream), "cudaStreamSynchronize", error);
}

bool CudaEvaluate(CudaState* state, int32_t rank, int64_t* out_loss, int32_t* out_scenario,
                  std::string* error) {
  const size_t n = state->num_portfolios;
  if (n == 0) return true;
  const int32_t ns = state->num_scenarios;
  const int threads = std::min(kMaxThreads, std::max(32, (ns + 31) / 32 * 32));
  const size_t loss_bytes = static_cast<size_t>(ns) * sizeof(int64_t);
  // Leave room for the kernel's static shared memory (32 int64).
  const bool use_shared =
      loss_bytes + 1024 <= static_cast<size_t>(state->max_shared_optin);
  size_t blocks = std::min<size_t>(n, static_cast<size_t>(state->sm_count) * 32);
  if (use_shared) {
    // Past 48 KB with the kernel's own 256 bytes (reduce_buffer) counted: dynamic and static
    // shared memory together must fit without the opt-in (until 2026-12-07 only the losses
    // were counted, and 6,113-6,144 scenarios failed the launch and went on on the CPU).
    if (loss_bytes + sizeof(int64_t) * 32 > 48 * 1024 &&
        !Check(cudaFuncSetAttribute(MarginKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(loss_bytes)),
               "cudaFuncSetAttribute", error)) {
      return false;
    }
  } else {
    blocks = std::max<size_t>(1, std::min(blocks, kMaxScratchBytes / loss_bytes));
    if (!state->scratch.Reserve(blocks * ns, error)) return false;
  }
  MarginKernel<<<static_cast<unsigned>(blocks), threads, use_shared ? loss_bytes : 0,
                 state->stream>>>(state->table.data, ns, state->offsets.data, state->contracts.data,
                                  state->qtys.data, static_cast<int64_t>(n), rank,
                                  state->scratch.data, use_shared ? 1 : 0, state->out_loss.data,
                                  state->out_scenario.data);
  if (!Check(cudaGetLastError(), "kernel launch", error)) return false;
  if (!Check(cudaMemcpyAsync(out_loss, state->out_loss.data, n * sizeof(int64_t),
                             cudaMemcpyDeviceToHost, state->stream),
             "cudaMemcpy out", error) ||
      !Check(cudaMemcpyAsync(out_scenario, state->out_scenario.data, n * sizeof(int32_t),
                             cudaMemcpyDeviceToHost, state->stream),
             "cudaMemcpy out", error)) {
    return false;
  }
  return Check(cudaStreamSynchronize(state->stream), "kernel", error);
}

}  // namespace cfx::gpu_valuation::internal
