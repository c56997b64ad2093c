// Where events live in the database (storage/SCHEMA.md, "Events"): one table per event
// kind irqflow decodes, named after its tracepoint with the kernel's field names as
// columns, and `other_events` for the rest. Rows get SQLite's own increasing rowids —
// an explicit key costs a B-tree search per insert and halved the import rate — so a
// session's rows in one table are the rowid range `event_tables` records.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "irqflow/capture/event.hpp"

namespace irqflow::storage {

// Every kind with a table: all but Lost (lost-event markers are `gaps` rows).
std::vector<EventKind> stored_kinds();
// "kvm_exit", …, "other_events".
std::string_view event_table(EventKind k);
// Columns bound on insert, in order: session, record, ts_ns, cpu, tid, vm, vcpu (as plain
// columns: virtual generated ones computed from one key cost a quarter more CPU per
// insert), the kind's fields by
// their kernel names, then kvm_exit's guest_ns and host_ns, other_events' name_id.
std::vector<std::string> insert_columns(EventKind k);
inline constexpr std::size_t kCommonColumns = 7;  // session … vcpu
// DDL of the event tables and of every view that reads them (events, exits, intervals).
std::string event_tables_ddl();
std::string event_views_ddl();

}  // namespace irqflow::storage
