// The FIX 4.4 data dictionary (gateway/fix/CFX-FIX44.xml), embedded at build time so the
// gateway never depends on where the source tree is at run time.
#ifndef CFX_GATEWAY_FIX_DICTIONARY_H_
#define CFX_GATEWAY_FIX_DICTIONARY_H_

namespace cfx {
namespace gateway {
namespace internal {

const char* FixDictionaryText();

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_FIX_DICTIONARY_H_
