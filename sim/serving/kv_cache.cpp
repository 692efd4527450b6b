#include "sim/serving/kv_cache.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <new>
#include <stdexcept>

#if defined(__linux__)
#include <sys/mman.h>
#endif
// AddressSanitizer (GCC says so with __SANITIZE_ADDRESS__, clang with __has_feature): the spare
// tables below are poisoned while they wait.
#if defined(__SANITIZE_ADDRESS__)
#define TYCOON_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TYCOON_ASAN 1
#endif
#endif
#if defined(TYCOON_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace tycoon::serving {

namespace {
// How far ahead (in blocks) the free queue and releases prefetch block states.
constexpr std::size_t kPrefetchAhead = 8;
// How far ahead (in entries) evictions prefetch the free queue's ring.
constexpr std::int64_t kRingPrefetchAhead = 64;
// A block's ring position mod 2^32; kNoPos for none (a position the ring never reaches while the
// block's stale entries can exist: it would take 2^32 - 1 pushes).
std::uint32_t pos32(std::int64_t pos) { return static_cast<std::uint32_t>(pos); }
constexpr std::uint32_t kNoPos = 0xFFFFFFFFu;
}  // namespace

namespace {

// Zeroed memory from the system (ZeroedArray), and its release.
void* map_zeroed(std::size_t bytes, bool populate) {
#if defined(__linux__)
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  madvise(p, bytes, MADV_HUGEPAGE);  // a hint: fewer TLB misses and page faults
#if defined(MADV_POPULATE_WRITE)
  // After the huge-page hint, so that it maps huge pages where it can. A hint too: a kernel
  // before 5.14 refuses it, and the pages then come with use.
  if (populate) madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
  return p;
#else
  (void)populate;
  void* p = std::calloc(bytes, 1);
  if (!p) throw std::bad_alloc();
  return p;
#endif
}

void free_zeroed(void* data, std::size_t bytes) {
  if (!data) return;
#if defined(__linux__)
  munmap(data, bytes);
#else
  (void)bytes;
  std::free(data);
#endif
}

// This thread's spare hash tables (KvCache::TableMemory): up to kSparesPerSize of each
// power-of-two size (a simulation runs its replicas on one thread, each with a table of about the
// same size), kSpareBytesCap bytes in all (a table that would pass it is freed instead). Plain
// values, valid for the thread's whole life; SpareReaper, made with the first spare, frees them
// when the thread ends, and a table released after that is freed at once. Under AddressSanitizer
// a spare's memory is poisoned while it waits, so a stale pointer into it is reported.
constexpr int kSparesPerSize = 8;
constexpr std::size_t kSpareBytesCap = std::size_t{256} << 20;
struct SpareTable {
  void* data = nullptr;
  std::size_t bytes = 0;
  std::size_t slots = 0;
};
struct SpareTables {
  SpareTable by_log2[64][kSparesPerSize];
  int count[64] = {};
  std::size_t bytes = 0;
  bool thread_ending = false;
};
thread_local SpareTables spare_tables;

void poison_spare(void* data, std::size_t bytes, bool poison) {
#if defined(TYCOON_ASAN)
  if (poison) {
    __asan_poison_memory_region(data, bytes);
  } else {
    __asan_unpoison_memory_region(data, bytes);
  }
#else
  (void)data, (void)bytes, (void)poison;
#endif
}

struct SpareReaper {
  ~SpareReaper() {
    for (int k = 0; k < 64; ++k) {
      for (int i = 0; i < spare_tables.count[k]; ++i) {
        SpareTable& t = spare_tables.by_log2[k][i];
        poison_spare(t.data, t.bytes, false);
        free_zeroed(t.data, t.bytes);
      }
    }
    spare_tables = SpareTables{};
    spare_tables.thread_ending = true;
  }
};

}  // namespace

KvCache::ZeroedArray::ZeroedArray(std::size_t bytes, Touch touch)
    : data_(map_zeroed(bytes, touch == Touch::kAll)), bytes_(bytes) {}

KvCache::ZeroedArray::~ZeroedArray() { free_zeroed(data_, bytes_); }

