// BatchedFileStore: a QuickFIX message store that writes the files of QuickFIX's own
// FileStore, byte for byte, in fewer system calls (docs/fix.md, "The message store").
//
// QuickFIX's FileStore makes about nine system calls for each message the exchange sends
// (two seeks to the ends of its files, a tell, the header and the body each flushed, the
// sequence numbers' file rewound and rewritten) and two for each message it receives. This
// store keeps what changed in memory while a connection serves the session and writes it
// with one call per file when that connection is about to put bytes on the client's
// socket (StoreFiles::Flush), and when the connection ends: a burst of reports costs three
// writes in all. With no connection it writes each change at once, as FileStore does (what
// is sent to an absent client, a cancel-on-disconnect report, a drop copy, waits in the
// files for its resend). The guarantee is QuickFIX's: every message a client has received,
// or that was stored for it while it was away, and the sequence numbers after it, are in
// the files (in the page cache: they survive the process, not the machine, as with
// FileStore), so a restarted exchange resends what a client asks for and never reuses a
// MsgSeqNum the client has seen.
//
//   BatchedFileStoreFactory factory(settings);      // FileStorePath per session
//   FIX::SessionSettings ...; Session(app, factory, ...)
//   auto files = factory.FilesOf(session_id);       // the connection, at the Logon:
//   files->Attach();  ... files->Flush();           // before the session's bytes go out
//   files->Detach();                                // the connection ended (flushes)
//
// C++14 (QuickFIX headers): only the gateway's QuickFIX object library includes this.
#ifndef CFX_GATEWAY_SRC_FIX_STORE_H_
#define CFX_GATEWAY_SRC_FIX_STORE_H_

#include <climits>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cfx/gateway/fix_quickfix.h"

namespace cfx {
namespace gateway {
namespace internal {

// The highest next sequence number a session may reach: QuickFIX keeps them in an int, and a
// client's SequenceReset to 2147483647 followed by one message wrapped the next expected
// number negative; the store then held a value no start would load (an audit, 2026-12-06).
// Two billion messages is no session's day. The store refuses a next number past it (the
// connection is dropped, the files keep the last good numbers); the connection refuses an
// incoming message numbered at or past it before QuickFIX processes it (Link::Next), so
// that no message is acted on whose number the session cannot then move past.
constexpr int kLastNextSeqNum = INT_MAX - (1 << 24);

// A session's four files and what is not yet written to them. Thread-safe: QuickFIX calls
// the store under the session's lock, the connection flushes from whichever thread writes
// to the client.
class StoreFiles {
 public:
  // Opens (creating, mode 0600) `prefix` + "body", "header", "seqnums" and "session" and
  // reads what they hold. Throws FIX::ConfigError naming the file.
  explicit StoreFiles(std::string prefix);
  ~StoreFiles();
  StoreFiles(const StoreFiles&) = delete;
  StoreFiles& operator=(const StoreFiles&) = delete;

  // Writes what changed since the last flush: new messages (body, then header), the
  // sequence numbers. Nothing to write (or the store closed): no system call. Throws
  // FIX::IOException naming the file; what was not written stays pending.
  void Flush();
  // A connection serves the session from now on: changes wait for its flushes. Detach (the
  // connection ended) writes what waits; with no connection attached every change is
  // written at once. Detach throws as Flush.
  void Attach();
  void Detach();
  // Whether anything waits for Flush (for tests).
  bool Pending() const;
  // Where the first piece of a resend of [begin, end] ends when a piece may hold at most
  // `max_messages` (>= 1) stored messages: on the last stored message it holds, or at `end`
  // when none is stored in [begin, end]; *count: the stored messages in the piece. A piece
  // that ends on a stored message needs no gap fill after its last one, and a range with
  // nothing stored is gap-filled numbered from its own start (docs/fix.md, "Resend").
  int PieceEnd(int begin, int end, std::size_t max_messages, std::size_t* count) const;
  // The messages stored under [begin, end], in order (written first, read from the body
  // file; one that is not what its number stored is left out and forgotten). Throws
  // FIX::IOException naming the file.
  void Get(int begin, int end, std::vector<std::string>* out);

