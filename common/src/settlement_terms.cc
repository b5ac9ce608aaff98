// SettlementTermsToml (config.h): the settlement terms of a config written back as a config
// file of their own, for `cfx settle` without --config (docs/settlement.md). Separate from
// config.cc, which reads config files.
#include <charconv>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cfx/common/config.h"
#include "cfx/common/csv.h"
#include "cfx/common/decimal.h"

namespace cfx::common {

namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string TomlString(absl::string_view v) {
  std::string out = "\"";
  for (char ch : v) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// The shortest text that reads back as the same double.
std::string TomlFloat(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string out(buf, end);
  if (out.find_first_of(".eE") == std::string::npos) out += ".0";
  return out;
}

}  // namespace

std::string SettlementTermsToml(const ExchangeConfig& config) {
  std::string out =
      "# The settlement terms `cfx serve` ran with (holidays, collateral, psr, the close\n"
      "# surveillance threshold), kept for `cfx settle` without --config. Written by cfx.\n"
      "[exchange]\nholidays = [";
  for (size_t i = 0; i < config.holidays.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", TomlString(FormatDate(config.holidays[i])));
  }
  absl::StrAppend(&out, "]\npsr = ", TomlFloat(config.psr),
                  "\nclose_concentration_alert = ", TomlFloat(config.close_concentration_alert),
                  "\n");
  for (const FirmConfig& f : config.firms) {
    absl::StrAppend(&out, "\n[[firms]]\nid = ", TomlString(f.id), "\nname = ", TomlString(f.name),
                    "\n");
  }
  for (const AccountConfig& a : config.accounts) {
    absl::StrAppend(&out, "\n[[accounts]]\nid = ", TomlString(a.id),
                    "\nfirm = ", TomlString(a.firm),
                    "\ncollateral = ", TomlString(FormatScaled(a.collateral.value(), 6)), "\n");
  }
  return out;
}

absl::StatusOr<ExchangeConfig> LoadKeptSettlementTerms(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  bool has_exchange = false;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line == "[exchange]") has_exchange = true;
  }
  if (!has_exchange) {
    return absl::DataLossError(absl::StrCat(
        path, ": holds no [exchange] table (", text->size(),
        " bytes): the settlement terms cfx keeps here always have one, so the file is damaged "
        "(emptied, cut short); restore it, or give the exchange's config with --config"));
  }
  return ParseConfig(*text, path);
}

}  // namespace cfx::common
