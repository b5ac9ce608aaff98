// Reading the config's TOML with the position of every value: typed getters and the
// unknown-key check, each error naming the file, the line and the key (SPEC §11). Private
// to cfx_common's config parser (config.cc).
#ifndef CFX_COMMON_SRC_CONFIG_READER_H_
#define CFX_COMMON_SRC_CONFIG_READER_H_

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "cfx/common/csv.h"
#include "toml++/toml.h"

namespace cfx::common::internal {

// Collects the first error with its location; keeps parsing code linear.
class Reader {
 public:
  explicit Reader(absl::string_view source) : source_(source) {}

  absl::Status Error(const toml::node* node, absl::string_view key, absl::string_view what) {
    std::string where(source_);
    if (node && node->source().begin.line > 0) {
      absl::StrAppend(&where, ":", node->source().begin.line);
    }
    // Keys and values come from the file (a quoted key may hold any escape): shown with
    // control bytes escaped, never raw to a terminal (until 2026-12-07 they were).
    return absl::InvalidArgumentError(Shown(absl::StrCat(where, ": ", key, ": ", what)));
  }

  template <typename T>
  absl::Status Get(const toml::table& t, absl::string_view prefix, const char* key, T* out,
                   bool required) {
    const toml::node* node = t.get(key);
    std::string name = absl::StrCat(prefix, key);
    if (!node) {
      return required ? Error(&t, name, "missing") : absl::OkStatus();
    }
    if constexpr (std::is_same_v<T, std::string>) {
      auto v = node->value<std::string>();
      if (!node->is_string() || !v) return Error(node, name, "expected a string");
      // TOML's escapes let a string hold any control character, \u0000 included: a path or
      // an id with one is silently something else to the system (cut at the NUL). A tab is
      // text.
      for (unsigned char c : *v) {
        if ((c < 0x20 && c != '\t') || c == 0x7F) {
          return Error(
              node, name,
              absl::StrCat("holds a control character (U+00", absl::Hex(c, absl::kZeroPad2), ")"));
        }
      }
      *out = *v;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!node->is_boolean()) return Error(node, name, "expected true or false");
      *out = *node->value<bool>();
    } else if constexpr (std::is_same_v<T, int>) {
      if (!node->is_integer()) return Error(node, name, "expected an integer");
      int64_t v = *node->value<int64_t>();
      if (v < 0 || v > INT32_MAX) return Error(node, name, "out of range");
      *out = static_cast<int>(v);
    } else if constexpr (std::is_same_v<T, double>) {
      if (!node->is_number()) return Error(node, name, "expected a number");
      // toml++ gives no double for an integer past 2^53, and NaN and inf are TOML floats.
      auto v = node->value<double>();
      if (!v || !std::isfinite(*v)) return Error(node, name, "out of range");
      *out = *v;
    }
    return absl::OkStatus();
  }

  absl::Status CheckKeys(const toml::table& t, absl::string_view prefix,
                         std::initializer_list<const char*> known) {
    for (const auto& [k, v] : t) {
      bool ok = false;
      for (const char* name : known) ok = ok || k.str() == name;
      if (!ok) return Error(&v, absl::StrCat(prefix, std::string(k.str())), "unknown key");
    }
    return absl::OkStatus();
  }

 private:
  std::string source_;
};

inline const toml::array* ArrayOfTables(const toml::table& root, const char* key) {
  const toml::node* n = root.get(key);
  return n ? n->as_array() : nullptr;
}

}  // namespace cfx::common::internal

#define CFX_RETURN_IF_ERROR(expr) \
  do {                            \
    absl::Status _st = (expr);    \
    if (!_st.ok()) return _st;    \
  } while (0)

#endif  // CFX_COMMON_SRC_CONFIG_READER_H_
