// The guest's side of a session (storage/SCHEMA.md, "guest_traces", "guest_events"): its
// trace's events on the host's clock and how they got there, written beside the host's
// rows and read back by either backend. One place for the columns.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/store.hpp"
#include "session_sink.hpp"

namespace irqflow::storage {

inline constexpr const char* kGuestTraceColumns = "source, format, clock, method, bound_ns, detail, vm, aligned, unaligned, other_events";
inline constexpr const char* kGuestEventColumns = "record, ts_ns, guest_ts_ns, vcpu, name, vector, irq, irq_name, target_cpu, ret";

// (the per-vector stages the replay measured against the guest are `latency` rows,
// written with the others: session_rows.cpp)
void write_guest_rows(TableSink& out, std::int64_t session, const GuestSide& guest);

// Rows of `kGuestTraceColumns` (one) and `kGuestEventColumns` (in record order) back into
// a GuestSide; a row that cannot be one is a StorageError naming `where`.
GuestSide guest_side_from(const QueryRow& trace, const std::vector<QueryRow>& events, const std::string& where);

}  // namespace irqflow::storage