 private:
  friend class BatchedFileStore;
  typedef std::pair<long, std::size_t> OffsetSize;

  void Open(bool truncate);  // mu_ held; on failure every file is closed
  void OpenFiles(bool truncate);
  void CloseFiles();
  void Load();          // mu_ held: the files' contents into the cache and offsets
  void FlushLocked();   // mu_ held
  void Changed();       // mu_ held: after a change, written at once when unattached
  void WriteSession();  // mu_ held: the creation time, at once
  void Close();         // the store is gone: flushed, closed, later flushes do nothing

  const std::string prefix_;
  mutable std::mutex mu_;
  FIX::MemoryStore cache_;  // sequence numbers and creation time (no messages)
  std::map<int, OffsetSize> offsets_;
  int body_fd_ = -1, header_fd_ = -1, seqnums_fd_ = -1, session_fd_ = -1;
  long body_size_ = 0;        // the body file's length once the pending bytes are written
  std::string body_pending_;  // messages set since the last flush
  std::string header_pending_;
  bool seqnums_dirty_ = false;
  int attached_ = 0;     // connections serving the session (one, or two while one hands over)
  bool closed_ = false;  // Close() ran: the files belong to no store any more
};

class BatchedFileStore : public FIX::MessageStore {
 public:
  explicit BatchedFileStore(std::shared_ptr<StoreFiles> files) : files_(std::move(files)) {}
  ~BatchedFileStore() override;

  bool set(int seq, const std::string& message) throw(FIX::IOException) override;
  void get(int begin, int end, std::vector<std::string>& out) const
      throw(FIX::IOException) override;
  int getNextSenderMsgSeqNum() const throw(FIX::IOException) override;
  int getNextTargetMsgSeqNum() const throw(FIX::IOException) override;
  void setNextSenderMsgSeqNum(int value) throw(FIX::IOException) override;
  void setNextTargetMsgSeqNum(int value) throw(FIX::IOException) override;
  void incrNextSenderMsgSeqNum() throw(FIX::IOException) override;
  void incrNextTargetMsgSeqNum() throw(FIX::IOException) override;
  FIX::UtcTimeStamp getCreationTime() const throw(FIX::IOException) override;
  // As FileStore: empties the four files, a new creation time.
  void reset() throw(FIX::IOException) override;
  // As FileStore: reads the files again (what was pending is written first).
  void refresh() throw(FIX::IOException) override;

  const std::shared_ptr<StoreFiles>& files() const { return files_; }

 private:
  std::shared_ptr<StoreFiles> files_;
};

// Creates a BatchedFileStore per session under the session's FileStorePath, named as
// FileStore names its files, and finds a session's files for the connection that flushes
// them.
class BatchedFileStoreFactory : public FIX::MessageStoreFactory {
 public:
  explicit BatchedFileStoreFactory(const FIX::SessionSettings& settings) : settings_(settings) {}
  explicit BatchedFileStoreFactory(std::string path) : path_(std::move(path)) {}

  FIX::MessageStore* create(const FIX::SessionID& id) override;
  void destroy(FIX::MessageStore* store) override;

  // The files of session `id`'s store; nullptr when it has none (yet).
  std::shared_ptr<StoreFiles> FilesOf(const FIX::SessionID& id) const;
  // Flushes every session's files; false when one could not be written (it keeps what it
  // could not write pending, and its connection closes at its own next flush).
  bool FlushAll() const;

 private:
  const std::string path_;
  const FIX::SessionSettings settings_;
  mutable std::mutex mu_;
  std::map<FIX::SessionID, std::shared_ptr<StoreFiles>> files_;  // under mu_
};

}  // namespace internal
}  // namespace gateway
}  // namespace cfx

#endif  // CFX_GATEWAY_SRC_FIX_STORE_H_
