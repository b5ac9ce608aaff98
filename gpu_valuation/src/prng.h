// Portable, seeded random numbers for Monte Carlo scenarios: splitmix64 to seed
// xoshiro256**, 53-bit uniforms and Box–Muller normals. Integer generation is identical on
// every platform; the normals use std::log/sqrt/cos/sin, so they are bit-identical wherever
// the C library's functions are (always within one build; scenarios are made on the host).
#ifndef CFX_GPU_VALUATION_SRC_PRNG_H_
#define CFX_GPU_VALUATION_SRC_PRNG_H_

#include <cmath>
#include <cstdint>
#include <numbers>

namespace cfx::gpu_valuation::internal {

inline uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed) {
    for (uint64_t& w : s_) w = SplitMix64(&seed);
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Two independent standard normals (Box–Muller; u1 in (0, 1] so the log is finite).
  void NormalPair(double* z0, double* z1) {
    const double u1 = 1.0 - Uniform();
    const double u2 = Uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * std::numbers::pi * u2;
    *z0 = r * std::cos(theta);
    *z1 = r * std::sin(theta);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace cfx::gpu_valuation::internal

#endif  // CFX_GPU_VALUATION_SRC_PRNG_H_
