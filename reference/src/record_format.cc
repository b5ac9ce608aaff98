// JSON and CSV forms of a fix record (SPEC §12). The JSON writer is hand-rolled so the field
// order and number formats are fixed byte for byte; nlohmann::json only parses.
#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cfx/common/decimal.h"
#include "cfx/json/strict_json.h"
#include "cfx/reference/fix_store.h"
#include "cfx/reference/methodology.h"
#include "internal/record_json.h"
#include "internal/text.h"
#include "nlohmann/json.hpp"

namespace cfx::reference {
namespace {

std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppendFormat(&out, "\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string PriceOrNull(const std::optional<int64_t>& e4, bool quoted) {
  if (!e4) return quoted ? "null" : "";
  return quoted ? absl::StrCat("\"", common::FormatScaled(*e4, 4), "\"")
                : common::FormatScaled(*e4, 4);
}

// Shortest fixed-point text for a double that came from an exact decimal with <= 7 places.
std::string FormatNumber(double v) { return common::FormatMeasure(v); }

// Finds the text of one number by its key path: every event outside the path is ignored.
class NumberTextSax final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit NumberTextSax(std::initializer_list<std::string_view> path) : path_(path) {}
  const std::optional<std::string>& found() const { return found_; }

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return Number(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Number(std::to_string(v)); }
  bool number_float(number_float_t, const string_t& text) override { return Number(text); }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    frames_.push_back({true, ""});
    return true;
  }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    frames_.push_back({false, ""});
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception&) override {
    found_.reset();
    return false;
  }

 private:
  struct Frame {
    bool object;
    std::string key;  // the key of the value being read, in an object
  };
  bool Number(const std::string& text) {
    if (frames_.size() != path_.size()) return true;
    for (size_t i = 0; i < path_.size(); ++i) {
      if (!frames_[i].object || frames_[i].key != path_.begin()[i]) return true;
    }
    found_ = text;
    return true;
  }
  std::initializer_list<std::string_view> path_;
  std::vector<Frame> frames_;
  std::optional<std::string> found_;
};

// The volume × 10^6 from its text; a record written through a double (stores from before
// volumes were exact: the text may have the double's extra digits or an exponent) is rounded
// to the nearest micro-unit.
absl::StatusOr<int64_t> VolumeE6(const nlohmann::json& v, const std::optional<std::string>& text) {
  if (!v.is_number() || !(v.get<double>() >= 0)) {
    return absl::InvalidArgumentError("fix record: volume: not a number >= 0");
  }
  if (text) {
    absl::StatusOr<int64_t> exact = common::ParseScaled(*text, 6);
    if (exact.ok()) return *exact;
  }
  const double e6 = v.get<double>() * 1e6;
  if (!(e6 < 9e18)) return absl::InvalidArgumentError("fix record: volume: too large");
  return std::llround(e6);
}

absl::StatusOr<std::optional<int64_t>> PriceField(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::optional<int64_t>();
  if (!j[key].is_string()) return absl::InvalidArgumentError(absl::StrCat(key, ": not a string"));
  absl::StatusOr<int64_t> v = common::ParseScaled(j[key].get<std::string>(), 4, true);
  if (!v.ok()) return v.status();
  return std::optional<int64_t>(*v);
}

}  // namespace

namespace internal {

std::optional<std::string> NumberText(absl::string_view json,
                                      std::initializer_list<std::string_view> path) {
  NumberTextSax sax(path);
  if (!nlohmann::json::sax_parse(json.begin(), json.end(), &sax)) return std::nullopt;
  return sax.found();
}

}  // namespace internal

std::string FormatVolume(int64_t volume_e6) { return internal::FormatTrimmed(volume_e6, 6); }

