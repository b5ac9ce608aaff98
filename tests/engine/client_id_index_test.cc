// ClientIdIndex against a std::map model: random inserts, lookups, give-backs of the last
// insert and retains, with hashes chosen by the test so that clusters, wrap-around and
// equal tags (the record compare) are all exercised.
#include "cfx/engine/client_id_index.h"

#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cfx/engine/name_table.h"
#include "gtest/gtest.h"

namespace cfx::engine {
namespace {

using Key = std::pair<AccountId, std::string>;

struct Model {
  std::map<Key, OrderId> oids;
  std::vector<Key> order;  // insertion order
};

// Checks every model key is found with its oid, ForEach lists the model in order, and a few
// absent keys are absent.
void ExpectSame(const ClientIdIndex& index, const Model& m,
                const std::function<uint64_t(const Key&)>& hash) {
  ASSERT_EQ(index.size(), m.oids.size());
  for (const auto& [key, oid] : m.oids) {
    const uint32_t rec = index.Find(hash(key), key.first, ClientId::From(key.second));
    ASSERT_NE(rec, ClientIdIndex::kNone) << key.second;
    EXPECT_EQ(index.oid(rec), oid) << key.second;
  }
  size_t i = 0;
  index.ForEach([&](AccountId acct, const ClientId& cl, OrderId oid) {
    ASSERT_LT(i, m.order.size());
    EXPECT_EQ(Key(acct, std::string(cl.view())), m.order[i]);
    EXPECT_EQ(oid, m.oids.at(m.order[i]));
    ++i;
  });
  EXPECT_EQ(i, m.order.size());
}

// Hashes that land in few buckets and often share their upper 32 bits, so that the record
// compare, not the tag, tells keys apart.
uint64_t CrowdedHash(const Key& k) {
  uint64_t h = std::hash<std::string>{}(k.second) ^ (uint64_t{k.first} * 0x9E3779B97F4A7C15ull);
  return (h & 0x1F) | ((h >> 40) & 0x3) << 32;
}

TEST(ClientIdIndexTest, MatchesAMapUnderRandomOperations) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    ClientIdIndex index(8, /*seed=*/seed);  // tiny: the table grows many times
    Model m;
    OrderId next = 1;
    for (int step = 0; step < 4000; ++step) {
      const Key key{static_cast<AccountId>(rng() % 3), absl::StrCat("c", rng() % 600)};
      const uint64_t h = CrowdedHash(key);
      const ClientId cl = ClientId::From(key.second);
      const int op = static_cast<int>(rng() % 10);
      if (op < 6) {  // take the id; sometimes give it back at once (a rejected order)
        auto [rec, fresh] = index.TryInsert(h, key.first, cl);
        EXPECT_EQ(fresh, !m.oids.contains(key)) << step;
        if (!fresh) continue;
        if (rng() % 4 == 0) {
          index.EraseLast();
        } else {
          EXPECT_EQ(index.slot(rec), kNoSlot) << step;  // a fresh id names no order yet
          index.set_order(rec, next, static_cast<uint32_t>(next * 7));
          m.oids[key] = next++;
          m.order.push_back(key);
        }
      } else if (op < 9) {  // look up; end the order (oid 0) sometimes
        const uint32_t rec = index.Find(h, key.first, cl);
        ASSERT_EQ(rec != ClientIdIndex::kNone, m.oids.contains(key)) << step;
        if (rec != ClientIdIndex::kNone) {
          const OrderId oid = m.oids[key];
          EXPECT_EQ(index.slot(rec), oid == 0 ? kNoSlot : static_cast<uint32_t>(oid * 7)) << step;
        }
        if (rec != ClientIdIndex::kNone && rng() % 3 == 0) {
          index.set_order(rec, 0, kNoSlot);
          m.oids[key] = 0;
        }
      } else if (step % 50 == 0) {  // the day's change: keep the live ones
        index.RetainIf([](OrderId oid, uint32_t) { return oid != 0; });
        std::erase_if(m.oids, [](const auto& kv) { return kv.second == 0; });
        std::erase_if(m.order, [&](const Key& k) { return !m.oids.contains(k); });
      }
    }
    ExpectSame(index, m, CrowdedHash);
  }
}

