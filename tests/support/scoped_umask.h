// Sets the process umask for a scope and restores it: tests that check file modes under
// umask 000. The umask is process-wide, so such a test must not run beside others in the
// same process (gtest runs a binary's tests one at a time).
//
//   testsupport::ScopedUmask umask(0);
#ifndef CFX_TESTS_SUPPORT_SCOPED_UMASK_H_
#define CFX_TESTS_SUPPORT_SCOPED_UMASK_H_

#include <sys/stat.h>

namespace cfx::testsupport {

class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t mask) : old_(::umask(mask)) {}
  ~ScopedUmask() { ::umask(old_); }
  ScopedUmask(const ScopedUmask&) = delete;
  ScopedUmask& operator=(const ScopedUmask&) = delete;

 private:
  mode_t old_;
};

}  // namespace cfx::testsupport

#endif  // CFX_TESTS_SUPPORT_SCOPED_UMASK_H_
