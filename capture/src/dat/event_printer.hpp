// Prints a record's info as trace-cmd report does (libtraceevent's tep_print_event, the
// system's plugins loaded), for events irqflow does not model. libtraceevent trusts the
// record and the event's print format: a corrupt file could make it read past the
// record. The printer gives it a zero-padded copy, and prints an event whose format
// could reach further than the padding by its fields instead (capture/README.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <traceevent/trace-seq.h>

#include "dat_pages.hpp"

struct tep_handle;
struct tep_event;
struct tep_plugin_list;

namespace irqflow {

class EventPrinter {
public:
    // Loads libtraceevent's plugins into `tep` (unloaded again by the destructor, which
    // must run before the handle is freed).
    explicit EventPrinter(tep_handle* tep);
    ~EventPrinter();
    EventPrinter(const EventPrinter&) = delete;
    EventPrinter& operator=(const EventPrinter&) = delete;

    // Appends the record's info to `out`, without a trailing newline or blanks.
    // Printing touches the handle's caches: one thread at a time.
    void print(const RawRecord& rec, tep_event* ev, std::string& out);

private:
    enum class Safety : std::uint8_t { Unknown, PrintFormat, FieldsOnly };
    Safety safety(tep_event* ev);

    tep_handle* tep_;
    tep_plugin_list* plugins_ = nullptr;
    std::vector<unsigned char> copy_;        // the record, then zeros
    // One buffer for every record's text, emptied before each: initialising and
    // destroying one per record was a 4 KB allocation per printed event.
    trace_seq seq_;
    std::vector<Safety> safety_;             // by event id
    std::vector<std::uint32_t> format_end_;  // by event id: end of its last fixed field
};

}  // namespace irqflow
