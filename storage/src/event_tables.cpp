#include "event_tables.hpp"

namespace irqflow::storage {
namespace {

std::string quoted(std::string_view name) { return "\"" + std::string(name) + "\""; }

}  // namespace

std::vector<EventKind> stored_kinds() {
    std::vector<EventKind> out;
    for (const auto& k : all_kinds())
        if (k.kind != EventKind::Lost) out.push_back(k.kind);
    return out;
}

std::string_view event_table(EventKind k) { return k == EventKind::Other ? "other_events" : kind_info(k).name; }

std::vector<std::string> insert_columns(EventKind k) {
    std::vector<std::string> c = {"session", "record", "ts_ns", "cpu", "tid", "vm", "vcpu"};
    const auto& info = kind_info(k);
    for (std::size_t i = 0; i < info.nfields; ++i) c.push_back(quoted(info.fields[i]));
    if (k == EventKind::Exit) {
        c.push_back("guest_ns");  // guest time that ended at this exit (since the entry before)
        c.push_back("host_ns");   // time from this exit to the vCPU's next entry (host, or halted after HLT)
    }
    if (k == EventKind::Other) c.push_back("name_id");
    return c;
}

std::string event_tables_ddl() {
    std::string sql;
    for (EventKind k : stored_kinds()) {
        sql += "CREATE TABLE " + std::string(event_table(k)) +
               " (session INTEGER NOT NULL, record INTEGER NOT NULL, ts_ns INTEGER NOT NULL, cpu INTEGER, tid INTEGER, vm INTEGER, vcpu INTEGER";
        const auto cols = insert_columns(k);
        for (std::size_t i = kCommonColumns; i < cols.size(); ++i) sql += ", " + cols[i] + " INTEGER";
        sql += ");\n";
    }
    sql += "CREATE TABLE event_tables (session INTEGER NOT NULL, name TEXT NOT NULL, first_rowid INTEGER NOT NULL,"
           " last_rowid INTEGER NOT NULL, PRIMARY KEY (session, name)) WITHOUT ROWID;\n"
           "CREATE TABLE exit_reasons (isa INTEGER NOT NULL, reason INTEGER NOT NULL, name TEXT NOT NULL, halted INTEGER NOT NULL,"
           " PRIMARY KEY (isa, reason)) WITHOUT ROWID;\n";
    return sql;
}

namespace {

// One branch of the events view; the first names the columns (a compound SELECT takes
// its column names from its first branch).
std::string events_branch(EventKind k, bool name_columns) {
    const auto& info = kind_info(k);
    auto as = [&](const std::string& alias) { return name_columns ? " AS " + alias : std::string(); };
    std::string sql = k == EventKind::Other ? "SELECT o.session, o.record, o.ts_ns, o.cpu, o.tid, o.vm, o.vcpu, n.name" + as("name")
                                            : "SELECT session, record, ts_ns, cpu, tid, vm, vcpu, '" + std::string(info.name) + "'" + as("name");
    for (std::size_t f = 0; f < kMaxFields; ++f)
        sql += (f < info.nfields ? ", " + quoted(info.fields[f]) : std::string(", NULL")) + as("f" + std::to_string(f));
    return sql + (k == EventKind::Other ? " FROM other_events o JOIN event_names n ON n.session = o.session AND n.id = o.name_id"
                                        : " FROM " + std::string(event_table(k)));
}

}  // namespace

std::string event_views_ddl() {
    std::string sql = "CREATE VIEW events AS\n";
    bool first = true;
    for (EventKind k : stored_kinds()) {
        sql += (first ? "  " : "  UNION ALL ") + events_branch(k, first) + "\n";
        first = false;
    }
    sql += ";\n";
    sql += R"sql(CREATE VIEW exits AS
  SELECT x.session, x.record, x.ts_ns, x.vm, x.vcpu, coalesce(x.isa, 1) AS isa, coalesce(x.exit_reason, -1) AS reason,
         r.name AS reason_name, x.guest_ns, x.host_ns, r.halted
  FROM kvm_exit x JOIN exit_reasons r ON r.isa = coalesce(x.isa, 1) AND r.reason = coalesce(x.exit_reason, -1)
  WHERE x.vcpu IS NOT NULL;
CREATE VIEW intervals AS
  SELECT session, vm, vcpu, 'guest' AS state, ts_ns - guest_ns AS start_ns, ts_ns AS end_ns FROM exits WHERE guest_ns IS NOT NULL
  UNION ALL
  SELECT session, vm, vcpu, CASE WHEN halted THEN 'halted' ELSE 'host' END, ts_ns, ts_ns + host_ns FROM exits WHERE host_ns IS NOT NULL;
)sql";
    return sql;
}

}  // namespace irqflow::storage