KvCache::ZeroedArray& KvCache::ZeroedArray::operator=(ZeroedArray&& o) noexcept {
  if (this != &o) {
    free_zeroed(data_, bytes_);
    data_ = std::exchange(o.data_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

KvCache::TableMemory& KvCache::TableMemory::operator=(TableMemory&& o) noexcept {
  if (this != &o) {
    give_to_spare();
    memory_ = std::move(o.memory_);
    slots_ = std::exchange(o.slots_, 0);
  }
  return *this;
}

KvCache::TableMemory KvCache::TableMemory::fresh(std::size_t slots, std::size_t slot_bytes, bool grown) {
  TableMemory t;
  t.memory_ = ZeroedArray(slots * slot_bytes, grown ? ZeroedArray::Touch::kAll : ZeroedArray::Touch::kWithUse);
  t.slots_ = slots;
  return t;
}

KvCache::TableMemory KvCache::TableMemory::grown(std::size_t min_slots, std::size_t max_slots, std::size_t slot_bytes) {
  assert(std::has_single_bit(min_slots) && min_slots <= max_slots);
  // The largest spare this cache can use, at most kMaxJump times the doubling: a run that hashes
  // little does not zero the table of the longest run before it; a long one gets there in a few
  // jumps (from 1,024 slots to 2,097,152 in three).
  const std::size_t most = std::min(max_slots, min_slots * kMaxJump);
  for (auto k = static_cast<std::size_t>(std::bit_width(most)); k-- > 0 && (std::size_t{1} << k) >= min_slots;) {
    int& n = spare_tables.count[k];
    if (n == 0) continue;
    SpareTable spare = spare_tables.by_log2[k][--n];
    spare_tables.by_log2[k][n] = SpareTable{};
    spare_tables.bytes -= spare.bytes;
    poison_spare(spare.data, spare.bytes, false);
    std::memset(spare.data, 0, spare.bytes);
    TableMemory t;
    t.memory_ = ZeroedArray::adopt(spare.data, spare.bytes);
    t.slots_ = spare.slots;
    return t;
  }
  return fresh(min_slots, slot_bytes, true);
}

void KvCache::TableMemory::give_to_spare() {
  if (!memory_.data()) return;
  const auto k = static_cast<std::size_t>(std::bit_width(slots_) - 1);
  SpareTables& spares = spare_tables;
  if (!spares.thread_ending && spares.count[k] < kSparesPerSize && spares.bytes + memory_.bytes() <= kSpareBytesCap) {
    static thread_local SpareReaper reaper;  // frees the spares when the thread ends
    (void)reaper;
    SpareTable& spare = spares.by_log2[k][spares.count[k]++];
    spare.bytes = memory_.bytes();
    spare.slots = slots_;
    spare.data = memory_.release_memory();
    spares.bytes += spare.bytes;
    poison_spare(spare.data, spare.bytes, true);
  }
  memory_ = ZeroedArray();  // frees it unless it became a spare
  slots_ = 0;
}

KvCache::KvCache(std::int32_t num_blocks, std::int32_t page_tokens, bool prefix_caching)
    : num_blocks_(num_blocks), page_tokens_(page_tokens), prefix_caching_(prefix_caching) {
  if (num_blocks < 1 || page_tokens < 1) throw std::logic_error("KV cache needs at least one block of one token");
  num_free_ = num_blocks;
  anonymous_after_ = num_blocks;  // every block, never used, anonymous
  // Blocks, entries and slots are trivially copyable: all-zero bytes are valid objects (a slot
  // with key 0 is empty; a block gets its state when first allocated).
  blocks_memory_ = ZeroedArray(static_cast<std::size_t>(num_blocks) * sizeof(Block));
  blocks_ = static_cast<Block*>(blocks_memory_.data());
  stack_memory_ = ZeroedArray(static_cast<std::size_t>(num_blocks) * sizeof(BlockId));
  stack_ = static_cast<BlockId*>(stack_memory_.data());
  if (prefix_caching_) {
    hashes_memory_ = ZeroedArray(static_cast<std::size_t>(num_blocks) * sizeof(std::uint64_t));
    hashes_ = static_cast<std::uint64_t*>(hashes_memory_.data());
    // Only blocks holding a prefix enter the ring.
    const std::size_t ring_cap = std::bit_ceil(2 * static_cast<std::size_t>(num_blocks));
    ring_memory_ = ZeroedArray(ring_cap * sizeof(Entry));
    ring_ = static_cast<Entry*>(ring_memory_.data());
    ring_mask_ = ring_cap - 1;
    // At most one hash per block; the table starts small and grows (by doubling, or into a spare
    // at most 16 times that: TableMemory) to keep its load at or below 1/2 (table_insert), so its
    // size follows the blocks hashed, not the cache's capacity: a short run on a chip with room for
    // millions of tokens neither zeroes nor faults in a table for them.
    const std::size_t cap = std::min(std::bit_ceil(2 * static_cast<std::size_t>(num_blocks)), kInitialTableSlots);
    table_memory_ = TableMemory::fresh(cap, sizeof(Slot), false);
    table_ = static_cast<Slot*>(table_memory_.data());
    table_mask_ = cap - 1;
  }
}

void KvCache::queue_remove(BlockId b) {
  Block& x = blocks_[static_cast<std::size_t>(b)];
  x.queue_pos = kNoPos;  // its ring entry turns stale (its count of anonymous blocks stays)
  --num_free_;
}

void KvCache::queue_push_hashed(BlockId b) {
  if (tail_ - head_ > static_cast<std::int64_t>(ring_mask_)) queue_compact();
  ring_at(tail_) = Entry{b, static_cast<std::uint32_t>(anonymous_after_)};
  anonymous_after_ = 0;
  blocks_[static_cast<std::size_t>(b)].queue_pos = pos32(tail_++);
  ++num_free_;
}

void KvCache::queue_compact() {
  std::int64_t w = head_;
  std::int64_t carried = 0;  // anonymous blocks counted by stale entries, moved to the next live one
  for (std::int64_t r = head_; r < tail_; ++r) {
    const Entry e = ring_at(r);
    Block& x = blocks_[static_cast<std::size_t>(e.block)];
    carried += e.anonymous_before;
    if (x.ref() != 0 || x.queue_pos != pos32(r)) continue;
    ring_at(w) = Entry{e.block, static_cast<std::uint32_t>(carried)};
    carried = 0;
    x.queue_pos = pos32(w++);
  }
  tail_ = w;
  anonymous_after_ += carried;
}

BlockId KvCache::pop_anonymous() {
  --num_free_;
  if (stack_size_ > 0) return stack_[--stack_size_];
  return num_touched_++;  // a never-used block: its zero state is an anonymous block's
}

BlockId KvCache::queue_pop_front() {
  for (;;) {
    if (head_ == tail_) {  // no prefix queued: the rest is anonymous
      assert(anonymous_after_ > 0);
      --anonymous_after_;
      return pop_anonymous();
    }
    Entry& e = ring_at(head_);
    if (e.anonymous_before > 0) {
      --e.anonymous_before;
      return pop_anonymous();
    }
    const std::int64_t pos = head_++;
#if defined(__GNUC__) || defined(__clang__)
    // The queue's order is known ahead: start loading a later entry's block (entries past the
    // tail hold old ids or 0, still valid indices).
    __builtin_prefetch(&blocks_[static_cast<std::size_t>(ring_at(pos + kPrefetchAhead).block)]);
    // ... and the ring itself further ahead (read in order, a line per 8 entries), so that the
    // entries above are there when their turn comes.
    __builtin_prefetch(&ring_at(pos + kRingPrefetchAhead));
#endif
    Block& x = blocks_[static_cast<std::size_t>(e.block)];
    if (x.ref() != 0 || x.queue_pos != pos32(pos)) continue;  // stale: taken by a prefix hit since
    x.queue_pos = kNoPos;
    --num_free_;
    return e.block;
  }
}

std::optional<BlockId> KvCache::find(std::uint64_t hash) const {
  if (!prefix_caching_) return std::nullopt;
  for (std::size_t s = slot_of(hash);; s = (s + 1) & table_mask_) {
    if (table_[s].key == hash) return table_[s].block;
    if (table_[s].key == 0) return std::nullopt;
  }
}

void KvCache::grow_table() {
  TableMemory memory =
      TableMemory::grown(2 * (table_mask_ + 1), std::bit_ceil(2 * static_cast<std::size_t>(num_blocks_)), sizeof(Slot));
  const std::size_t cap = memory.slots(), mask = cap - 1;
  auto* slots = static_cast<Slot*>(memory.data());
  for (std::size_t i = 0; i <= table_mask_; ++i) {
    if (table_[i].key == 0) continue;
    std::size_t j = static_cast<std::size_t>(table_[i].key) & mask;
    while (slots[j].key != 0) j = (j + 1) & mask;
    slots[j] = table_[i];
  }
  table_memory_ = std::move(memory);
  table_ = slots;
  table_mask_ = mask;
}

bool KvCache::table_insert(std::uint64_t hash, BlockId b) {
  if (2 * (static_cast<std::size_t>(num_hashed_) + 1) > table_mask_ + 1) grow_table();
  std::size_t s = slot_of(hash);
  for (; table_[s].key != 0; s = (s + 1) & table_mask_) {
    if (table_[s].key == hash) return false;
  }
  table_[s] = Slot{hash, b};
  return true;
}

void KvCache::table_erase(std::uint64_t hash) {
  std::size_t s = slot_of(hash);
  while (table_[s].key != hash) {
    assert(table_[s].key != 0);
    s = (s + 1) & table_mask_;
  }
  // Backward-shift deletion: pull later entries of the probe run into the hole.
  std::size_t hole = s;
  for (std::size_t j = (hole + 1) & table_mask_; table_[j].key != 0; j = (j + 1) & table_mask_) {
    std::size_t home = slot_of(table_[j].key);
    // Entry j stays when its home lies cyclically in (hole, j].
    bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      table_[hole] = table_[j];
      hole = j;
    }
  }
  table_[hole] = Slot{};
}

void KvCache::acquire(BlockId b) {
  Block& x = blocks_[static_cast<std::size_t>(b)];
  // Only a block holding a prefix can be found; its count is explicit (see Block).
  if (!x.hashed()) throw std::logic_error("KvCache::acquire: a block without a cached prefix");
  if (x.ref() == 0) queue_remove(b);
  ++x.ref_flag;  // the count is in the low bits
}

void KvCache::allocate_blocks(std::int32_t n, std::vector<BlockId>& table) {
  assert(n <= num_available());
  const std::size_t first = table.size();
  table.resize(first + static_cast<std::size_t>(n));
  BlockId* out = table.data() + first;
  std::int32_t k = 0;
  // No prefix queued (always without prefix caching): anonymous blocks from the stack's top, as
  // many as it holds, in one copy; an anonymous block's state does not change when it is taken.
  if (head_ == tail_) {
    const std::int32_t m = std::min(n, stack_size_);
    for (std::int32_t j = 0; j < m; ++j) out[j] = stack_[stack_size_ - 1 - j];
    stack_size_ -= m;
    anonymous_after_ -= m;
    num_free_ -= m;
    k = m;
  }
  for (; k < n; ++k) {
    const BlockId b = queue_pop_front();
    Block& x = blocks_[static_cast<std::size_t>(b)];
    if (x.hashed()) {  // evict the cached prefix this block held: the block turns anonymous
      table_erase(hashes_[static_cast<std::size_t>(b)]);
      hashes_[static_cast<std::size_t>(b)] = 0;
      --num_hashed_;
      x.ref_flag = 0;
    }
    out[k] = b;
  }
}

void KvCache::release(std::span<const BlockId> table) {
  if (num_hashed_ == 0) {
    // No block holds a prefix (always without prefix caching): every block of the table is
    // anonymous with its one reference, and goes onto the stack, last block first, untouched.
    for (std::size_t i = table.size(), j = static_cast<std::size_t>(stack_size_); i > 0; --i, ++j) {
      stack_[j] = table[i - 1];
    }
    const auto n = static_cast<std::int32_t>(table.size());
    stack_size_ += n;
    anonymous_after_ += n;
    num_free_ += n;
    return;
  }
#if defined(__GNUC__) || defined(__clang__)
  for (std::size_t i = table.size(), k = 0; i > 0 && k < kPrefetchAhead; --i, ++k) {
    __builtin_prefetch(&blocks_[static_cast<std::size_t>(table[i - 1])]);
  }
#endif
  for (auto it = table.rbegin(); it != table.rend(); ++it) {
#if defined(__GNUC__) || defined(__clang__)
    if (table.rend() - it > static_cast<std::ptrdiff_t>(kPrefetchAhead)) {
      __builtin_prefetch(&blocks_[static_cast<std::size_t>(*(it + kPrefetchAhead))]);
    }
#endif
    Block& x = blocks_[static_cast<std::size_t>(*it)];
    if (!x.hashed()) {  // anonymous, so its only reference: onto the stack, counted at the tail
      stack_[stack_size_++] = *it;
      ++anonymous_after_;
      ++num_free_;
    } else {
      assert(x.ref() > 0);
      if (--x.ref_flag == Block::kHashed) queue_push_hashed(*it);
    }
  }
}

void KvCache::register_hash(BlockId b, std::uint64_t hash) {
  if (!prefix_caching_) return;
  Block& x = blocks_[static_cast<std::size_t>(b)];
  if (x.hashed() || !table_insert(hash, b)) return;
  hashes_[static_cast<std::size_t>(b)] = hash;
  x.ref_flag = Block::kHashed | 1;  // an anonymous block in a table has exactly one reference
  ++num_hashed_;
}

void KvCache::reserve(std::int32_t n) {
  assert(n <= num_available());
  num_reserved_ += n;
}

void KvCache::unreserve(std::int32_t n) {
  assert(n <= num_reserved_);
  num_reserved_ -= n;
}

std::int64_t KvCache::total_references() const {
  // A block with a prefix counts its references; an anonymous one has one unless it is free
  // (on the stack; never-used blocks are not counted at all).
  std::vector<bool> free_anonymous(static_cast<std::size_t>(num_touched_), false);
  for (std::int32_t i = 0; i < stack_size_; ++i) free_anonymous[static_cast<std::size_t>(stack_[i])] = true;
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(num_touched_); ++i) {
    const Block& x = blocks_[i];
    sum += x.hashed() ? x.ref() : (free_anonymous[i] ? 0 : 1);
  }
  return sum;
}

bool KvCache::check_invariants() const {
  if (prefix_caching_ &&
      (!std::has_single_bit(table_mask_ + 1) || 2 * static_cast<std::size_t>(num_hashed_) > table_mask_ + 1)) {
    return false;
  }
  if (num_reserved_ < 0 || num_reserved_ > num_free_) return false;
  const auto never_used = num_blocks_ - num_touched_;
  if (head_ > tail_ || (tail_ > head_ && tail_ - head_ > static_cast<std::int64_t>(ring_mask_) + 1)) return false;
  if (stack_size_ < 0 || stack_size_ > num_touched_ || anonymous_after_ < 0) return false;
  // Anonymous free blocks: the stack (distinct, free, without a prefix) and the never-used ones;
  // the ring's counts and the tail's count add up to them.
  std::vector<bool> on_stack(static_cast<std::size_t>(num_touched_), false);
  for (std::int32_t i = 0; i < stack_size_; ++i) {
    const BlockId b = stack_[i];
    if (b < 0 || b >= num_touched_ || on_stack[static_cast<std::size_t>(b)]) return false;
    on_stack[static_cast<std::size_t>(b)] = true;
    const Block& x = blocks_[static_cast<std::size_t>(b)];
    if (x.ref_flag != 0) return false;  // anonymous
  }
  std::int64_t anonymous = anonymous_after_;
  std::int32_t count = never_used + stack_size_;
  for (std::int64_t pos = head_; pos < tail_; ++pos) {
    const Entry& e = ring_at(pos);
    anonymous += e.anonymous_before;
    if (e.block < 0 || e.block >= num_touched_) return false;
    const Block& x = blocks_[static_cast<std::size_t>(e.block)];
    if (x.queue_pos != pos32(pos)) continue;  // stale
    if (x.ref() != 0 || !x.hashed()) return false;
    if (++count > num_blocks_) return false;
  }
  if (anonymous != static_cast<std::int64_t>(never_used) + stack_size_) return false;
  if (count != num_free_) return false;
  // Free blocks: the anonymous ones counted above and the blocks with a prefix and no reference,
  // each live in the ring once.
  std::int32_t free_hashed = 0, hashed = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(num_touched_); ++i) {
    const Block& x = blocks_[i];
    if (prefix_caching_ && x.hashed() != (hashes_[i] != 0)) return false;
    if (!x.hashed()) {
      if (x.ref_flag != 0) return false;  // an anonymous block's count is implicit
      continue;
    }
    if (x.ref() > 0x40000000u) return false;  // an underflow
    ++hashed;
    if (x.ref() == 0) ++free_hashed;
    auto found = find(hashes_[i]);
    if (!found || *found != static_cast<BlockId>(i)) return false;
  }
  if (never_used + stack_size_ + free_hashed != num_free_ || hashed != num_hashed_) return false;
  if (prefix_caching_) {
    std::int32_t entries = 0;
    for (std::size_t i = 0; i <= table_mask_; ++i) entries += table_[i].key != 0;
    if (entries != num_hashed_) return false;
  }
  return true;
}

}  // namespace tycoon::serving
