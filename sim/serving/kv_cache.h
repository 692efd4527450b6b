// The paged KV cache of one replica with a block-hash prefix cache (vLLM v1's design).
//
// Blocks hold `page_tokens` tokens each. A block is referenced by every running request whose
// block table holds it; at zero references it sits in the free queue, oldest first, and the
// next allocation takes the queue's head. A full block may carry the hash of its token prefix
// (the chain hash of all blocks up to it): such a block stays findable after it is freed, until
// an allocation reuses it (LRU eviction). Requests that resend a prefix find its blocks by hash
// and skip their prefill.
//
// Per-sequence fixed state (sliding-window caps, recurrent states) is held as a reservation of
// whole blocks: reserved blocks are unavailable to allocations but keep their cached contents
// until the queue reaches them.
//
// The free queue is kept in two parts. Blocks without a cached prefix ("anonymous") are
// interchangeable: which of them an allocation gets changes no contents, only a block's name.
// They sit on a stack of ids (the most recently freed on top, so allocations reuse recently used
// blocks), and the queue records only how many of them lie between the blocks
// that hold a prefix. Those are a ring of entries in FIFO order (pop at the head, push at the
// tail), each with the number of anonymous blocks queued just before it; the anonymous blocks
// queued after the last entry are counted apart. An allocation takes an anonymous block while the
// head's count is positive, else the head entry's block (evicting its prefix): cached prefixes
// are evicted in exactly the order and at exactly the allocation a FIFO of every free block
// would evict them (vLLM's free queue), and every allocation gets a block with the same contents
// (none, or the same prefix). A block taken out of the ring's middle by a prefix hit stays in it
// as a stale entry (its position no longer matches the block's) and is skipped when the head
// reaches it; its count stays counted. An anonymous block's state is not touched at all when it
// is allocated or released (its reference count is implicit, see Block), a block with a prefix's
// once. Block ids themselves differ from a single FIFO's; nothing observable depends on them.
//
// Memory is touched with use, not capacity: blocks never used yet sit conceptually at the head
// of the free queue (as vLLM's initial queue holds every block in order; they are anonymous,
// taken when the stack is empty), and the arrays are allocated zeroed by the system, so their
// pages cost nothing until used.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sim/core/rng.h"

namespace tycoon::serving {

using BlockId = std::int32_t;

class KvCache {
 public:
  KvCache(std::int32_t num_blocks, std::int32_t page_tokens, bool prefix_caching);

  std::int32_t num_blocks() const { return num_blocks_; }
  std::int32_t page_tokens() const { return page_tokens_; }
  bool prefix_caching() const { return prefix_caching_; }
  // Blocks an allocation may take now: the free queue (evictable cached blocks included) less
  // the fixed-state reservations.
  std::int32_t num_available() const { return num_free_ - num_reserved_; }
  std::int32_t num_free() const { return num_free_; }
  std::int32_t num_reserved() const { return num_reserved_; }
  // Blocks referenced by requests plus reserved ones: what the cache is using now.
  std::int32_t num_used() const { return num_blocks_ - num_free_ + num_reserved_; }
  std::int32_t num_cached() const { return num_hashed_; }
  // Slots of the prefix hash table (tests: which memory it grew into; see TableMemory).
  std::size_t table_slots() const { return prefix_caching_ ? table_mask_ + 1 : 0; }

  // The block holding the prefix whose chain hash is `hash`, if cached.
  std::optional<BlockId> find(std::uint64_t hash) const;
  // Whether a block holding a prefix (found by find()) is free.
  bool is_free(BlockId b) const { return blocks_[static_cast<std::size_t>(b)].ref() == 0; }
  // Takes a reference on a cached block (a prefix hit: `b` came from find()); a free one leaves
  // the free queue. A block without a prefix cannot be acquired (std::logic_error).
  void acquire(BlockId b);
  // Appends `n` fresh blocks to `table`, evicting the least recently freed cached contents.
  // Precondition: n <= num_available().
  void allocate(std::int32_t n, std::vector<BlockId>& table) {
    // The common case inline (a decode step's new block while no cached prefix is free): the
    // stack's top, the same block allocate_blocks() would take.
    if (n == 1 && head_ == tail_ && stack_size_ > 0) {
      table.push_back(stack_[--stack_size_]);
      --anonymous_after_;
      --num_free_;
      return;
    }
    allocate_blocks(n, table);
  }
  // Drops one reference on each block of `table`, last block first so that a request's tail
  // is evicted before its head (vLLM's order). Cached contents stay findable.
  void release(std::span<const BlockId> table);
  // Records that `b` (full, referenced) holds the prefix with chain hash `hash`. A hash already
  // cached in another block is left there (this block stays anonymous).
  void register_hash(BlockId b, std::uint64_t hash);

