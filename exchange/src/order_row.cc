// The text of a row of the trade store's `orders` and `ended_orders` tables (one JSON
// object, keys in sorted order), written by hand and read back strictly.
#include "order_row.h"

#include "absl/strings/str_cat.h"
#include "cfx/json/strict_json.h"
#include "nlohmann/json.hpp"

namespace cfx::exchange::internal {
namespace {

using json = nlohmann::json;

// The engine enum value whose wire name is `name` (values 0..count-1).
template <class E>
bool FromName(const json& name, int count, E* out) {
  if (!name.is_string()) return false;
  for (int i = 0; i < count; ++i) {
    if (engine::ToString(static_cast<E>(i)) == name.get<std::string>()) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

// `"key":"value"`, the value escaped as nlohmann::json does: plain printable ASCII as it
// is, anything else (quotes, controls, bytes past ASCII and their UTF-8 checks) by nlohmann.
void AppendStringField(std::string* out, std::string_view key, std::string_view value) {
  out->append(key);
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') {
      out->append(json(std::string(value)).dump(-1, ' ', false, json::error_handler_t::replace));
      return;
    }
  }
  out->push_back('"');
  out->append(value);
  out->push_back('"');
}

void AppendNumberField(std::string* out, std::string_view key, int64_t value) {
  out->append(key);
  absl::StrAppend(out, value);
}

void AppendUnsignedField(std::string* out, std::string_view key, uint64_t value) {
  out->append(key);
  absl::StrAppend(out, value);
}

}  // namespace

bool ParseOrderRow(absl::string_view text, OrderStateView* o, uint64_t* serial) {
  json j = cfx::json::ParseStored({text.data(), text.size()});  // a raw NUL is damage too
  if (!j.is_object()) return false;
  for (const char* k : {"oid", "cum", "leaves", "notional", "px", "stop_px", "qty", "session"}) {
    if (!j.contains(k) || !j[k].is_number_integer()) return false;
  }
  for (const char* k : {"acct", "cl", "sym"}) {
    if (!j.contains(k) || !j[k].is_string()) return false;
  }
  o->oid = j["oid"].get<uint64_t>();
  o->acct = j["acct"].get<std::string>();
  o->cl = j["cl"].get<std::string>();
  o->sym = j["sym"].get<std::string>();
  o->cum = engine::Qty(j["cum"].get<int64_t>());
  o->leaves = engine::Qty(j["leaves"].get<int64_t>());
  o->notional = j["notional"].get<int64_t>();
  o->detail.has_detail = true;
  o->detail.px = engine::PriceTicks(j["px"].get<int64_t>());
  o->detail.stop_px = engine::PriceTicks(j["stop_px"].get<int64_t>());
  o->detail.qty = engine::Qty(j["qty"].get<int64_t>());
  o->detail.session = j["session"].get<uint32_t>();
  // value() throws when the key holds another type: a malformed row is `false`, as above.
  if (j.contains("expired") && !j["expired"].is_boolean()) return false;
  o->expired = j.value("expired", false);
  if (j.contains("display")) {  // rows written since 2026-12-06
    if (!j["display"].is_number_integer() || !j.contains("expire") ||
        !j["expire"].is_number_integer()) {
      return false;
    }
    o->detail.has_amend_terms = true;
    o->detail.display = engine::Qty(j["display"].get<int64_t>());
    o->detail.expire = j["expire"].get<int64_t>();
    if (j.contains("post_only") && !j["post_only"].is_boolean()) return false;
    o->detail.post_only = j.value("post_only", false);
  }
  if (serial) {
    if (!j.contains("end") || !j["end"].is_number_unsigned()) return false;
    *serial = j["end"].get<uint64_t>();
  }
  return FromName(j.value("side", json()), 2, &o->side) &&
         FromName(j.value("status", json()), 5, &o->status) &&
         FromName(j.value("type", json()), 4, &o->detail.type) &&
         FromName(j.value("tif", json()), 5, &o->detail.tif);
}

std::string OrderRowText(const OrderStateView& v, uint64_t end_serial) {
  std::string out;
  out.reserve(256);
  // The keys in sorted order (nlohmann::json objects are std::maps).
  AppendStringField(&out, "{\"acct\":", v.acct);
  AppendStringField(&out, ",\"cl\":", v.cl);
  AppendNumberField(&out, ",\"cum\":", v.cum.value());
  if (v.detail.has_amend_terms) AppendNumberField(&out, ",\"display\":", v.detail.display.value());
  if (end_serial) AppendUnsignedField(&out, ",\"end\":", end_serial);
  if (v.detail.has_amend_terms) AppendNumberField(&out, ",\"expire\":", v.detail.expire);
  if (v.expired) out.append(",\"expired\":true");
  AppendNumberField(&out, ",\"leaves\":", v.leaves.value());
  AppendNumberField(&out, ",\"notional\":", v.notional);
  AppendUnsignedField(&out, ",\"oid\":", v.oid);
  if (v.detail.has_amend_terms && v.detail.post_only) out.append(",\"post_only\":true");
  AppendNumberField(&out, ",\"px\":", v.detail.px.value());
  AppendNumberField(&out, ",\"qty\":", v.detail.qty.value());
  AppendUnsignedField(&out, ",\"session\":", v.detail.session);
  AppendStringField(&out, ",\"side\":", engine::ToString(v.side));
  AppendStringField(&out, ",\"status\":", engine::ToString(v.status));
  AppendNumberField(&out, ",\"stop_px\":", v.detail.stop_px.value());
  AppendStringField(&out, ",\"sym\":", v.sym);
  AppendStringField(&out, ",\"tif\":", engine::ToString(v.detail.tif));
  AppendStringField(&out, ",\"type\":", engine::ToString(v.detail.type));
  out.push_back('}');
  return out;
}

}  // namespace cfx::exchange::internal