TEST(ClientIdIndexTest, EraseLastKeepsEveryOtherKeyReachableAcrossTheTableEnd) {
  ClientIdIndex index(8, /*seed=*/7);  // 16 buckets
  // Five keys homed in the last two buckets: the cluster wraps to the front.
  const uint64_t h15 = 15, h14 = 14;
  std::vector<std::tuple<uint64_t, ClientId>> keys;
  for (int i = 0; i < 5; ++i) {
    keys.emplace_back(i % 2 == 0 ? h15 : h14, ClientId::From(absl::StrCat("k", i)));
  }
  for (auto& [h, cl] : keys) ASSERT_TRUE(index.TryInsert(h, 1, cl).second);
  // A key homed at bucket 0, placed behind the wrapped cluster, then given back.
  ASSERT_TRUE(index.TryInsert(0, 1, ClientId::From("last")).second);
  index.EraseLast();
  EXPECT_EQ(index.Find(0, 1, ClientId::From("last")), ClientIdIndex::kNone);
  for (auto& [h, cl] : keys) EXPECT_NE(index.Find(h, 1, cl), ClientIdIndex::kNone);
  // Give back a key in the middle of the cluster's probe path.
  ASSERT_TRUE(index.TryInsert(h14, 1, ClientId::From("mid")).second);
  index.EraseLast();
  for (auto& [h, cl] : keys) EXPECT_NE(index.Find(h, 1, cl), ClientIdIndex::kNone);
  EXPECT_EQ(index.size(), 5u);
}

// A rejected order's id given back leaves no bucket taken: a stream of rejects never fills
// the table (16 buckets here, 1,000 rejects; a leaked bucket per reject would leave a probe
// with no empty bucket to stop at).
TEST(ClientIdIndexTest, GivingBackTheNewestLeavesNoBucketTaken) {
  ClientIdIndex index(8, /*seed=*/5);
  ASSERT_TRUE(index.TryInsert(3, 0, ClientId::From("kept")).second);
  for (uint64_t i = 0; i < 1000; ++i) {
    const ClientId cl = ClientId::From(absl::StrCat("rejected", i));
    ASSERT_TRUE(index.TryInsert(i * 7, 0, cl).second);
    index.EraseLast();
    ASSERT_EQ(index.Find(i * 7, 0, cl), ClientIdIndex::kNone);
  }
  EXPECT_EQ(index.size(), 1u);
  EXPECT_NE(index.Find(3, 0, ClientId::From("kept")), ClientIdIndex::kNone);
}

TEST(ClientIdIndexTest, SameIdOfAnotherAccountIsAnotherKey) {
  ClientIdIndex index(16, /*seed=*/9);
  const ClientId cl = ClientId::From("o1");
  const uint64_t h1 = index.HashKey(Name::From("A"), cl);
  const uint64_t h2 = index.HashKey(Name::From("B"), cl);
  EXPECT_NE(h1, h2);
  EXPECT_TRUE(index.TryInsert(h1, 0, cl).second);
  EXPECT_TRUE(index.TryInsert(h2, 1, cl).second);
  EXPECT_FALSE(index.TryInsert(h1, 0, cl).second);
  // Equal hashes do not make equal keys: the record decides.
  EXPECT_TRUE(index.TryInsert(h1, 1, ClientId::From("o2")).second);
}

