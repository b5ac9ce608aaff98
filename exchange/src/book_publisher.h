// Published book snapshots: one seqlock per symbol, written by the matcher thread after each
// input that touched the book, read by any thread (HTTP GET /v1/book, FIX market data).
// Readers never take a lock and never make the matcher wait: a reader that races a write
// retries. The payload is copied word by word through relaxed atomics between the version
// loads/stores (acquire/release fences), so there is no data race in the C++ model.
#ifndef CFX_EXCHANGE_BOOK_PUBLISHER_H_
#define CFX_EXCHANGE_BOOK_PUBLISHER_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cfx/engine/engine.h"
#include "cfx/exchange/exchange_core.h"

namespace cfx::exchange::internal {

struct alignas(8) PublishedBook {
  uint64_t seq = 0;
  int64_t ts = 0;  // the exchange time of input `seq` (ns; kNoTime: none)
  uint8_t state = 0;
  uint8_t has_last = 0;
  uint8_t nbids = 0, nasks = 0;
  engine::PriceTicks last_px{0};
  engine::Qty last_qty{0};
  int64_t last_ts = 0;
  struct Level {
    engine::PriceTicks px;
    engine::Qty qty;
    int64_t count;
  } levels[2][kMaxPublishedDepth];
};

// Thread safety: Publish/AddSymbol on one writer thread (the matcher, or the recovering
// thread before it starts); Read/Symbols on any thread.
class BookPublisher {
 public:
  static constexpr size_t kMaxSymbols = 4096;
  BookPublisher();

  // Writer: publishes `book` of `engine` as of input `seq`, whose exchange time is `ts`.
  // Symbols beyond kMaxSymbols are not published (logged once).
  void Publish(const engine::Engine& engine, engine::SymbolId id, uint64_t seq,
               engine::Timestamp ts);
  // Writer: records the latest trade of a book (published with its next Publish).
  void NoteTrade(engine::SymbolId id, engine::PriceTicks px, engine::Qty qty, engine::Timestamp ts);
  // Writer: whether NoteTrade has recorded a trade of the book.
  bool HasLastTrade(engine::SymbolId id) const {
    return id < kMaxSymbols && slots_[id].last.has_last != 0;
  }

  std::optional<BookView> Read(std::string_view sym, int depth) const;
  std::vector<std::string> Symbols() const;
  // Changes when a symbol is first published or a book enters or leaves `expired`: readers
  // that cache the listing compare it (any thread).
  uint64_t listing_version() const { return listing_version_.load(std::memory_order_acquire); }

 private:
  static constexpr size_t kWords = sizeof(PublishedBook) / 8;
  struct Slot {
    std::atomic<uint64_t> version{0};
    std::atomic<uint64_t> words[kWords];
    char name[engine::kMaxIdLength + 1] = {};
    // Writer-only scratch: last trade kept between publishes, and the state last published.
    PublishedBook last{};
    bool expired = false;
  };
  int Find(std::string_view sym) const;

  std::unique_ptr<Slot[]> slots_;
  std::atomic<size_t> count_{0};
  std::atomic<uint64_t> listing_version_{0};
  std::vector<engine::LevelView> scratch_;
};

}  // namespace cfx::exchange::internal

#endif  // CFX_EXCHANGE_BOOK_PUBLISHER_H_
