// A fresh temporary folder per test, removed afterwards.
#ifndef CFX_TESTS_JOURNAL_TEST_DIR_H_
#define CFX_TESTS_JOURNAL_TEST_DIR_H_

#include "temp_dir.h"

namespace cfx::journal {

// $TMPDIR/cfx_journal_test_XXXXXX.
class TestDir : public testsupport::TempDir {
 public:
  TestDir() : testsupport::TempDir("cfx_journal_test") {}
};

}  // namespace cfx::journal

#endif  // CFX_TESTS_JOURNAL_TEST_DIR_H_