TEST(ClientIdIndexTest, HashReadsOnlyTheStringsBytes) {
  ClientIdIndex index(16, /*seed=*/11);
  ClientId a = ClientId::From("a-long-client-order-id-0123456");
  a.Assign("short");  // the tail of the array still holds the old bytes
  EXPECT_EQ(index.HashKey(Name::From("X"), a),
            index.HashKey(Name::From("X"), ClientId::From("short")));
  // The length counts: "a" and "a\0" differ.
  EXPECT_NE(index.HashKey(Name::From("X"), ClientId::From("a")),
            index.HashKey(Name::From("X"), ClientId::From(std::string_view("a\0", 2))));
  // Seeded: another index hashes differently (a client cannot aim at buckets).
  ClientIdIndex other(16, /*seed=*/12);
  EXPECT_NE(index.HashKey(Name::From("X"), a), other.HashKey(Name::From("X"), a));
}

// The key compare reads eight bytes at a time: every length from 0 to 32 (whole words, a
// partial last word, the full array), a difference in any one byte, and bytes past the
// length left over from a longer value, which must not count.
TEST(ClientIdIndexTest, IdsCompareByTheirBytesUpToTheirLengthOnly) {
  const std::string full(kMaxIdLength, 'x');
  for (size_t len = 0; len <= kMaxIdLength; ++len) {
    const std::string s = full.substr(0, len);
    ClientId reused = ClientId::From("0123456789abcdefghijklmnopqrstuv");
    reused.Assign(s);
    EXPECT_TRUE(reused == ClientId::From(s)) << len;
    for (size_t i = 0; i < len; ++i) {
      std::string t = s;
      t[i] = 'y';
      EXPECT_FALSE(ClientId::From(s) == ClientId::From(t)) << len << " byte " << i;
    }
    if (len < kMaxIdLength) {
      EXPECT_FALSE(ClientId::From(s) == ClientId::From(s + "x")) << len;
    }
  }
}

// The engine hashes an account's name once per command (its name table's hash) and derives
// the id's key from it: the same id under two accounts is two keys, and the derivation is
// seeded by the index too.
TEST(ClientIdIndexTest, KeyFromTheAccountNamesHashIsPerAccountAndSeeded) {
  NameTable names(16, /*seed=*/5);
  ClientIdIndex index(16, /*seed=*/9), other(16, /*seed=*/10);
  const ClientId cl = ClientId::From("o1");
  const uint64_t a = names.Hash(Name::From("A")), b = names.Hash(Name::From("B"));
  EXPECT_NE(index.HashKey(a, cl), index.HashKey(b, cl));
  EXPECT_EQ(index.HashKey(a, cl), index.HashKey(names.Hash(Name::From("A")), cl));
  EXPECT_NE(index.HashKey(a, cl), other.HashKey(a, cl));
  EXPECT_NE(index.HashKey(a, cl), index.HashKey(a, ClientId::From("o2")));
}

// NameTable (same file: the engine's two hash tables): dense ids in first-seen order, found
// again after the table has grown many times, unknown and over-long names not found.
TEST(NameTableTest, DenseIdsInFirstSeenOrderSurviveGrowth) {
  NameTable names(/*capacity=*/8, /*seed=*/3);  // 16 buckets: grows about seven times
  for (uint32_t i = 0; i < 1000; ++i) {
    EXPECT_EQ(names.Intern(Name::From(absl::StrCat("ACCT-", i))), i);
  }
  EXPECT_EQ(names.size(), 1000u);
  for (uint32_t i = 0; i < 1000; ++i) {
    const std::string n = absl::StrCat("ACCT-", i);
    EXPECT_EQ(names.Find(Name::From(n)), i) << n;
    EXPECT_EQ(names.Find(std::string_view(n)), i) << n;
    EXPECT_EQ(names.name(i), n);
    EXPECT_EQ(names.Intern(Name::From(n)), i) << "interning again gives the same id";
  }
  EXPECT_EQ(names.size(), 1000u);
  EXPECT_EQ(names.Find(Name::From("ACCT-1000")), NameTable::kNone);
  EXPECT_EQ(names.Find(std::string_view("ACCT-1\0", 7)), NameTable::kNone);
  EXPECT_EQ(names.Find(std::string(kMaxIdLength + 1, 'A')), NameTable::kNone);
}

}  // namespace
}  // namespace cfx::engine
