// The events of a trace, stored by column and compressed (capture/README.md, "Event
// store"): ~20 bytes of fixed columns per event plus its fields as variable-length
// integers, instead of a 112-byte Event each. Every layer reads events through this
// class: `store[i]` and iteration hand out decoded `Event` values; the column getters
// (ts, kind, tid, …) read one column without decoding the rest.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "irqflow/capture/event.hpp"

namespace irqflow {

namespace detail {

// A growable array in fixed blocks: appending never copies what is stored (a vector's
// doubling would hold 1.5–2× the events at its peak) and memory grows one block at a time.
// The first block starts small and doubles up to a whole block (the only copies made),
// so a pasted excerpt of fifty events does not cost a megabyte of columns.
template <class T>
class BlockArray {
public:
    static constexpr std::size_t kShift = 16, kBlock = std::size_t{1} << kShift, kMask = kBlock - 1;
    static constexpr std::size_t kFirst = 256;  // elements of the first block at first
    BlockArray() = default;
    BlockArray(BlockArray&& o) noexcept
        : blocks_(std::move(o.blocks_)), last_(std::exchange(o.last_, nullptr)), size_(std::exchange(o.size_, 0)),
          cap_(std::exchange(o.cap_, 0)) {}
    BlockArray& operator=(BlockArray&& o) noexcept {
        blocks_ = std::move(o.blocks_);
        last_ = std::exchange(o.last_, nullptr);
        size_ = std::exchange(o.size_, 0);
        cap_ = std::exchange(o.cap_, 0);
        return *this;
    }
    BlockArray(const BlockArray& o) : size_(o.size_), cap_(o.cap_) {
        for (std::size_t i = 0; i < o.blocks_.size(); ++i) {
            const std::size_t n = block_capacity(i);
            blocks_.push_back(std::make_unique_for_overwrite<T[]>(n));
            std::copy(o.blocks_[i].get(), o.blocks_[i].get() + n, blocks_.back().get());
        }
        last_ = blocks_.empty() ? nullptr : blocks_.back().get();
    }
    BlockArray& operator=(const BlockArray& o) {
        if (this != &o) *this = BlockArray(o);
        return *this;
    }
    std::size_t size() const { return size_; }
    const T& operator[](std::size_t i) const { return blocks_[i >> kShift][i & kMask]; }
    T& operator[](std::size_t i) { return blocks_[i >> kShift][i & kMask]; }
    void push_back(T v) {
        if (size_ == cap_) grow();
        last_[size_ & kMask] = v;
        ++size_;
    }
    // n contiguous elements at the end (skipping the rest of a block that cannot hold
    // them); returns where they went. n ≤ kBlock.
    std::size_t append_contiguous(const T* v, std::size_t n) {
        if (n == 0) return size_;
        if (((size_ + n - 1) >> kShift) != (size_ >> kShift)) size_ = (size_ + kMask) & ~kMask;  // next block
        while (size_ + n > cap_) grow();
        const std::size_t at = size_;
        std::copy(v, v + n, last_ + (at & kMask));
        size_ += n;
        return at;
    }
    const T* data_at(std::size_t i) const { return &blocks_[i >> kShift][i & kMask]; }
    void clear() {
        blocks_.clear();
        last_ = nullptr;
        size_ = 0;
        cap_ = 0;
    }
    std::size_t bytes() const { return cap_ * sizeof(T) + blocks_.capacity() * sizeof(void*); }

private:
    std::size_t block_capacity(std::size_t i) const { return i == 0 ? std::min(cap_, kBlock) : kBlock; }
    void grow() {
        if (cap_ == 0) {
            blocks_.push_back(std::make_unique_for_overwrite<T[]>(kFirst));
            cap_ = kFirst;
        } else if (cap_ < kBlock) {  // the first block, doubled (its elements copied once per doubling)
            const std::size_t n = std::min(cap_ * 2, kBlock);
            auto bigger = std::make_unique_for_overwrite<T[]>(n);
            std::copy(blocks_[0].get(), blocks_[0].get() + cap_, bigger.get());
            blocks_[0] = std::move(bigger);
            cap_ = n;
        } else {
            blocks_.push_back(std::make_unique_for_overwrite<T[]>(kBlock));
            cap_ += kBlock;
        }
        last_ = blocks_.back().get();
    }
    std::vector<std::unique_ptr<T[]>> blocks_;
    T* last_ = nullptr;     // the block being filled
    std::size_t size_ = 0;
    std::size_t cap_ = 0;   // elements the blocks hold: the first block's capacity, then whole blocks
};

}  // namespace detail

class EventStore {
public:
    EventStore() = default;
    EventStore(const EventStore&) = default;
    EventStore& operator=(const EventStore&) = default;
    EventStore(EventStore&&) noexcept = default;
    EventStore& operator=(EventStore&&) noexcept = default;

