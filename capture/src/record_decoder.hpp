// Decodes raw ring-buffer records into normalized events, by field name from the
// event formats of one file (libtraceevent's tep handle).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <unordered_set>
#include <string>
#include <vector>

#include "dat_pages.hpp"
#include "irqflow/capture/trace.hpp"

struct tep_handle;
struct tep_event;
struct tep_format_field;

namespace irqflow {

// Events decoded in time order, numbered as they come (Event::record): kept in the
// store, or handed to a sink and not kept (stream_trace).
struct Batch {
    EventStore events;
    const std::function<void(const Event&)>* sink = nullptr;
    std::uint64_t next_record = 0;
    std::uint64_t added = 0;
    std::unordered_set<std::int32_t> tids;  // every thread seen (for their names)

    void add(const Event& e) {
        if (e.tid.value() != last_tid_) {
            last_tid_ = e.tid.value();
            tids.insert(last_tid_);
        }
        ++added;
        if (sink) (*sink)(e);
        else events.push_back(e);
    }

private:
    std::int32_t last_tid_ = INT32_MIN;
};

// Resolves every event type of the file once (kind, name, field handles), interning
// names into `names`. After construction decode() only reads: it may run on several
// threads at once.
class RecordDecoder {
public:
    RecordDecoder(tep_handle* tep, Trace& names, std::string path, std::uint64_t page_size);
    // Appends the record's event (after a Lost marker when its CPU dropped events).
    // Throws InputError for records that cannot be right.
    void decode(const RawRecord& rec, Batch& out) const;
    // The kernel's long size in ring-buffer page headers (4 or 8).
    int long_size() const { return long_size_; }

    struct TypeInfo {
        EventKind kind = EventKind::Other;
        std::uint16_t name_id = 0;
        tep_event* ev = nullptr;
        // Kernel fields by the names the decoder asks for (filled at construction).
        std::array<std::pair<const char*, const tep_format_field*>, 24> fields{};
        std::size_t nfields = 0;
        // Kinds whose slots are the kernel fields of the same name.
        bool plain = false;
        std::array<const tep_format_field*, kMaxFields> slot_fields{};
        const tep_format_field* field(const char* name) const;
    };

private:
    const TypeInfo& type(int id) const;

    std::string path_;
    std::uint64_t page_size_;
    std::vector<TypeInfo> types_;   // by event id
    TypeInfo unknown_;              // ids missing from the formats (corrupt data)
    std::uint16_t lost_name_ = 0;
    int long_size_ = 8;
    const tep_format_field* common_type_ = nullptr;
    const tep_format_field* common_pid_ = nullptr;
};

}  // namespace irqflow
