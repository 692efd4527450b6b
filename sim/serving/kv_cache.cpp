#include "sim/serving/kv_cache.h"

#include <bit>
#include <cassert>
#include <new>
#include <stdexcept>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tycoon::serving {

namespace {
// How far ahead (in blocks) the free queue and releases prefetch block states.
constexpr std::size_t kPrefetchAhead = 8;
// How far ahead (in entries) allocations prefetch the free queue's ring.
constexpr std::int64_t kRingPrefetchAhead = 64;
// A block's ring position mod 2^32; kNoPos for none (a position the ring never reaches while the
// block's stale entries can exist: it would take 2^32 - 1 pushes).
std::uint32_t pos32(std::int64_t pos) { return static_cast<std::uint32_t>(pos); }
constexpr std::uint32_t kNoPos = 0xFFFFFFFFu;
}  // namespace

KvCache::ZeroedArray::ZeroedArray(std::size_t bytes) : bytes_(bytes) {
#if defined(__linux__)
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  madvise(p, bytes, MADV_HUGEPAGE);  // a hint: fewer TLB misses and page faults
  data_ = p;
#else
  data_ = std::calloc(bytes, 1);
  if (!data_) throw std::bad_alloc();
#endif
}

KvCache::ZeroedArray::~ZeroedArray() {
  if (!data_) return;
#if defined(__linux__)
  munmap(data_, bytes_);
#else
  std::free(data_);
#endif
}

