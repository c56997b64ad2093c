// Decodes raw ring-buffer records into normalized events, by field name from the
// event formats of one file (libtraceevent's tep handle).
#pragma once
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dat_pages.hpp"
#include "event_printer.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/trace.hpp"

struct tep_handle;
struct tep_event;
struct tep_format_field;

namespace irqflow {

// Events decoded in time order, numbered as they come (Event::record): kept in the
// store, handed to a sink and not kept, or decoded in place into the caller's batches
// (TraceStream's passes: no copy and no call per event).
struct Batch {
    EventStore events;
    const std::function<void(const Event&)>* sink = nullptr;
    const EventBatches* batches = nullptr;
    // Only events of these kinds get their fields decoded (the others carry kind, time,
    // CPU, thread and name): a pass that reads few fields skips the rest. A bit per kind,
    // asked of the pass once (fields_of), not per record.
    std::uint64_t field_kinds = ~std::uint64_t{0};
    void fields_of(bool (*wants)(EventKind)) {
        static_assert(static_cast<std::size_t>(EventKind::Count_) <= 64);
        if (!wants) return;
        field_kinds = 0;
        for (std::size_t k = 0; k < static_cast<std::size_t>(EventKind::Count_); ++k)
            if (wants(static_cast<EventKind>(k))) field_kinds |= std::uint64_t{1} << k;
    }
    bool wants_fields(EventKind k) const { return (field_kinds >> static_cast<unsigned>(k)) & 1; }
    // Heads only (read_trace_dat_heads): each record becomes an EventHead carrying the
    // slot head_slot[kind] asks for (-1: none), handed over kHeads at a time.
    const HeadSink* heads = nullptr;
    std::array<std::int8_t, 64> head_slot{};
    void slots_of(int (*slot_of)(EventKind)) {
        for (std::size_t k = 0; k < static_cast<std::size_t>(EventKind::Count_); ++k) {
            const int slot = slot_of(static_cast<EventKind>(k));
            head_slot[k] = static_cast<std::int8_t>(slot >= 0 && slot < static_cast<int>(kMaxFields) ? slot : -1);
        }
    }
    // When set, each Other event's info as trace-cmd report prints it is appended to
    // other_info and Event::raw_off/raw_len index it. Only one thread decodes such a batch.
    EventPrinter* printer = nullptr;
    std::string* other_info = nullptr;
    std::uint64_t next_record = 0;
    std::uint64_t added = 0;
    std::vector<std::int32_t> tids;  // every thread seen (for their names), in order of appearance

    // An event decode() filled in (in place at the end of the caller's batch, when it
    // gave batches).
    [[gnu::always_inline]] void add(const Event& e) {
        note_thread(e.tid.value());
        ++added;
        if (batches) {
            if (batches->into->size() >= batches->limit) batches->full();
        } else if (sink) {
            (*sink)(e);
        } else {
            events.push_back(e);
        }
    }

    // A head: written in place at new_head(), then added_head().
    EventHead& new_head() { return head_buf_[nheads_]; }
    [[gnu::always_inline]] void added_head() {
        note_thread(head_buf_[nheads_].tid.value());
        ++added;
        if (++nheads_ == kHeads) flush_heads();
    }
    void add(const EventHead& h) {
        new_head() = h;
        added_head();
    }
    void flush_heads() {
        if (nheads_ == 0) return;
        (*heads)(std::span<const EventHead>(head_buf_.data(), nheads_));
        nheads_ = 0;
    }

private:
    // Small enough to stay in the first-level cache between the decoder and the sink.
    static constexpr std::size_t kHeads = 512;
    std::array<EventHead, kHeads> head_buf_;
    std::size_t nheads_ = 0;
    [[gnu::always_inline]] void note_thread(std::int32_t tid) {
        if (tid != last_tid_) note_other_thread(tid);  // events come in runs per thread
    }
    [[gnu::noinline]] void note_other_thread(std::int32_t tid) {
        last_tid_ = tid;
        // Linux thread ids stay below pid_max (at most 2^22): a bitmap answers for them
        if (tid >= 0 && tid < kBitmapTids) {
            // grown to the highest thread seen, not 512 KB up front (a small file's read)
            const auto word = static_cast<std::size_t>(tid) / 64;
            if (word >= seen_.size()) seen_.resize(std::max(word + 1, 2 * seen_.size()), 0);
            std::uint64_t& w = seen_[word];
            const std::uint64_t bit = std::uint64_t{1} << (tid % 64);
            if (w & bit) return;
            w |= bit;
            tids.push_back(tid);
        } else if (other_seen_.insert(tid).second) {
            tids.push_back(tid);
        }
    }
    static constexpr std::int32_t kBitmapTids = 1 << 22;
    std::int32_t last_tid_ = INT32_MIN;
    std::vector<std::uint64_t> seen_;
    std::unordered_set<std::int32_t> other_seen_;
};

// Resolves every event type of the file once (kind, name, field handles), interning
// names into `names`. After construction decode() only reads: it may run on several
// threads at once.
class RecordDecoder {
public:
    RecordDecoder(tep_handle* tep, Trace& names, std::string path, std::uint64_t page_size);
    // The same decoder for another file with the same headers (its errors name `path`);
    // the events' name ids are those `other` interned.
    RecordDecoder(const RecordDecoder& other, std::string path) : RecordDecoder(other) { path_ = std::move(path); }
    // Appends the record's event (after a Lost marker when its CPU dropped events).
    // Throws InputError for records that cannot be right.
    void decode(const RawRecord& rec, Batch& out) const {
        if (out.batches) decode_as<true>(rec, out);
        else if (out.heads) decode_head(rec, out);
        else decode_as<false>(rec, out);
    }
    // The kernel's long size in ring-buffer page headers (4 or 8).
    int long_size() const { return long_size_; }