    std::size_t size() const { return kind_.size(); }
    bool empty() const { return size() == 0; }
    Event operator[](std::size_t i) const;
    // Events [first, first + out.size()) of one chunk (first + out.size() may not pass
    // the end of first's chunk, kChunk events), decoded into `out`: the sequential way,
    // each column's block looked up once per chunk instead of once per field.
    void decode_chunk(std::size_t first, std::span<Event> out) const;
    // f(std::span<const Event>) on the events of [first, last), decoded a chunk at a
    // time into a buffer the callee must not keep references into.
    template <class F>
    void for_each_chunk(std::size_t first, std::size_t last, F&& f) const {
        last = std::min(last, size());
        std::array<Event, kChunk> buf;
        while (first < last) {
            const std::size_t n = std::min(last - first, kChunk - first % kChunk);
            decode_chunk(first, std::span(buf).first(n));
            f(std::span<const Event>(buf).first(n));
            first += n;
        }
    }
    // f(const Event&) on each event of [first, last), the same way. What every full pass uses.
    template <class F>
    void for_each(std::size_t first, std::size_t last, F&& f) const {
        for_each_chunk(first, last, [&f](std::span<const Event> chunk) {
            for (const Event& e : chunk) f(e);
        });
    }
    template <class F>
    void for_each(F&& f) const { for_each(0, size(), std::forward<F>(f)); }
    Event front() const { return (*this)[0]; }
    Event back() const { return (*this)[size() - 1]; }

    // One column, without decoding the event.
    TimestampNs ts(std::size_t i) const;
    EventKind kind(std::size_t i) const { return static_cast<EventKind>(kind_[i]); }
    Tid tid(std::size_t i) const { return Tid(tid_[i]); }
    HostCpu cpu(std::size_t i) const;
    std::uint64_t record(std::size_t i) const;
    VmId vm(std::size_t i) const { return owners_[owner(i)].vm; }
    VcpuId vcpu(std::size_t i) const { return owners_[owner(i)].vcpu; }
    std::uint16_t name_id(std::size_t i) const { return name_[i]; }

    // Binary searches on the time-ordered columns: the first index whose timestamp
    // (record number) is not less than the argument, or size().
    std::size_t lower_bound_ts(TimestampNs t) const;
    std::size_t lower_bound_record(std::uint64_t record) const;

    void push_back(const Event& e);
    // Attribution: the VM and vCPU an event belongs to.
    void set_owner(std::size_t i, VmId vm, VcpuId vcpu);
    void clear();
    // Tests that edit a trace (drop, duplicate, reorder events) do it on a plain copy.
    std::vector<Event> to_vector() const;
    void assign(std::span<const Event> events);

    // Bytes held (all columns and the field bytes, block granularity).
    std::size_t memory_bytes() const;

