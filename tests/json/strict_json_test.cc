#include "cfx/json/strict_json.h"

#include <string>

#include "gtest/gtest.h"

namespace cfx::json {
namespace {

TEST(StrictJsonTest, ARawNulIsNoJsonEvenWhereNlohmannStopsBeforeIt) {
  const std::string with_nul("{\"a\":1}\0junk", 12);
  EXPECT_FALSE(nlohmann::json::parse(with_nul, nullptr, false).is_discarded())
      << "nlohmann reads up to the NUL: the reason for these parsers";
  EXPECT_TRUE(ParseStrict(with_nul).is_discarded());
  EXPECT_TRUE(ParseStored(with_nul).is_discarded());
  EXPECT_TRUE(ParseStrict(std::string("{\"a\":\"x\0y\"}", 12)).is_discarded());
  EXPECT_TRUE(ParseStrict("{\"a\":").is_discarded());
  EXPECT_EQ(ParseStrict("{\"a\":\"x\\u0000y\"}")["a"], std::string("x\0y", 3))
      << "an escaped NUL is text";
}

TEST(StrictJsonTest, ARepeatedKeyIsSaidOrRefusedAtAnyDepth) {
  for (const char* text : {R"({"side":"buy","side":"sell"})", R"({"a":{"b":1,"b":2}})",
                           R"([{"k":1},{"k":2,"k":3}])"}) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(ParseStrict(text).is_discarded());
    bool duplicate = false;
    EXPECT_FALSE(ParseStrict(text, &duplicate).is_discarded());
    EXPECT_TRUE(duplicate);
    EXPECT_FALSE(ParseStored(text).is_discarded()) << "stored records are taken as written";
  }
  // The same key in sibling objects, or at two depths, is no repetition.
  for (const char* text : {R"([{"k":1},{"k":2}])", R"({"k":{"k":1}})", R"({"a":1,"b":{"a":2}})"}) {
    SCOPED_TRACE(text);
    bool duplicate = true;
    EXPECT_FALSE(ParseStrict(text, &duplicate).is_discarded());
    EXPECT_FALSE(duplicate);
    EXPECT_FALSE(ParseStrict(text).is_discarded());
  }
}

}  // namespace
}  // namespace cfx::json
