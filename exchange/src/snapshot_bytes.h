// Host-order scalars in the matcher's snapshot blob (docs/formats.md, "Engine snapshot").
#ifndef CFX_EXCHANGE_SRC_SNAPSHOT_BYTES_H_
#define CFX_EXCHANGE_SRC_SNAPSHOT_BYTES_H_

#include <cstring>
#include <string>

#include "absl/strings/string_view.h"

namespace cfx::exchange::internal {

template <typename T>
void Put(std::string* s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  s->append(b, sizeof(T));
}

// Reads one T from the front of `in` (consumed); false when too short.
template <typename T>
bool Get(absl::string_view* in, T* v) {
  if (in->size() < sizeof(T)) return false;
  std::memcpy(v, in->data(), sizeof(T));
  in->remove_prefix(sizeof(T));
  return true;
}

}  // namespace cfx::exchange::internal

#endif  // CFX_EXCHANGE_SRC_SNAPSHOT_BYTES_H_
