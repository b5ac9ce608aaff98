// The demos' output folder (demo_out.h).
#include "demo_out.h"

#include <filesystem>
#include <fstream>

#include "cfx/storage/private_files.h"

namespace cfx::demo {
namespace {

namespace fs = std::filesystem;
constexpr char kMarker[] = ".cfx-demo";

}  // namespace

// Wipes an earlier demo's output; refuses anything else that is not empty.
absl::Status PrepareOut(const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec)) {
    if (!fs::is_directory(out, ec)) {
      return absl::FailedPreconditionError(out + " exists and is not a directory");
    }
    if (!fs::is_empty(out, ec) && !fs::exists(fs::path(out) / kMarker, ec)) {
      return absl::FailedPreconditionError(out +
                                           " is not empty and was not written by cfx demo (no " +
                                           kMarker + "); choose another --out or remove it");
    }
    fs::remove_all(out, ec);
    if (ec) return absl::UnavailableError("cannot remove " + out + ": " + ec.message());
  }
  fs::create_directories(out, ec);
  if (ec) return absl::UnavailableError("cannot create " + out + ": " + ec.message());
  // The marker is what lets the next run wipe the folder: one not written is an error now
  // (until 2026-12-07 it went unchecked).
  return storage::WritePrivateFile((fs::path(out) / kMarker).string(),
                                   "written by cfx demo; wiped by the next run\n");
}

}  // namespace cfx::demo