  // Hints that `hash` will be registered or looked up soon: starts loading its table slot, so
  // that a batch of registrations overlaps its cache misses. No effect on the contents.
  void prefetch(std::uint64_t hash) const {
#if defined(__GNUC__) || defined(__clang__)
    if (prefix_caching_) __builtin_prefetch(&table_[slot_of(hash)]);
#else
    (void)hash;
#endif
  }

  // Fixed per-sequence state. Precondition for reserve: n <= num_available().
  void reserve(std::int32_t n);
  void unreserve(std::int32_t n);

  // Checks the internal structure (free queue length and links, hash table consistency,
  // reference counts); returns false on any inconsistency. O(num_blocks): tests only.
  bool check_invariants() const;
  // Sum of reference counts (tests: equals the blocks in every live block table).
  std::int64_t total_references() const;

 private:
  void allocate_blocks(std::int32_t n, std::vector<BlockId>& table);
  // One entry of the ring: a free block holding a prefix, and the anonymous free blocks queued
  // just before it.
  struct Entry {
    BlockId block = 0;
    std::uint32_t anonymous_before = 0;
  };
  void queue_remove(BlockId b);
  void queue_push_hashed(BlockId b);
  // Takes the block the FIFO order hands out next.
  BlockId queue_pop_front();
  // An anonymous free block: the top of the stack, else a never-used one.
  BlockId pop_anonymous();
  // Drops stale entries from the ring (when it is full), their counts moving to the next entry:
  // O(entries), at most every num_blocks pushes.
  void queue_compact();
  Entry& ring_at(std::int64_t pos) const { return ring_[static_cast<std::size_t>(pos) & ring_mask_]; }
  // Open-addressing hash table (linear probing, backward-shift deletion); hash 0 marks empty.
  // Chain hashes are already mixed: their low bits index the table directly.
  std::size_t slot_of(std::uint64_t hash) const { return static_cast<std::size_t>(hash) & table_mask_; }
  // Inserts unless the key is present; returns false when it was.
  bool table_insert(std::uint64_t hash, BlockId b);
  void grow_table();  // at least doubles the table (TableMemory::grown), every entry re-placed (lookups only: no order
                      // depends on it)
  static constexpr std::size_t kInitialTableSlots = 1024;
  void table_erase(std::uint64_t hash);

  // Zero-filled memory from the system, paid for page by page as it is touched (on Linux in
  // transparent huge pages: the pool spans megabytes and is accessed at random). `Touch::kAll`:
  // memory that will all be written soon (a grown hash table, which the rehash spreads over every
  // page) is mapped in at once, writable: one system call instead of a read fault and then a
  // copy-on-write fault (with a TLB flush) for every page.
  class ZeroedArray {
   public:
    enum class Touch { kWithUse, kAll };
    ZeroedArray() = default;
    explicit ZeroedArray(std::size_t bytes, Touch touch = Touch::kWithUse);
    ~ZeroedArray();
    ZeroedArray(ZeroedArray&& o) noexcept
        : data_(std::exchange(o.data_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    ZeroedArray& operator=(ZeroedArray&& o) noexcept;
    ZeroedArray(const ZeroedArray&) = delete;
    ZeroedArray& operator=(const ZeroedArray&) = delete;
    void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }
    void* release_memory() {  // the caller frees it (free_zeroed in kv_cache.cpp)
      bytes_ = 0;
      return std::exchange(data_, nullptr);
    }
    static ZeroedArray adopt(void* data, std::size_t bytes) {  // takes memory release_memory gave up
      ZeroedArray a;
      a.data_ = data;
      a.bytes_ = bytes;
      return a;
    }

   private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
  };