    class iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = Event;
        using difference_type = std::ptrdiff_t;
        using reference = Event;
        using pointer = void;
        iterator() = default;
        iterator(const EventStore* s, std::size_t i) : s_(s), i_(i) {}
        Event operator*() const { return (*s_)[i_]; }
        Event operator[](difference_type n) const { return (*s_)[i_ + static_cast<std::size_t>(n)]; }
        iterator& operator++() { ++i_; return *this; }
        iterator operator++(int) { auto c = *this; ++i_; return c; }
        iterator& operator--() { --i_; return *this; }
        iterator operator--(int) { auto c = *this; --i_; return c; }
        iterator& operator+=(difference_type n) { i_ += static_cast<std::size_t>(n); return *this; }
        iterator& operator-=(difference_type n) { i_ -= static_cast<std::size_t>(n); return *this; }
        friend iterator operator+(iterator a, difference_type n) { return a += n; }
        friend iterator operator+(difference_type n, iterator a) { return a += n; }
        friend iterator operator-(iterator a, difference_type n) { return a -= n; }
        friend difference_type operator-(const iterator& a, const iterator& b) {
            return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
        }
        friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }
        friend auto operator<=>(const iterator& a, const iterator& b) { return a.i_ <=> b.i_; }
        std::size_t index() const { return i_; }

    private:
        const EventStore* s_ = nullptr;
        std::size_t i_ = 0;
    };
    using const_iterator = iterator;
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, size()}; }

    // Events are grouped in chunks; the narrow columns hold offsets from the chunk's base.
    static constexpr std::size_t kChunk = 256;

private:
    struct Chunk {
        std::int64_t ts_base = 0;
        std::uint64_t record_base = 0;
        std::uint64_t field_base = 0;
        bool wide = false;  // some value of the chunk is in wide_ (decode_columns<true>)
    };
    template <bool Wide>
    void decode_columns(std::size_t first, std::span<Event> out) const;
    // A value that does not fit its narrow column is stored in `wide_` under (index, column).
    enum class Column : std::uint8_t { Ts, Record, Cpu, Owner };
    static constexpr std::uint32_t kWide32 = UINT32_MAX;
    static constexpr std::uint16_t kWide16 = UINT16_MAX;
    static std::uint64_t wide_key(std::size_t i, Column c) { return (std::uint64_t{i} << 2) | static_cast<std::uint64_t>(c); }
    std::int64_t wide(std::size_t i, Column c) const { return wide_.at(wide_key(i, c)); }
    std::size_t owner(std::size_t i) const {
        const std::uint16_t o = owner_[i];
        return o == kWide16 ? static_cast<std::size_t>(wide(i, Column::Owner)) : o;
    }

    struct Owner {
        VmId vm = kUnknownVm;
        VcpuId vcpu = kUnknownVcpu;
    };
    std::size_t owner_index(VmId vm, VcpuId vcpu);

    std::vector<Chunk> chunks_;
    detail::BlockArray<std::uint32_t> ts_;        // ts - chunk ts_base
    detail::BlockArray<std::uint16_t> record_;    // record - chunk record_base
    detail::BlockArray<std::int32_t> tid_;
    detail::BlockArray<std::uint16_t> cpu_;       // cpu + 1 (0: -1)
    detail::BlockArray<std::uint16_t> owner_;     // index into owners_ (kWide16: in wide_)
    detail::BlockArray<std::uint8_t> kind_;
    detail::BlockArray<std::uint8_t> present_;
    detail::BlockArray<std::uint16_t> name_;
    detail::BlockArray<std::uint16_t> field_off_; // field bytes - chunk field_base
    // Per event: each present field as a zigzag LEB128 integer in slot order, then for
    // Other events raw_off and raw_len.
    detail::BlockArray<std::uint8_t> fields_;
    std::unordered_map<std::uint64_t, std::int64_t> wide_;
    std::vector<Owner> owners_{Owner{}};
    std::unordered_map<std::uint64_t, std::size_t> owner_ids_{{vm_vcpu_key(kUnknownVm, kUnknownVcpu), 0}};  // → owners_ index
    std::uint64_t last_owner_key_ = vm_vcpu_key(kUnknownVm, kUnknownVcpu);  // attribution stamps runs of one thread's events
    std::size_t last_owner_ = 0;
};

}  // namespace irqflow
