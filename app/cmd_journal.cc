// `cfx journal verify` and `cfx journal dump`: operator tools over a data dir's journal.
//
//   cfx journal verify --data-dir D [--truncate-corrupt-tail]
//   cfx journal dump --data-dir D [--from SEQ] [--limit N]
//
// Both exit 1 on corruption, naming the record's seq ("journal record 1234: checksum
// mismatch"). Cutting a corrupt tail happens only with the explicit flag.
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cfx/exchange/engine_codec.h"
#include "cfx/exchange/trade_recorder.h"
#include "cfx/gateway/execid_generation.h"
#include "cfx/journal/journal.h"
#include "cfx/journal/pipeline_interfaces.h"
#include "cfx/storage/kv_store.h"
#include "cfx/storage/private_files.h"
#include "cfx/trade_store/format.h"
#include "nlohmann/json.hpp"
#include "registry.h"
#include "run_status.h"

namespace cfx::app {
namespace {

// One JSON line of output. Paths and names are bytes, not always UTF-8 (a data dir named in
// Latin-1, say): written with U+FFFD for what is not, where nlohmann's dump() throws and
// the command died of the exception (taken by verify's parent for a damaged LMDB page).
std::string Json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// After a cut to `journal_last`: moves `<data_dir>/trades` to `trades.before-cut-<seq>` when
// it recorded inputs past it. The new folder's path, or "" when there was nothing to move.
absl::StatusOr<std::string> MoveTradeStoreAhead(const std::string& data_dir,
                                                uint64_t journal_last) {
  uint64_t recorded = 0;
  {
    storage::KvOptions opt;
    opt.file = trade_store::kTradeStoreFile;
    opt.create = false;
    auto store = storage::KvStore::Open(data_dir, opt);
    if (absl::IsNotFound(store.status())) return std::string();
    if (!store.ok()) return store.status();
    auto txn = (*store)->BeginRead();
    if (!txn.ok()) return txn.status();
    auto last = (*txn)->Get(trade_store::kMetaTable, trade_store::kLastSeqKey);
    if (!last.ok()) return last.status();
    // A value that is no number is damage: moved aside as well, to be rebuilt.
    if (last->has_value() && !absl::SimpleAtoi(**last, &recorded)) recorded = UINT64_MAX;
  }
  if (recorded <= journal_last) return std::string();
  const std::string from = absl::StrCat(data_dir, "/", trade_store::kTradeStoreFile);
  const std::string to = absl::StrCat(from, ".before-cut-", journal_last + 1);
  std::error_code ec;
  if (std::filesystem::exists(to, ec)) {
    return absl::FailedPreconditionError(absl::StrCat(
        from, " recorded inputs past the cut and must be moved aside, but ", to,
        " is already there: move one of them away and run the cut again (it moves the store)"));
  }
  std::filesystem::rename(from, to, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("cannot move ", from, " to ", to, ": ", ec.message()));
  }
  return to;
}

// How dump shows a payload: the input's sequencer stamp (µs; 0: none) and the decoded
// engine command (EngineCodec) as {"time_us": n, "command": text}; a payload that does not
// decode shows the error and the bytes in hex, so an operator can still see what is there.
nlohmann::json DescribePayload(absl::string_view payload) {
  engine::Command command;
  int64_t time_us = 0;
  const exchange::EngineCodec codec;
  absl::Status s = journal::DecodeInput(payload, codec, &time_us, &command);
  if (s.ok()) return {{"time_us", time_us}, {"command", exchange::DescribeCommand(command)}};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * payload.size());
  for (unsigned char c : payload) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  return {{"error", std::string(s.message())}, {"hex", hex}};
}

