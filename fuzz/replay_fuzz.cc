// `cfx replay` lines: any bytes parse to a command or an invalid_field line, and a whole
// input runs through the engine without crashing (SPEC §4.1, §4.2).
#include <sstream>
#include <string>

#include "cfx/engine/engine.h"
#include "cfx/engine/replay.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cfx::engine::ParseCommandLine(text);
  std::istringstream in(text);
  std::ostringstream out;
  cfx::engine::EngineConfig config;
  config.order_capacity = 64;  // small pools: the fuzzer makes an engine per input
  config.client_id_capacity = 64;
  cfx::engine::Engine engine(config);
  cfx::engine::RunReplay(in, out, &engine);
  return 0;
}
