// The journal encoding of engine commands (journal::CommandCodec<engine::Command>).
// Format (docs/formats.md, "Engine command codec"): one version byte, one tag byte (the
// variant index), then the command's fields little-endian: names as u8 length + bytes,
// prices as a flag byte (+ i64 ticks when present), enums as u8. Decode checks the version,
// the tag, every length and enum, and that no byte is left over.
//
//   EngineCodec codec;
//   std::string bytes;
//   codec.Encode(engine::Command{engine::TimeCmd{ts}}, &bytes);
//   engine::Command c;
//   absl::Status s = codec.Decode(bytes, &c);   // DataLoss on a malformed payload
#ifndef CFX_EXCHANGE_ENGINE_CODEC_H_
#define CFX_EXCHANGE_ENGINE_CODEC_H_

#include <string>

#include "cfx/engine/command.h"
#include "cfx/journal/pipeline_interfaces.h"

namespace cfx::exchange {

// 2: requests carry their Origin; 3: a session's mass cancel says whether it is a disconnect;
// 4: a cancel and a mass cancel carry the request's own id, and they and a replace the
// requesting session (answer_to); 5: a session's mass cancel carries its firm; 6: a risk
// setting carries the cap on an account's open orders; 7: and the day-close rule; 8: the
// same layout, the day-close rule may be 2 (closes at stamps): a binary of version 7 would
// take 2 for 1 and replay the closes elsewhere, so it refuses the version instead; 9: the
// same layout, the rule may be 3 (and the engine's clock at each input's stamp); 10: a risk
// setting carries the per-firm STP-group cap.
inline constexpr uint8_t kEngineCodecVersion = 10;
inline constexpr uint8_t kEngineCodecOldestVersion = 1;

// Thread safety: stateless; any thread.
class EngineCodec : public journal::CommandCodec<engine::Command> {
 public:
  void Encode(const engine::Command& command, std::string* out) const override;
  absl::Status Decode(absl::string_view bytes, engine::Command* command) const override;
};

// One line of text for `cfx journal dump`: `new cl=o1 acct=A1 sym=... buy limit px=5250 ...`.
std::string DescribeCommand(const engine::Command& command);

}  // namespace cfx::exchange

#endif  // CFX_EXCHANGE_ENGINE_CODEC_H_
