#include "registry.h"

namespace cfx::app {

std::vector<CommandEntry>& Commands() {
  static std::vector<CommandEntry> commands;
  return commands;
}

}  // namespace cfx::app
