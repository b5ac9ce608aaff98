#include "cfx/common/credentials.h"

#include <sodium.h>

#include <cctype>
#include <cstdint>
#include <cstring>

namespace cfx {
namespace common {
namespace {

constexpr char kArgon2idPrefix[] = "$argon2id$";

// libsodium reads a PHC argument as a crypto_pwhash_STRBYTES array: copy it into one,
// NUL-padded, so a short std::string is never over-read. False if it does not fit.
bool ToPhcBuffer(const std::string& phc, char (&out)[crypto_pwhash_STRBYTES]) {
  if (phc.size() >= sizeof out || phc.find('\0') != std::string::npos) return false;
  std::memset(out, 0, sizeof out);
  std::memcpy(out, phc.data(), phc.size());
  return true;
}

}  // namespace

PasswordHashLimits InteractiveLimits() {
  return {crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE};
}

PasswordHashLimits MinimumLimits() { return {crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN}; }

bool InitCrypto() {
  static const bool ok = sodium_init() >= 0;  // 1 "already initialised" counts as ok
  return ok;
}

bool HashPassword(const std::string& password, PasswordHashLimits limits, std::string* phc) {
  if (!InitCrypto()) return false;
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str(out, password.data(), password.size(), limits.opslimit,
                        limits.memlimit_bytes) != 0) {
    return false;
  }
  phc->assign(out);
  return true;
}

bool IsPasswordHash(const std::string& phc) {
  char buf[crypto_pwhash_STRBYTES];
  if (!InitCrypto() || phc.compare(0, sizeof kArgon2idPrefix - 1, kArgon2idPrefix) != 0 ||
      !ToPhcBuffer(phc, buf)) {
    return false;
  }
  // -1: not a string libsodium can parse; 0 or 1 (matches these limits or not): valid.
  return crypto_pwhash_str_needs_rehash(buf, crypto_pwhash_OPSLIMIT_INTERACTIVE,
                                        crypto_pwhash_MEMLIMIT_INTERACTIVE) >= 0;
}

bool PasswordHashCostIsBounded(const std::string& phc) {
  // "$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$salt$hash": each figure read as digits.
  auto figure = [&](const char* key) -> uint64_t {
    const size_t at = phc.find(key);
    if (at == std::string::npos) return UINT64_MAX;
    uint64_t v = 0;
    size_t i = at + std::strlen(key);
    if (i >= phc.size() || !std::isdigit(static_cast<unsigned char>(phc[i]))) return UINT64_MAX;
    for (; i < phc.size() && std::isdigit(static_cast<unsigned char>(phc[i])); ++i) {
      if (v > (UINT64_MAX - 9) / 10) return UINT64_MAX;
      v = v * 10 + static_cast<uint64_t>(phc[i] - '0');
    }
    return v;
  };
  const uint64_t memory_kib = figure("$m=");
  const uint64_t passes = figure(",t=");
  return memory_kib <= kMaxPasswordHashMemoryKib && passes <= kMaxPasswordHashPasses;
}

bool VerifyPassword(const std::string& phc, const std::string& password) {
  char buf[crypto_pwhash_STRBYTES];
  if (!IsPasswordHash(phc) || !ToPhcBuffer(phc, buf)) return false;
  return crypto_pwhash_str_verify(buf, password.data(), password.size()) == 0;
}

std::string TokenSha256Hex(const std::string& token) {
  unsigned char digest[crypto_hash_sha256_BYTES];
  if (!InitCrypto()) return std::string();
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(token.data()), token.size());
  char hex[2 * crypto_hash_sha256_BYTES + 1];
  sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
  return std::string(hex, 2 * crypto_hash_sha256_BYTES);
}

bool IsSha256Hex(const std::string& text) {
  if (text.size() != 2 * crypto_hash_sha256_BYTES) return false;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool ConstantTimeEquals(const std::string& a, const std::string& b) {
  return a.size() == b.size() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace common
}  // namespace cfx