// Runs `body` in a child process and returns its exit status. LMDB aborts the process on a
// page whose type is wrong (docs/durability.md, "Corruption and the explicit truncate"), so
// an operator tool run on a damaged file would end with SIGABRT and a line of LMDB's
// source; run in a child, the abort is reported: the file, the signal, what to do, exit 1
// (for verify also the JSON line, "ok":false). An interrupted write transaction (the cut)
// leaves the file as it was: LMDB commits by its meta page.
template <typename Body>
ExitCode InAChildProcess(absl::string_view command, const std::string& data_dir, bool json,
                         Body body) {
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = ::fork();
  if (child < 0) return body();  // no child to be had: as before, in this process
  if (child == 0) {
    ExitCode rc = body();
    if (!StandardOutputReached() && rc == 0) rc = 1;
    std::cerr.flush();
    std::_Exit(rc);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  const int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  const char* name = sig != 0 && sigabbrev_np(sig) != nullptr ? sigabbrev_np(sig) : "?";
  // An abort (LMDB's page check) or a fault (a page the map does not hold) is the file's
  // damage; another signal (an operator's Ctrl-C, the OOM killer) says nothing of the file.
  const bool damage = sig == SIGABRT || sig == SIGBUS || sig == SIGSEGV;
  const std::string error =
      damage ? absl::StrCat("reading ", data_dir, "/journal stopped the process (signal ", sig,
                            ", ", name,
                            "): the journal's LMDB file has a damaged page (LMDB's own line "
                            "above says where). Restore the data dir from a replica or a backup")
             : absl::StrCat("reading ", data_dir, "/journal was stopped by signal ", sig, " (",
                            name, ")");
  if (json) {
    std::cout << Json({{"path", data_dir + "/journal"}, {"ok", false}, {"error", error}}) << "\n";
  }
  return Fail(command, error);
}

// Where `verify --truncate-corrupt-tail` will cut (0: nothing), found read-only: the first
// record the commit log drops, or the first bad LMDB record, whichever comes first.
absl::StatusOr<uint64_t> PlannedCut(const std::string& data_dir) {
  auto journal = journal::Journal::Open(
      {.data_dir = data_dir, .read_only = true, .cut_damaged_commit_log = true});
  if (!journal.ok()) return journal.status();
  uint64_t cut = (*journal)->CommitLogCut();
  uint64_t last_good = 0;
  const absl::Status s = (*journal)->ReadFrom(1, [&](uint64_t seq, absl::string_view) {
    last_good = seq;
    return true;
  });
  if (!s.ok() && (cut == 0 || last_good + 1 < cut)) cut = last_good + 1;
  return cut;
}

ExitCode RunVerify(const std::string& data_dir, bool truncate) {
  // A cut opens the journal writable, which makes what is missing: on a mistyped path or an
  // unmounted volume it left an empty journal there, exited 0, and `cfx serve` then started
  // a new exchange on it (reusing order ids, ExecIDs and MsgSeqNums) where it refuses a
  // missing one (until 2026-12-07, a review). A cut needs a journal to cut, in a data dir
  // that is the exchange's own.
  if (truncate) {
    if (absl::Status s = storage::CheckPrivateDir(data_dir); !s.ok()) {
      return Fail("journal verify", s);
    }
    std::error_code ec;
    const std::string file = data_dir + "/journal/data.mdb";
    const auto size = std::filesystem::file_size(file, ec);
    if (ec || size == 0) {
      return Fail("journal verify",
                  absl::NotFoundError(absl::StrCat(
                      file, ec ? " does not exist" : " is empty",
                      ": no journal to cut (a mistyped --data-dir, or a volume not mounted?); "
                      "nothing was created")));
    }
  }
  // The ExecID generation of the seqs a cut frees is recorded before the cut is made: made
  // first, a failure to record it (or a process that died between) left a cut that a rerun
  // no longer finds, and the inputs that reuse the seqs repeated ExecIDs clients had seen
  // (a review, 2026-12-07). A rerun after a failure here finds the same cut again.
  const bool served_fix = std::filesystem::is_directory(data_dir + "/fix");
  std::optional<gateway::ExecIdGeneration> recorded;
  if (truncate && served_fix) {
    absl::StatusOr<uint64_t> planned = PlannedCut(data_dir);
    if (planned.ok() && *planned != 0) {
      auto generation =
          gateway::RecordJournalCut(gateway::ExecIdGenerationPath(data_dir), *planned);
      if (!generation.ok()) return Fail("journal verify", generation.status());
      recorded = *generation;
    }
  }
  // With the cut, a damaged entry inside the commit log ends its reading there (the records
  // after it are dropped, and said so below); without it the open reports the damage.
  auto journal = journal::Journal::Open(
      {.data_dir = data_dir, .read_only = !truncate, .cut_damaged_commit_log = truncate});
  if (!journal.ok()) {
    // The JSON line too (docs/durability.md: a script reads "ok"): until 2026-12-07 a
    // journal that could not be opened printed none (a review).
    std::cout << Json({{"path", data_dir + "/journal"},
                       {"ok", false},
                       {"error", std::string(journal.status().message())}})
              << "\n";
    return Fail("journal verify", journal.status());
  }
  const uint64_t log_cut = (*journal)->CommitLogCut();
  if (log_cut != 0 && (*journal)->CommitLogMissing()) {
    std::cerr << "cfx journal verify: the commit log is missing; whatever it held from record "
              << log_cut << " on is lost (the next start makes a new one)\n";
  } else if (log_cut != 0 && (*journal)->CommitLogCutShort()) {
    std::cerr << "cfx journal verify: the commit log was cut short after record " << log_cut - 1
              << "; whatever it held from record " << log_cut << " on is lost\n";
  } else if (log_cut != 0) {
    std::cerr << "cfx journal verify: the commit log is damaged after record " << log_cut - 1
              << "; records " << log_cut << ".. it held after the damage were dropped\n";
  }
  uint64_t last_good = 0, records = 0;
  absl::Status s = (*journal)->ReadFrom(1, [&](uint64_t seq, absl::string_view) {
    last_good = seq;
    ++records;
    return true;
  });
  int skipped = 0;
  auto snapshot = (*journal)->LatestValidSnapshot(&skipped);
  nlohmann::json out = {{"path", (*journal)->path()},
                        {"ok", s.ok()},
                        {"records", records},
                        {"last_good_seq", last_good},
                        {"last_seq", (*journal)->LastSeq()},
                        // Records only the journal's commit log holds (a run that stopped
                        // before copying them into LMDB; --truncate-corrupt-tail copies them).
                        {"from_commit_log", (*journal)->RecoveredFromCommitLog()},
                        {"corrupt_snapshots", skipped}};
  if (log_cut != 0) out["commit_log_cut_from"] = log_cut;
  // A damaged mark: no start opens the journal until the operator's cut writes it again.
  const bool mark_damaged = (*journal)->CommitLogMarkDamaged();
  if (mark_damaged) {
    out["commit_log_mark_damaged"] = true;
    if (!truncate) {
      out["ok"] = false;
      out["error"] =
          "the commit log's mark in LMDB is damaged: every start is refused until "
          "`--truncate-corrupt-tail` writes it again (no record is dropped for it)";
      std::cout << Json(out) << "\n";
      return Fail("journal verify", out["error"].get<std::string>());
    }
    std::cerr << "cfx journal verify: the commit log's mark was damaged; written again\n";
  }
  if ((*journal)->CommitLogMissing()) out["commit_log_missing"] = true;
  // The last entry cut short or damaged, nothing intact after it: an append a crash
  // interrupted (never acknowledged), not applied; reported, not an error (docs/formats.md).
  if (uint64_t torn = (*journal)->CommitLogTornAt(); torn != 0) out["commit_log_torn_at"] = torn;
  out["latest_snapshot_seq"] =
      snapshot.ok() && snapshot->has_value() ? nlohmann::json((*snapshot)->seq) : nullptr;
  if (!snapshot.ok()) {
    // The snapshot store itself cannot be read: a start replays the whole journal (slower,
    // not wrong), so the journal is still ok; said here (until 2026-12-06 it was hidden).
    out["snapshots_unreadable"] = std::string(snapshot.status().message());
    std::cerr << "cfx journal verify: the snapshots cannot be read (" << snapshot.status().message()
              << "); a start replays the whole journal\n";
  }
  // The trade store is derived from the journal: one that recorded inputs a cut dropped
  // would keep their trades and positions, and take the inputs that reuse their seqs for
  // recorded ones (a start refuses it). Moved aside whole, kept for the operator; the next
  // start rebuilds it from the journal. Also on a rerun that finds nothing more to cut (a
  // cut whose move failed, or a process that died after the cut).
  auto move_trade_store = [&]() -> absl::Status {
    if (!truncate) return absl::OkStatus();
    auto moved = MoveTradeStoreAhead(data_dir, (*journal)->LastSeq());
    if (!moved.ok()) return moved.status();
    if (moved->empty()) return absl::OkStatus();
    out["trade_store_moved_to"] = *moved;
    std::cerr << "cfx journal verify: " << data_dir << "/trades recorded inputs past the cut; "
              << "moved to " << *moved << " (the next start rebuilds the trade store from the "
              << "journal; a settlement ledger may hold days settled on the trades cut)\n";
    return absl::OkStatus();
  };
  if (s.ok() && log_cut == 0) {
    if (absl::Status m = move_trade_store(); !m.ok()) {
      std::cout << Json(out) << "\n";
      return Fail("journal verify", m);
    }
    std::cout << Json(out) << "\n";
    return 0;
  }
  uint64_t first_cut = log_cut;  // the commit log's records from there on were dropped
  if (!s.ok()) {
    out["error"] = std::string(s.message());
    out["first_bad_seq"] = last_good + 1;
    if (!truncate) {
      std::cout << Json(out) << "\n";
      return Fail("journal verify", s);
    }
    // Operator action, asked for explicitly: drop the bad record and everything after it.
    absl::Status cut = (*journal)->TruncateAfter(last_good);
    if (!cut.ok()) return Fail("journal verify", cut);
    out["truncated_from"] = last_good + 1;
    first_cut = last_good + 1;
    std::cerr << "cfx journal verify: truncated records " << last_good + 1 << ".. (" << s.message()
              << ")\n";
  }
  // The inputs sequenced next reuse the dropped seqs, whose reports may have gone out: where
  // the exchange served FIX, their ExecIDs take a new generation (docs/fix.md, "ExecIDs").
  if (served_fix) {
    // Recorded before the cut (above); again only if the cut starts earlier than planned.
    absl::StatusOr<gateway::ExecIdGeneration> generation =
        recorded && recorded->from <= first_cut
            ? absl::StatusOr<gateway::ExecIdGeneration>(*recorded)
            : gateway::RecordJournalCut(gateway::ExecIdGenerationPath(data_dir), first_cut);
    if (!generation.ok()) {
      std::cout << Json(out) << "\n";
      return Fail("journal verify", generation.status());
    }
    out["execid_generation"] = generation->generation;
    std::cerr << "cfx journal verify: the ExecIDs of inputs from " << first_cut << " on are <seq>."
              << generation->generation << "-<n> (" << gateway::ExecIdGenerationPath(data_dir)
              << ")\n";
  }
  // Only now, with the generation recorded, is a missing log's loss accepted: a run that
  // failed before this finds the loss again (and records the generation) when rerun.
  if (absl::Status accepted = (*journal)->AcceptCommitLogLoss(); !accepted.ok()) {
    std::cout << Json(out) << "\n";
    return Fail("journal verify", accepted);
  }
  if (absl::Status m = move_trade_store(); !m.ok()) {
    std::cout << Json(out) << "\n";
    return Fail("journal verify", m);
  }
  std::cout << Json(out) << "\n";
  return 0;
}

ExitCode RunDump(const std::string& data_dir, uint64_t from, uint64_t limit) {
  auto journal = journal::Journal::Open({.data_dir = data_dir, .read_only = true});
  if (!journal.ok()) return Fail("journal dump", journal.status());
  uint64_t printed = 0, last = from == 0 ? 0 : from - 1;
  absl::Status s = (*journal)->ReadFrom(from, [&](uint64_t seq, absl::string_view payload) {
    if (limit != 0 && printed >= limit) return false;
    nlohmann::json line = {{"seq", seq}, {"length", payload.size()}, {"checksum_ok", true}};
    line["payload"] = DescribePayload(payload);
    std::cout << Json(line) << "\n";
    last = seq;
    ++printed;
    return true;
  });
  if (!s.ok()) {
    nlohmann::json line = {{"seq", last + 1}, {"checksum_ok", false},
                           {"error", std::string(s.message())}};
    std::cout << Json(line) << "\n";
    std::cout.flush();
    return Fail("journal dump", s);
  }
  return 0;
}

void SetupJournal(CLI::App& parent, ExitCode* rc) {
  CLI::App* group = parent.add_subcommand("journal", "Inspect and check the durable journal");
  group->require_subcommand(1);

  CLI::App* verify = group->add_subcommand(
      "verify", "Check every record and snapshot; exit 1 naming the first bad seq");
  // Flag storage lives as long as the process (setup runs once).
  static std::string verify_dir;
  static bool truncate = false;
  verify->add_option("--data-dir", verify_dir, "Data directory (holds journal/)")->required();
  verify->add_flag("--truncate-corrupt-tail", truncate,
                   "OPERATOR ACTION: delete the first bad record and everything after it");
  verify->callback([rc] {
    *rc = InAChildProcess("journal verify", verify_dir, /*json=*/true,
                          [] { return RunVerify(verify_dir, truncate); });
  });

  CLI::App* dump = group->add_subcommand("dump", "Print records as JSON lines");
  static std::string dump_dir;
  static uint64_t from = 1;
  static uint64_t limit = 0;
  dump->add_option("--data-dir", dump_dir, "Data directory (holds journal/)")->required();
  dump->add_option("--from", from, "First seq to print (default 1)");
  dump->add_option("--limit", limit, "Most records to print (default all)");
  dump->callback([rc] {
    *rc = InAChildProcess("journal dump", dump_dir, /*json=*/false,
                          [] { return RunDump(dump_dir, from, limit); });
  });
}
CFX_REGISTER_COMMAND("", SetupJournal);

}  // namespace
}  // namespace cfx::app
