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

inline int ConnectLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
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
