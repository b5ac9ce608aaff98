// Headless Chromium for the demo's HTML report tests (html_check.h). Chromium runs as a child
// in its own process group, so that a timeout or a helper left behind is killed with the group;
// the counting proxy is a plain TCP listener on a thread.
#include "html_check.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace cfx::testsupport {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr char kChromium[] = "/usr/bin/chromium";
constexpr auto kTimeout = std::chrono::seconds(60);
// Where Chromium's Gaia requests go: a reserved name (RFC 6761) that resolves nowhere.
constexpr char kNoHost[] = "gaia.invalid";
// After the browser process exits, how long its helpers may keep standard output open.
constexpr auto kExitGrace = std::chrono::seconds(3);

// Accepts connections on 127.0.0.1 (an ephemeral port) and counts them, closing each at once:
// the page's request fails, as it would with no network, and is counted.
class ConnectionCounter {
 public:
  ConnectionCounter() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(fd_, 64) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Run(); });
  }
  ~ConnectionCounter() { Stop(); }
  ConnectionCounter(const ConnectionCounter&) = delete;
  ConnectionCounter& operator=(const ConnectionCounter&) = delete;

  int port() const { return port_; }  // 0 when the listener could not be made

  // Stops accepting and returns the count. Idempotent.
  int Stop() {
    stop_.store(true, std::memory_order_release);
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return count_.load(std::memory_order_acquire);
  }

 private:
  void Run() {
    while (!stop_.load(std::memory_order_acquire)) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      count_.fetch_add(1, std::memory_order_acq_rel);
      ::close(c);
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> count_{0};
  std::thread thread_;
};

struct ChromiumRun {
  bool started = false;
  bool timed_out = false;
  int status = 0;   // waitpid status
  std::string out;  // standard output
  std::string err;  // the end of standard error, for messages
};

std::string ReadTail(const std::string& path, size_t max) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  return s.size() > max ? s.substr(s.size() - max) : s;
}

// Runs Chromium with `args`, capturing standard output, standard error into `err_path`
// (read back, then removed). Kills the whole process group after kTimeout, and any helper
// still in it once the browser process has exited.
ChromiumRun RunChromium(const std::vector<std::string>& args, const std::string& err_path) {
  ChromiumRun run;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return run;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return run;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(fds[1], STDOUT_FILENO);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) ::dup2(err, STDERR_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kChromium));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(kChromium, argv.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that killpg works whichever runs first
  ::close(fds[1]);
  run.started = true;
  const auto deadline = Clock::now() + kTimeout;
  std::optional<Clock::time_point> exited_at;
  bool eof = false;
  char buf[65536];
  for (;;) {
    if (!exited_at) {
      // Exited? Leave it a zombie (WNOWAIT) so that its pid, the group id, stays taken.
      siginfo_t info{};
      if (::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
        exited_at = Clock::now();
      }
    }
    if (exited_at && (eof || Clock::now() > *exited_at + kExitGrace)) break;
    if (Clock::now() > deadline) {
      run.timed_out = true;
      break;
    }
    if (eof) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n > 0) {
      run.out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      eof = true;
    }
  }
  ::killpg(pid, SIGKILL);  // a timeout, or helpers left behind; ESRCH when none
  ::close(fds[0]);
  ::waitpid(pid, &run.status, 0);
  run.err = ReadTail(err_path, 2000);
  std::error_code ec;
  fs::remove(err_path, ec);
  return run;
}

// file:///abs/path with bytes outside [A-Za-z0-9/._~-] percent-encoded.
std::string FileUrl(const std::string& path) {
  std::error_code ec;
  const std::string abs = fs::absolute(path, ec).string();
  std::string url = "file://";
  for (unsigned char c : ec ? path : abs) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '~' || c == '-') {
      url += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      url += hex;
    }
  }
  return url;
}

std::string Describe(const ChromiumRun& run, const std::string& what) {
  if (!run.started) return what + ": could not start " + std::string(kChromium);
  if (run.timed_out) return what + ": killed after 60 s";
  if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) return "";
  std::string s = what + ": chromium ";
  s += WIFEXITED(run.status) ? "exited with " + std::to_string(WEXITSTATUS(run.status))
                             : "died of signal " + std::to_string(WTERMSIG(run.status));
  return s + "; stderr: " + run.err;
}

}  // namespace

HtmlCheckResult CheckHtmlInChromium(const std::string& html_path, const std::string& work_dir) {
  HtmlCheckResult result;
  if (::access(kChromium, X_OK) != 0) {
    result.error = std::string(kChromium) + " not found (scripts/setup installs chromium)";
    return result;
  }
  std::error_code ec;
  fs::create_directories(work_dir, ec);
  ConnectionCounter counter;
  if (counter.port() == 0) {
    result.error = "cannot listen on 127.0.0.1 for the request counter";
    return result;
  }
  const std::string url = FileUrl(html_path);
  const std::string shot = work_dir + "/report.png";
  fs::remove(shot, ec);
  auto args = [&](const std::string& profile) {
    return std::vector<std::string>{
        "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage",  // containers often have a small /dev/shm
        "--user-data-dir=" + profile,
        // The browser's own requests, which the flags above leave on (Chromium 156, measured
        // at the proxy): the network time query, the component updater's on-demand check
        // (the optimization guide's model manifest) and Gaia's ListAccounts. Switched off, or
        // sent to a host that does not exist and bypasses the proxy, so the count is the page's.
        "--disable-features=NetworkTimeServiceQuerying,OptimizationHints",
        "--component-updater=url-source=http://127.0.0.1:1/",  // not https: no check is sent
        "--gaia-url=http://" + std::string(kNoHost) + "/",
        "--proxy-server=http://127.0.0.1:" + std::to_string(counter.port()),
        // Loopback through the proxy too ("<-loopback>" drops the implicit bypass).
        "--proxy-bypass-list=<-loopback>;" + std::string(kNoHost),
        // Nothing resolves but the proxy's address: a bypassed request fails, never leaves.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"};
  };
  auto run_once = [&](const std::string& name, std::vector<std::string> extra) {
    const std::string profile = work_dir + "/chromium-profile-" + name;
    std::error_code rm;
    fs::remove_all(profile, rm);
    fs::create_directories(profile, rm);
    std::vector<std::string> a = args(profile);
    a.insert(a.end(), extra.begin(), extra.end());
    a.push_back(url);
    ChromiumRun run = RunChromium(a, work_dir + "/chromium-" + name + ".log");
    fs::remove_all(profile, rm);
    return run;
  };
  const ChromiumRun dom = run_once("dom", {"--dump-dom"});
  const ChromiumRun png = run_once(
      "screenshot", {"--screenshot=" + shot, "--window-size=1200,3000", "--hide-scrollbars"});
  result.network_requests = counter.Stop();
  result.dom = dom.out;
  if (fs::exists(shot, ec)) result.screenshot_path = shot;
  std::string error = Describe(dom, "dump-dom");
  if (error.empty() && result.dom.empty()) error = "dump-dom: no DOM on standard output";
  result.ran = error.empty();
  const std::string shot_error = Describe(png, "screenshot");
  if (!shot_error.empty() || result.screenshot_path.empty()) {
    error += (error.empty() ? "" : "; ") +
             (shot_error.empty() ? "screenshot: no " + shot + " written" : shot_error);
  }
  result.error = error;
  return result;
}

}  // namespace cfx::testsupport