    struct TypeInfo {
        EventKind kind = EventKind::Other;
        std::uint16_t name_id = 0;
        tep_event* ev = nullptr;
        // Kernel fields of special kinds, by their index in the decoder's list of names
        // (record_decoder.cpp, kSpecialFieldNames), looked up at construction.
        std::array<const tep_format_field*, 24> special{};
        // Kinds whose slots are the kernel fields of the same name.
        bool plain = false;
        std::array<const tep_format_field*, kMaxFields> slot_fields{};
        // The same fields of a plain kind (and an Other event's own vCPU), as decode()
        // reads them on every record: offsets and sizes copied out of libtraceevent's
        // field structs, only the fields the format has. A record at least `fits` bytes
        // long holds them all (`present`), so decode() tests the size once, not per field.
        struct Read {
            std::uint16_t offset = 0;
            std::uint8_t size = 0;        // 1, 2, 4 or 8; anything else reads as 0 (as read_field does)
            std::uint8_t sign_shift = 0;  // 64 − bits for signed fields narrower than 64 bits, else 0
            std::uint8_t slot = 0;
        };
        std::array<Read, kMaxFields> reads{};
        std::array<std::uint8_t, kMaxFields> read_of_slot{};  // per slot: index + 1 into reads, 0 if none
        std::uint8_t nreads = 0;
        std::uint16_t present = 0;
        int fits = 0;
        // Whether reads/read_of_slot say where every slot is (plain kinds and Other,
        // unless a field lay where a Read cannot say).
        bool planned() const { return (plain || kind == EventKind::Other) && fits != INT_MAX; }
    };

private:
    // InPlace: each event is decoded straight into the caller's batch (Batch::batches),
    // not built here and handed over.
    template <bool InPlace>
    void decode_as(const RawRecord& rec, Batch& out) const;
    void decode_head(const RawRecord& rec, Batch& out) const;
    // Throws for a record that cannot be right (both decode paths refuse the same ones).
    void check(const RawRecord& rec) const;
    [[gnu::noinline, gnu::cold]] void refuse(const RawRecord& rec) const;
    [[gnu::noinline]] std::optional<std::int64_t> slot_value(const TypeInfo& ti, const RawRecord& rec, int slot) const;
    const TypeInfo& type(int id) const;

    std::string path_;
    std::uint64_t page_size_;
    // A file's formats number their events sparsely (ids into the thousands for a few
    // hundred events): the types are stored densely and found through a small index.
    static constexpr std::uint16_t kNoType = 0xffff;
    std::vector<TypeInfo> types_;
    std::vector<std::uint16_t> by_id_;  // event id → index in types_, or kNoType
    TypeInfo unknown_;              // ids missing from the formats (corrupt data)
    std::uint16_t lost_name_ = 0;
    int long_size_ = 8;
    const tep_format_field* common_type_ = nullptr;
    const tep_format_field* common_pid_ = nullptr;
    TypeInfo::Read type_read_, pid_read_;  // the two, as decode() reads them
    bool usual_common_ = false;            // at the places every kernel so far puts them
    std::pair<int, std::int32_t> common(const unsigned char* data) const;
};

}  // namespace irqflow
