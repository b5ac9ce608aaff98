// CRC-32C (Castagnoli), the checksum of journal records and snapshots. Uses the SSE4.2
// crc32 instruction when the CPU has it and a table-driven software path otherwise; both
// give the same value.
//
//   uint32_t crc = cfx::journal::Crc32c(data.data(), data.size());
//   crc = cfx::journal::Crc32cExtend(crc, more.data(), more.size());
#ifndef CFX_JOURNAL_CRC32C_H_
#define CFX_JOURNAL_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace cfx::journal {

// Returns the CRC-32C of `crc`'s input followed by data[0, n). Thread safety: pure.
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t n);

inline uint32_t Crc32c(const void* data, size_t n) { return Crc32cExtend(0, data, n); }

}  // namespace cfx::journal

#endif  // CFX_JOURNAL_CRC32C_H_
