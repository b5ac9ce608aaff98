// `<data_dir>/fix/reported.generation` (docs/fix.md, "ExecIDs"; layout in docs/formats.md):
// after an operator cut the journal's tail (`cfx journal verify --truncate-corrupt-tail`),
// the inputs sequenced since reuse the seqs of inputs whose reports may have gone out, and
// so their ExecIDs `<seq>-<n>`. The cut records here a new generation from the first seq it
// dropped; the ExecIDs of inputs from `from` on are `<seq>.<generation>-<n>`. The cut is
// recorded where it is made (the CLI), and again by a start that finds the reports
// watermark past the journal's last input (a cut made another way).
//
//   auto g = ReadExecIdGeneration(ExecIdGenerationPath(data_dir));   // {0, 0}: none
//   WriteExecIdGeneration(path, {g->generation + 1, first_cut_seq});
#ifndef CFX_GATEWAY_EXECID_GENERATION_H_
#define CFX_GATEWAY_EXECID_GENERATION_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cfx::gateway {

struct ExecIdGeneration {
  uint32_t generation = 0;  // 0: none (plain ExecIDs)
  uint64_t from = 0;        // the first seq of the generation
};

// `<data_dir>/fix/reported.generation`.
std::string ExecIdGenerationPath(const std::string& data_dir);

// The generation the file holds; {0, 0} when there is no file. DataLoss naming the file when
// it is not exactly one whole line (a start must not guess: the ExecIDs it gives would be
// wrong).
absl::StatusOr<ExecIdGeneration> ReadExecIdGeneration(const std::string& path);

// Writes `g` durably (a 0600 file through a synced temporary file and a rename, the folder
// synced): it is on the disk before any report carries the generation.
absl::Status WriteExecIdGeneration(const std::string& path, ExecIdGeneration g);

// Records a cut of the journal from `first_cut_seq` on: the next generation, from there.
// Returns it.
absl::StatusOr<ExecIdGeneration> RecordJournalCut(const std::string& path, uint64_t first_cut_seq);

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_EXECID_GENERATION_H_
