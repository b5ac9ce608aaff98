// Credentials as the config stores them (SPEC §6, §7, docs/config.md): session passwords as
// argon2id PHC strings (libsodium's crypto_pwhash_str), HTTP bearer tokens as SHA-256 hex
// digests. `cfx passwd` makes both; the gateways verify with them.
//
//   std::string phc;
//   if (!HashPassword("alpha-secret", InteractiveLimits(), &phc)) { ... }  // ~0.1 s
//   bool ok = VerifyPassword(phc, "alpha-secret");  // costs what the limits in `phc` say
//   std::string digest = TokenSha256Hex("tok-alpha");  // 64 lowercase hex digits, ~1 us
//
// C++14-clean: the FIX gateway's QuickFIX side (built as C++14) includes it.
// Thread safety: every function is thread-safe; libsodium is initialised once, on first use.
#ifndef CFX_COMMON_CREDENTIALS_H_
#define CFX_COMMON_CREDENTIALS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace cfx {
namespace common {

// argon2id cost parameters. The verifier reads them from the PHC string, so a config may
// mix hashes made with different limits.
struct PasswordHashLimits {
  unsigned long long opslimit = 0;  // passes over memory
  size_t memlimit_bytes = 0;
};

// libsodium's interactive limits (2 passes, 64 MiB): what `cfx passwd` writes by default.
PasswordHashLimits InteractiveLimits();
// The least libsodium accepts (1 pass, 8 KiB): test configs only, never a real password.
PasswordHashLimits MinimumLimits();

// Initialises libsodium (once; later calls return the first result). False when it cannot
// run (no entropy source); every function below then fails closed.
bool InitCrypto();

// Stores the argon2id PHC string of `password` in *phc. False when libsodium cannot run,
// the limits are outside its range, or memory is short.
bool HashPassword(const std::string& password, PasswordHashLimits limits, std::string* phc);

// True if `phc` is an argon2id PHC string libsodium can verify. Cheap: parses, hashes nothing.
bool IsPasswordHash(const std::string& phc);

// The most a password hash in the config may ask of a Logon's verification: 1 GiB of memory
// (libsodium's "sensitive" level) and 16 passes. A hash past them (`m=4294967295`, a typo or
// worse) would hold a logon thread for minutes or fail for want of memory at every Logon.
constexpr uint64_t kMaxPasswordHashMemoryKib = 1 << 20;
constexpr uint64_t kMaxPasswordHashPasses = 16;
// Whether `phc` (IsPasswordHash) asks at most that.
bool PasswordHashCostIsBounded(const std::string& phc);

// True if `password` matches `phc`. Costs what the limits in `phc` say (docs/fix.md gives
// the figure); false, at once, for a string IsPasswordHash refuses.
bool VerifyPassword(const std::string& phc, const std::string& password);

// SHA-256 of `token` as 64 lowercase hex digits.
std::string TokenSha256Hex(const std::string& token);

// True if `text` is 64 hex digits (either case).
bool IsSha256Hex(const std::string& text);

// Compares in time that depends only on the lengths (a length mismatch returns at once).
bool ConstantTimeEquals(const std::string& a, const std::string& b);

}  // namespace common
}  // namespace cfx

#endif  // CFX_COMMON_CREDENTIALS_H_