bool FixRecord::HasFlag(const std::string& flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

std::string RecordToJson(const FixRecord& r) {
  std::string out = absl::StrCat(
      "{\"grade\":", JsonString(r.grade), ",\"date\":\"", common::FormatDate(r.date),
      "\",\"fix\":", PriceOrNull(r.fix_e4, true),
      ",\"level\":", r.level ? absl::StrCat(*r.level) : "null",
      ",\"p25\":", PriceOrNull(r.p25_e4, true), ",\"p75\":", PriceOrNull(r.p75_e4, true));
  absl::StrAppend(&out, ",\"n_obs\":", r.n_obs, ",\"n_dropped\":", r.n_dropped,
                  ",\"n_providers\":", r.n_providers, ",\"volume\":", FormatVolume(r.volume_e6),
                  ",\"theta\":", r.theta ? FormatNumber(*r.theta) : "null",
                  ",\"price_per_mtok\":", PriceOrNull(r.price_per_mtok_e4, true), ",\"flags\":[");
  for (size_t i = 0; i < r.flags.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "", JsonString(r.flags[i]));
  }
  absl::StrAppend(&out, "],\"methodology\":", JsonString(r.methodology), ",\"inputs_sha256\":",
                  r.inputs_sha256 ? JsonString(*r.inputs_sha256) : "null");
  return out + "}";
}

std::string RecordCsvHeader() {
  return "grade,date,fix,level,p25,p75,n_obs,n_dropped,n_providers,volume,theta,price_per_mtok,"
         "flags,methodology,inputs_sha256";
}

std::string RecordToCsv(const FixRecord& r) {
  return absl::StrCat(r.grade, ",", common::FormatDate(r.date), ",", PriceOrNull(r.fix_e4, false),
                      ",", r.level ? absl::StrCat(*r.level) : "", ",", PriceOrNull(r.p25_e4, false),
                      ",", PriceOrNull(r.p75_e4, false), ",", r.n_obs, ",", r.n_dropped, ",",
                      r.n_providers, ",", FormatVolume(r.volume_e6), ",",
                      r.theta ? FormatNumber(*r.theta) : "", ",",
                      PriceOrNull(r.price_per_mtok_e4, false), ",", absl::StrJoin(r.flags, ";"),
                      ",", r.methodology, ",", r.inputs_sha256.value_or(""));
}

absl::StatusOr<FixRecord> RecordFromJson(const std::string& text) {
  nlohmann::json j = cfx::json::ParseStored(text);  // a raw NUL is damage too
  if (j.is_discarded()) return absl::InvalidArgumentError("fix record: not a JSON object");
  return internal::RecordFromJsonValue(j, internal::NumberText(text, {"volume"}));
}

absl::StatusOr<FixRecord> internal::RecordFromJsonValue(
    const nlohmann::json& j, const std::optional<std::string>& volume_text) {
  if (!j.is_object()) return absl::InvalidArgumentError("fix record: not a JSON object");
  try {
    FixRecord r;
    r.grade = j.at("grade").get<std::string>();
    absl::StatusOr<common::Date> date = common::ParseDate(j.at("date").get<std::string>());
    if (!date.ok()) return date.status();
    r.date = *date;
    for (auto [key, field] :
         {std::pair{"fix", &r.fix_e4}, std::pair{"p25", &r.p25_e4}, std::pair{"p75", &r.p75_e4},
          std::pair{"price_per_mtok", &r.price_per_mtok_e4}}) {
      absl::StatusOr<std::optional<int64_t>> v = PriceField(j, key);
      if (!v.ok()) return v.status();
      *field = *v;
    }
    if (!j.at("level").is_null()) r.level = j.at("level").get<int>();
    r.n_obs = j.at("n_obs").get<int>();
    r.n_dropped = j.at("n_dropped").get<int>();
    r.n_providers = j.at("n_providers").get<int>();
    absl::StatusOr<int64_t> volume = VolumeE6(j.at("volume"), volume_text);
    if (!volume.ok()) return volume.status();
    r.volume_e6 = *volume;
    if (!j.at("theta").is_null()) r.theta = j.at("theta").get<double>();
    r.flags = j.at("flags").get<std::vector<std::string>>();
    r.methodology = j.value("methodology", std::string(kLegacyMethodologyVersion));
    if (j.contains("inputs_sha256") && !j.at("inputs_sha256").is_null()) {
      r.inputs_sha256 = j.at("inputs_sha256").get<std::string>();
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("fix record: ", e.what()));
  }
}

}  // namespace cfx::reference
