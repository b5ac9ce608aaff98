// A plain TCP connection to 127.0.0.1:`port`, for tests that must write and read raw bytes
// (no client library in between). Returns the socket, or -1 when it cannot connect; the
// caller closes it.
#ifndef CFX_TESTS_SUPPORT_LOOPBACK_SOCKET_H_
#define CFX_TESTS_SUPPORT_LOOPBACK_SOCKET_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace cfx::testsupport {

// `from`: the source address, another of 127/8 (all of it is loopback on Linux), so that
// the server sees a second peer address; empty: the kernel's choice (127.0.0.1).
inline int ConnectLoopback(int port, const char* from = nullptr) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (from != nullptr) {
    sockaddr_in src{};
    src.sin_family = AF_INET;
    if (::inet_pton(AF_INET, from, &src.sin_addr) != 1 ||
        ::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0) {
      ::close(fd);
      return -1;
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_LOOPBACK_SOCKET_H_