KvCache::ZeroedArray& KvCache::ZeroedArray::operator=(ZeroedArray&& o) noexcept {
  if (this != &o) {
    this->~ZeroedArray();
    data_ = std::exchange(o.data_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

KvCache::KvCache(std::int32_t num_blocks, std::int32_t page_tokens, bool prefix_caching)
    : num_blocks_(num_blocks), page_tokens_(page_tokens), prefix_caching_(prefix_caching) {
  if (num_blocks < 1 || page_tokens < 1) throw std::logic_error("KV cache needs at least one block of one token");
  num_free_ = num_blocks;
  // Blocks and slots are trivially copyable: all-zero bytes are valid objects (a slot with key 0
  // is empty; a block gets its links when first allocated).
  blocks_memory_ = ZeroedArray(static_cast<std::size_t>(num_blocks) * sizeof(Block));
  blocks_ = static_cast<Block*>(blocks_memory_.data());
  if (prefix_caching_) {
    hashes_memory_ = ZeroedArray(static_cast<std::size_t>(num_blocks) * sizeof(std::uint64_t));
    hashes_ = static_cast<std::uint64_t*>(hashes_memory_.data());
  }
  const std::size_t ring_cap = std::bit_ceil(2 * static_cast<std::size_t>(num_blocks));
  ring_memory_ = ZeroedArray(ring_cap * sizeof(BlockId));
  ring_ = static_cast<BlockId*>(ring_memory_.data());
  ring_mask_ = ring_cap - 1;
  if (prefix_caching_) {
    // At most one hash per block: twice the blocks keeps the load at or below 1/2.
    const std::size_t cap = std::bit_ceil(2 * static_cast<std::size_t>(num_blocks));
    table_memory_ = ZeroedArray(cap * sizeof(Slot));
    table_ = static_cast<Slot*>(table_memory_.data());
    table_mask_ = cap - 1;
  }
}

void KvCache::queue_remove(BlockId b) {
  blocks_[static_cast<std::size_t>(b)].queue_pos = kNoPos;  // its ring entry turns stale
  --num_free_;
}

void KvCache::queue_push_back(BlockId b) {
  if (tail_ - head_ > static_cast<std::int64_t>(ring_mask_)) queue_compact();
  ring_at(tail_) = b;
  blocks_[static_cast<std::size_t>(b)].queue_pos = pos32(tail_++);
  ++num_free_;
}

void KvCache::queue_compact() {
  std::int64_t w = head_;
  for (std::int64_t r = head_; r < tail_; ++r) {
    const BlockId b = ring_at(r);
    Block& x = blocks_[static_cast<std::size_t>(b)];
    if (x.ref() != 0 || x.queue_pos != pos32(r)) continue;
    ring_at(w) = b;
    x.queue_pos = pos32(w++);
  }
  tail_ = w;
}

BlockId KvCache::queue_pop_front() {
  if (num_touched_ < num_blocks_) {  // a never-used block comes first
    Block& x = blocks_[static_cast<std::size_t>(num_touched_)];
    x = Block{};
    x.queue_pos = kNoPos;
    --num_free_;
    return num_touched_++;
  }
  for (;;) {
    assert(head_ < tail_);
    const std::int64_t pos = head_++;
    const BlockId b = ring_at(pos);
    // The queue's order is known ahead: start loading a later allocation's block (entries past
    // the tail hold old ids or 0, still valid indices).
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&blocks_[static_cast<std::size_t>(ring_at(pos + kPrefetchAhead))]);
    // ... and the ring itself further ahead (read in order, a line per 16 allocations), so that
    // the entries above are there when their turn comes.
    __builtin_prefetch(&ring_at(pos + kRingPrefetchAhead));
#endif
    Block& x = blocks_[static_cast<std::size_t>(b)];
    if (x.ref() != 0 || x.queue_pos != pos32(pos)) continue;  // stale: taken by a prefix hit since
    x.queue_pos = kNoPos;
    --num_free_;
    return b;
  }
}

std::optional<BlockId> KvCache::find(std::uint64_t hash) const {
  if (!prefix_caching_) return std::nullopt;
  for (std::size_t s = slot_of(hash);; s = (s + 1) & table_mask_) {
    if (table_[s].key == hash) return table_[s].block;
    if (table_[s].key == 0) return std::nullopt;
  }
}

bool KvCache::table_insert(std::uint64_t hash, BlockId b) {
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
  if (blocks_[static_cast<std::size_t>(b)].ref() == 0) queue_remove(b);
  ++blocks_[static_cast<std::size_t>(b)].ref_flag;  // the count is in the low bits
}

void KvCache::allocate(std::int32_t n, std::vector<BlockId>& table) {
  assert(n <= num_available());
  for (std::int32_t k = 0; k < n; ++k) {
    BlockId b = queue_pop_front();
    Block& x = blocks_[static_cast<std::size_t>(b)];
    if (x.hashed()) {  // evict the cached prefix this block held
      table_erase(hashes_[static_cast<std::size_t>(b)]);
      hashes_[static_cast<std::size_t>(b)] = 0;
      --num_hashed_;
    }
    x.ref_flag = 1;  // one reference, no prefix
    table.push_back(b);
  }
}

void KvCache::release(std::span<const BlockId> table) {
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
    assert(x.ref() > 0);
    if ((--x.ref_flag & ~Block::kHashed) == 0) queue_push_back(*it);
  }
}

void KvCache::register_hash(BlockId b, std::uint64_t hash) {
  if (!prefix_caching_) return;
  Block& x = blocks_[static_cast<std::size_t>(b)];
  if (x.hashed() || !table_insert(hash, b)) return;
  hashes_[static_cast<std::size_t>(b)] = hash;
  x.ref_flag |= Block::kHashed;
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
  std::int64_t sum = 0;
  for (std::int32_t i = 0; i < num_touched_; ++i) sum += blocks_[static_cast<std::size_t>(i)].ref();
  return sum;
}

bool KvCache::check_invariants() const {
  if (num_reserved_ < 0 || num_reserved_ > num_free_) return false;
  const auto never_used = num_blocks_ - num_touched_;
  if (head_ > tail_ || tail_ - head_ > static_cast<std::int64_t>(ring_mask_) + 1) return false;
  std::int32_t count = never_used;
  for (std::int64_t pos = head_; pos < tail_; ++pos) {
    const BlockId b = ring_at(pos);
    if (b < 0 || b >= num_touched_) return false;
    const Block& x = blocks_[static_cast<std::size_t>(b)];
    if (x.queue_pos != pos32(pos)) continue;  // stale
    if (x.ref() != 0) return false;
    if (++count > num_blocks_) return false;
  }
  if (count != num_free_) return false;
  std::int32_t zero_refs = never_used, hashed = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(num_touched_); ++i) {
    const Block& x = blocks_[i];
    if (x.ref() > 0x40000000u) return false;  // an underflow
    if (x.ref() == 0) ++zero_refs;
    if (x.hashed() != (prefix_caching_ && hashes_[i] != 0)) return false;
    if (x.hashed()) {
      ++hashed;
      auto found = find(hashes_[i]);
      if (!found || *found != static_cast<BlockId>(i)) return false;
    }
  }
  if (zero_refs != num_free_ || hashed != num_hashed_) return false;
  if (prefix_caching_) {
    std::int32_t entries = 0;
    for (std::size_t i = 0; i <= table_mask_; ++i) entries += table_[i].key != 0;
    if (entries != num_hashed_) return false;
  }
  return true;
}

}  // namespace tycoon::serving
