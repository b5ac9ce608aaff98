// `cfx passwd [--token] [--opslimit N] [--memlimit-kib N]`: reads one secret from standard
// input (without echo when it is a terminal) and prints what the config stores for it
// (docs/config.md): the argon2id PHC string of a session's `password_hash`, or with
// --token the SHA-256 hex of a bearer token's `token_sha256`. Empty input: exit status 2.
// Thin: termios and the flags here; the hashing is cfx/common/credentials.h.
#include <termios.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "cfx/common/credentials.h"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

struct PasswdFlags {
  bool token = false;
  unsigned long long opslimit = common::InteractiveLimits().opslimit;
  size_t memlimit_kib = common::InteractiveLimits().memlimit_bytes / 1024;
};

// The terminal's settings while echo is off, for a signal that ends the read (Ctrl-C) to
// put back before the process dies: a shell left without echo looks broken.
termios g_saved{};
// The signals that end a process by default, and what they did before the read (one left
// ignored, as under nohup, stays ignored).
constexpr std::array<int, 4> kEndSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
std::array<struct sigaction, 4> g_before{};
void RestoreTerminalAndDie(int sig) {
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved);  // async-signal-safe
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// One line of standard input without its line end; a terminal does not echo it.
std::string ReadSecret(const char* prompt) {
  const bool tty = ::isatty(STDIN_FILENO) == 1;
  termios& saved = g_saved;
  if (tty && ::tcgetattr(STDIN_FILENO, &saved) == 0) {
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    std::cerr << prompt << std::flush;
    for (size_t i = 0; i < kEndSignals.size(); ++i) {
      struct sigaction die {};
      die.sa_handler = RestoreTerminalAndDie;
      ::sigaction(kEndSignals[i], nullptr, &g_before[i]);
      if (g_before[i].sa_handler != SIG_IGN) ::sigaction(kEndSignals[i], &die, nullptr);
    }
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (tty) {
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    for (size_t i = 0; i < kEndSignals.size(); ++i)
      ::sigaction(kEndSignals[i], &g_before[i], nullptr);
    std::cerr << "\n";
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

ExitCode RunPasswd(const PasswdFlags& flags) {
  if (!common::InitCrypto()) return Fail("passwd", "libsodium cannot be initialised");
  const std::string secret = ReadSecret(flags.token ? "Token: " : "Password: ");
  if (secret.empty()) return Fail("passwd", "empty input: nothing to hash", 2);
  if (flags.token) {
    std::cout << common::TokenSha256Hex(secret) << "\n";
    return 0;
  }
  std::string phc;
  if (!common::HashPassword(secret, {flags.opslimit, flags.memlimit_kib * 1024}, &phc)) {
    return Fail("passwd", "cannot hash: --opslimit/--memlimit-kib outside libsodium's range", 2);
  }
  std::cout << phc << "\n";
  return 0;
}

void SetupPasswd(CLI::App& parent, ExitCode* rc) {
  auto [cmd, flags] = AddCommand<PasswdFlags>(
      parent, rc, "passwd",
      "Hash a password (argon2id PHC string) or, with --token, a bearer token (SHA-256) for "
      "the config; reads standard input",
      RunPasswd);
  cmd->add_flag("--token", flags->token, "Print the SHA-256 hex of a bearer token instead");
  // Within what the config takes (common::PasswordHashCostIsBounded): a hash past it would be
  // refused at load, and a --memlimit-kib past 2^54 wrapped in the byte count (until
  // 2026-12-07 both printed a hash and exited 0).
  cmd->add_option("--opslimit", flags->opslimit,
                  "argon2id passes (default: libsodium's interactive limit)")
      ->capture_default_str()
      ->check(CLI::Range(1ULL, static_cast<unsigned long long>(common::kMaxPasswordHashPasses)));
  cmd->add_option("--memlimit-kib", flags->memlimit_kib,
                  "argon2id memory in KiB (default: libsodium's interactive limit; lower only "
                  "for test configs)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{8}, static_cast<size_t>(common::kMaxPasswordHashMemoryKib)));
}

CFX_REGISTER_COMMAND("", SetupPasswd);

}  // namespace
}  // namespace cfx::app
