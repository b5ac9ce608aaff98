// The TOML config: any text is a config or an error naming the line; never a crash.
#include <string>

#include "cfx/common/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cfx::common::ParseConfig(text, "fuzz.toml").IgnoreError();
  return 0;
}