  // The hash table's memory. A simulation's table grows by doubling to what its run hashes, and
  // the next simulation of the same deployment (the next game hour, a check's run) grows the
  // same way again. So each thread keeps the tables its caches release as spares (a few of each
  // power-of-two size, 256 MiB at most: kv_cache.cpp), and a table that must grow takes the
  // largest spare this cache can use (at most 2 * num_blocks slots, rounded up) and at most
  // kMaxJump times the next doubling, zeroed. Fewer rehashes and fresh pages; the contents, and
  // so every lookup's answer, are the same whatever the table's size.
  class TableMemory {
   public:
    TableMemory() = default;
    TableMemory(TableMemory&& o) noexcept : memory_(std::move(o.memory_)), slots_(std::exchange(o.slots_, 0)) {}
    TableMemory& operator=(TableMemory&& o) noexcept;
    TableMemory(const TableMemory&) = delete;
    TableMemory& operator=(const TableMemory&) = delete;
    ~TableMemory() { give_to_spare(); }
    void* data() const { return memory_.data(); }
    std::size_t slots() const { return slots_; }
    // Zeroed memory of `slots` slots of `slot_bytes`: fresh, all pages mapped in at once
    // (ZeroedArray::Touch::kAll) when `grown`, else touched with use.
    static TableMemory fresh(std::size_t slots, std::size_t slot_bytes, bool grown);
    // The thread's largest spare (zeroed) of min_slots to min(max_slots, kMaxJump * min_slots)
    // slots, else fresh memory of `min_slots` (mapped in at once). min_slots: a power of two.
    static TableMemory grown(std::size_t min_slots, std::size_t max_slots, std::size_t slot_bytes);

   private:
    static constexpr std::size_t kMaxJump = 16;
    void give_to_spare();  // a spare of the thread's from now on, unless it has enough
    ZeroedArray memory_;
    std::size_t slots_ = 0;
  };

  // 8 bytes hold a block's state, and a table slot its key and value. The prefix hash a block
  // holds lives in its own array, read only for blocks flagged as hashed. An anonymous block
  // (no prefix) has state 0 and an implicit reference count: one while in a block table (only
  // find() hands out blocks to share, and it finds blocks with a prefix), none while free. So
  // allocating and releasing anonymous blocks does not touch their states, and while no block
  // holds a prefix (always without prefix caching) a release is a copy of ids onto the stack.
  struct Block {
    // The top bit: holds a registered prefix (its hash in hashes_); then its references in the
    // low 31 bits (0 for an anonymous block).
    std::uint32_t ref_flag = 0;
    // Ring position of its entry while free with a prefix, mod 2^32 (an entry elsewhere is stale;
    // the ring holds fewer than 2^32 entries, so positions mod 2^32 never collide while both
    // exist); kNoPos (kv_cache.cpp) once the block has left the ring.
    std::uint32_t queue_pos = 0;
    static constexpr std::uint32_t kHashed = 0x80000000u;
    std::uint32_t ref() const { return ref_flag & ~kHashed; }
    bool hashed() const { return (ref_flag & kHashed) != 0; }
  };
  struct Slot {
    std::uint64_t key = 0;  // 0: empty
    BlockId block = -1;
  };

  std::int32_t num_blocks_;
  std::int32_t page_tokens_;
  bool prefix_caching_;
  ZeroedArray blocks_memory_;
  Block* blocks_ = nullptr;
  ZeroedArray hashes_memory_;
  std::uint64_t* hashes_ = nullptr;  // per block: its prefix's chain hash while flagged hashed
  std::int32_t num_touched_ = 0;     // blocks used at least once: ids [0, num_touched_)
  // Anonymous free blocks used before (the never-used ones, ids from num_touched_ up, are
  // anonymous too): stack_[0, stack_size_), the top last.
  ZeroedArray stack_memory_;
  BlockId* stack_ = nullptr;
  std::int32_t stack_size_ = 0;
  // Free blocks holding a prefix, FIFO: ring positions [head_, tail_), counted from the start of
  // the simulation; ring_mask_ + 1 slots, at least twice the blocks.
  ZeroedArray ring_memory_;
  Entry* ring_ = nullptr;
  std::size_t ring_mask_ = 0;
  std::int64_t head_ = 0, tail_ = 0;
  // Anonymous free blocks queued after the ring's last entry (all of them when it is empty).
  std::int64_t anonymous_after_ = 0;
  std::int32_t num_free_ = 0;
  std::int32_t num_reserved_ = 0;
  std::int32_t num_hashed_ = 0;
  TableMemory table_memory_;
  Slot* table_ = nullptr;  // 2^k slots, at least twice the hashed blocks (grow_table)
  std::size_t table_mask_ = 0;
};

// The chain hash before the first block.
inline constexpr std::uint64_t kRootHash = 0x243F6A8885A308D3ull;

// Chain hash of a block given its parent's chain hash and its own content key; never 0.
inline std::uint64_t chain_hash(std::uint64_t parent, std::uint64_t content_key) {
  std::uint64_t h = core::hash_combine(parent, content_key);
  return h == 0 ? 1 : h;
}

}  // namespace tycoon::serving
