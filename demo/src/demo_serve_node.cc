// demo_serve_node.h: a `cfx serve` child process, and its /metrics.
#include "demo_serve_node.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cfx/client/http_client.h"

namespace cfx::demo {

ServeProcess::ServeProcess(std::string binary, std::string name, std::string log)
    : binary_(std::move(binary)), name_(std::move(name)), log_(std::move(log)) {}

ServeProcess::~ServeProcess() { Kill(); }

absl::Status ServeProcess::Start(const std::vector<std::string>& args) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return absl::UnavailableError("fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    FILE* f = std::fopen(log_.c_str(), "a");
    if (f != nullptr) {
      dup2(fileno(f), STDOUT_FILENO);
      dup2(fileno(f), STDERR_FILENO);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary_.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary_.c_str(), argv.data());
    _exit(127);
  }
  pid_ = pid;
  how_.clear();
  return absl::OkStatus();
}

void ServeProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  how_ = "killed by signal 9";
}

int ServeProcess::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  const auto until = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill();
  return -1;
}

bool ServeProcess::Exited() {
  if (pid_ <= 0) return true;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    how_ = WIFSIGNALED(status) ? absl::StrCat("killed by signal ", WTERMSIG(status))
                               : absl::StrCat("exited with status ", WEXITSTATUS(status));
    return true;
  }
  return false;
}

std::string ServeProcess::How() {
  Exited();
  return how_;
}

double Metrics::Get(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? -1 : it->second;
}

std::optional<Metrics> ReadMetrics(int port) {
  auto c = client::HttpClient::Connect("127.0.0.1", port, std::chrono::milliseconds(2000));
  if (!c.ok()) return std::nullopt;
  auto r = c->Get("/metrics", "");
  if (!r.ok() || r->status != 200) return std::nullopt;
  Metrics m;
  std::istringstream in(r->body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    std::string name = line.substr(0, space);
    const size_t brace = name.find('{');
    if (brace != std::string::npos) {
      if (name.compare(0, brace, "cfx_state_hash") == 0) {
        const size_t q = name.find('"');
        const size_t e = name.rfind('"');
        if (q != std::string::npos && e > q) m.state_hash = name.substr(q + 1, e - q - 1);
      }
      name = name.substr(0, brace);
    }
    m.values[name] = std::strtod(line.c_str() + space + 1, nullptr);
  }
  return m;
}

}  // namespace cfx::demo
