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
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cfx::gateway {

struct ExecIdGeneration {
  uint32_t generation = 0;  // 0: none (plain ExecIDs)
  uint64_t from = 0;        // the first seq of the generation
};

// `<data_dir>/fix/reported.generation`.
std::string ExecIdGenerationPath(const std::string& data_dir);

// Every generation the file holds, one line a cut, ascending; none when there is no file.
// DataLoss naming the file when a line is not whole or the generations do not ascend (a
// start must not guess: the ExecIDs it gives would be wrong). Until 2026-12-07 the file held
// the latest generation only, and after a second cut the reports sent again of inputs
// between the two cuts carried plain `<seq>-<n>` instead of the ExecIDs they went out with
// (a review); such a one-line file reads as its one generation.
absl::StatusOr<std::vector<ExecIdGeneration>> ReadExecIdGenerations(const std::string& path);
// The latest of them; {0, 0} when there is none.
absl::StatusOr<ExecIdGeneration> ReadExecIdGeneration(const std::string& path);
// The generation of input `seq`'s ExecIDs: that of the latest cut at or before it (0: plain).
uint32_t GenerationOf(const std::vector<ExecIdGeneration>& generations, uint64_t seq);

// Adds `g` (past every generation held) durably (a 0600 file through a synced temporary
// file and a rename, the folder synced): it is on the disk before any report carries it.
absl::Status WriteExecIdGeneration(const std::string& path, ExecIdGeneration g);

// Records a cut of the journal from `first_cut_seq` on: the next generation, from there.
// Returns it.
absl::StatusOr<ExecIdGeneration> RecordJournalCut(const std::string& path, uint64_t first_cut_seq);

}  // namespace cfx::gateway

#endif  // CFX_GATEWAY_EXECID_GENERATION_H_
