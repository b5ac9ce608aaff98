// The demo's random numbers: splitmix64, the same sequence on every platform (the std
// distributions are not portable), so the same seed gives the same orders everywhere.
#ifndef CFX_GATEWAY_DEMO_RNG_H_
#define CFX_GATEWAY_DEMO_RNG_H_

#include <cstdint>

namespace cfx::demo {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Uniform(1, 100) <= percent; }

 private:
  uint64_t state_;
};

}  // namespace cfx::demo

#endif  // CFX_GATEWAY_DEMO_RNG_H_
