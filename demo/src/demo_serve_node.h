// A `cfx serve` child process of `cfx demo --standby`, and what its /metrics say.
#ifndef CFX_DEMO_SRC_DEMO_SERVE_NODE_H_
#define CFX_DEMO_SRC_DEMO_SERVE_NODE_H_

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace cfx::demo {

// One `cfx serve` process. Its output goes to a log file; it dies with the demo
// (PR_SET_PDEATHSIG), so an interrupted demo leaves no exchange running.
class ServeProcess {
 public:
  ServeProcess(std::string binary, std::string name, std::string log);
  ~ServeProcess();  // Kill()s
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Starts `binary args...`.
  absl::Status Start(const std::vector<std::string>& args);
  // kill -9, reaped.
  void Kill();
  // SIGTERM (a clean stop), SIGKILL after `grace`; the exit status (-1 when killed).
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(15));
  // Whether it has ended (reaping it if so).
  bool Exited();
  // How it ended ("exited with status 3", "killed by signal 9"; "" while running).
  std::string How();
  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }
  const std::string& log() const { return log_; }

 private:
  std::string binary_, name_, log_, how_;
  pid_t pid_ = -1;
};

// /metrics of a node (no token needed): gauge name -> value, plus the state hash label.
struct Metrics {
  std::map<std::string, double> values;
  std::string state_hash;
  // The gauge's value; -1 when absent.
  double Get(const std::string& name) const;
};

// GET /metrics on 127.0.0.1:`port`; nullopt when it does not answer 200.
std::optional<Metrics> ReadMetrics(int port);

}  // namespace cfx::demo

#endif  // CFX_DEMO_SRC_DEMO_SERVE_NODE_H_
