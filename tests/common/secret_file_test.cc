#include "cfx/common/secret_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "temp_dir.h"

namespace cfx::common {
namespace {

std::string Write(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

// The NATS password file ([replication] password_file): read when private to its owner,
// one line of printable ASCII; anything else refused naming the file, never its content.
TEST(SecretFileTest, APrivateOneLineSecretIsReadAndAnythingElseIsRefusedNamingTheFile) {
  testsupport::TempDir dir("cfx_secret_file_test");
  const std::string ok = Write(dir.path() + "/ok", "s3cret-Pass\n", 0600);
  absl::StatusOr<std::string> read = ReadSecretFile(ok);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "s3cret-Pass");
  EXPECT_EQ(*ReadSecretFile(Write(dir.path() + "/crlf", "abc\r\n", 0400)), "abc");

  const std::string shared = Write(dir.path() + "/shared", "s3cret-Pass\n", 0640);
  absl::StatusOr<std::string> group = ReadSecretFile(shared);
  EXPECT_EQ(group.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(group.status().message().find(shared), std::string::npos) << group.status();
  EXPECT_NE(group.status().message().find("chmod 600"), std::string::npos) << group.status();
  EXPECT_EQ(group.status().message().find("s3cret"), std::string::npos) << "content shown";

  ASSERT_EQ(::symlink(ok.c_str(), (dir.path() + "/link").c_str()), 0);
  struct Case {
    std::string path;
    const char* says;
  };
  for (const Case& c :
       {Case{dir.path() + "/missing", "cannot open"}, Case{dir.path() + "/link", "symbolic link"},
        Case{dir.path(), "not a regular file"},
        Case{Write(dir.path() + "/empty", "\n", 0600), "empty"},
        Case{Write(dir.path() + "/two", "a\nb\n", 0600), "not printable"},
        Case{Write(dir.path() + "/space", "a b", 0600), "not printable"},
        Case{Write(dir.path() + "/big", std::string(2000, 'x'), 0600), "larger"}}) {
    absl::StatusOr<std::string> r = ReadSecretFile(c.path);
    ASSERT_FALSE(r.ok()) << c.path;
    EXPECT_NE(r.status().message().find(c.path), std::string::npos) << r.status();
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status();
  }
}

}  // namespace
}  // namespace cfx::common
