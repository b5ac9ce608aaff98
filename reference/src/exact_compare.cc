// Exact comparison of a short sum of fractions, for the capped weighted median. The common
// denominator of up to four 10^16-sized weights overflows 128 bits, so a tiny unsigned
// big integer is used — but only when long double cannot decide (near-ties).
#include <cstdint>
#include <utility>
#include <vector>

#include "cfx/reference/methodology.h"

namespace cfx::reference {
namespace {

using Big = std::vector<uint32_t>;  // little-endian base 2^32, non-negative

Big FromU128(unsigned __int128 v) {
  Big b;
  while (v) {
    b.push_back(static_cast<uint32_t>(v));
    v >>= 32;
  }
  return b;
}

Big Mul(const Big& a, const Big& b) {
  if (a.empty() || b.empty()) return {};
  Big r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      uint64_t cur = static_cast<uint64_t>(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
    size_t k = i + b.size();
    while (carry) {
      uint64_t cur = static_cast<uint64_t>(r[k]) + carry;
      r[k++] = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
  }
  while (!r.empty() && r.back() == 0) r.pop_back();
  return r;
}

Big Add(const Big& a, const Big& b) {
  Big r(std::max(a.size(), b.size()) + 1, 0);
  uint64_t carry = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    uint64_t cur = carry + (i < a.size() ? a[i] : 0) + (i < b.size() ? b[i] : 0);
    r[i] = static_cast<uint32_t>(cur);
    carry = cur >> 32;
  }
  while (!r.empty() && r.back() == 0) r.pop_back();
  return r;
}

int Compare(const Big& a, const Big& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

}  // namespace

bool SumOfFractionsAtLeast(const std::vector<std::pair<__int128, __int128>>& terms, __int128 rhs) {
  long double approx = 0;
  for (const auto& [num, den] : terms) {
    approx += static_cast<long double>(num) / static_cast<long double>(den);
  }
  const long double r = static_cast<long double>(rhs);
  const long double slack = 1e-9L * (r > 1 ? r : 1);
  if (approx > r + slack) return true;
  if (approx < r - slack) return false;
  // Σ n_i / d_i >= rhs  <=>  Σ n_i Π_{j≠i} d_j >= rhs Π d_j.
  Big lhs;
  Big all_den = FromU128(1);
  for (size_t i = 0; i < terms.size(); ++i) {
    Big term = FromU128(static_cast<unsigned __int128>(terms[i].first));
    for (size_t j = 0; j < terms.size(); ++j) {
      if (j != i) term = Mul(term, FromU128(static_cast<unsigned __int128>(terms[j].second)));
    }
    lhs = Add(lhs, term);
    all_den = Mul(all_den, FromU128(static_cast<unsigned __int128>(terms[i].second)));
  }
  return Compare(lhs, Mul(FromU128(static_cast<unsigned __int128>(rhs)), all_den)) >= 0;
}

}  // namespace cfx::reference
