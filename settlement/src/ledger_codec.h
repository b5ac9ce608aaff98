// Private: JSON encoding of ledger day records and contract states.
#ifndef CFX_SETTLEMENT_SRC_LEDGER_CODEC_H_
#define CFX_SETTLEMENT_SRC_LEDGER_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cfx/settlement/ledger.h"

namespace cfx::settlement::internal {

std::string EncodeDayRecord(const DayRecord& day);
absl::StatusOr<DayRecord> DecodeDayRecord(std::string_view json);
std::string EncodeContractState(const ContractState& state);
absl::StatusOr<ContractState> DecodeContractState(std::string_view json);

}  // namespace cfx::settlement::internal

#endif  // CFX_SETTLEMENT_SRC_LEDGER_CODEC_H_
