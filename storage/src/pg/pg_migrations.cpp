#include "pg_migrations.hpp"

#include <string>

#include "../portable_views.hpp"
#include "pg_schema.hpp"
#include "pg_views.hpp"

namespace irqflow::storage {
namespace {

// 7 → 8: ipi_counts, filled from each session's IPIs; ipi_fanout reads it.
void to_8(PgConnection& c) {
    const PgTable& counts = pg_table("ipi_counts");
    std::string sql = counts.ddl + ";\n";
    // a partition for each session with IPIs, as an import makes one for a table with rows
    for (const auto& r : c.query("SELECT DISTINCT session FROM ipis").rows) {
        const long long session = std::stoll(r.at(0).value_or("0"));
        sql += pg_session_table_ddl(counts, session) + ";\n" + pg_attach_ddl(counts, session) + ";\n";
    }
    sql += "INSERT INTO ipi_counts SELECT session, kind, vector, destinations, count(*), coalesce(sum((delivered != destinations)::int), 0) "
           "FROM ipis GROUP BY session, kind, vector, destinations;\n";
    sql += "DROP VIEW ipi_fanout;\n" + pg_ipi_fanout_view_ddl();
    c.exec(sql);
}

// 8 → 9: exits_per_reason_all, a view over exit_counts (no rows to move).
void to_9(PgConnection& c) { c.exec(kExitsPerReasonAllView); }

// 9 → 10: the guest's side (guest_traces, guest_events: partitioned per session as
// every per-session table; no rows to move), findings.guest_record, delivery_latency.
void to_10(PgConnection& c) {
    c.exec(pg_table("guest_traces").ddl + ";\n" + pg_table("guest_events").ddl + ";\nALTER TABLE findings ADD COLUMN guest_record bigint;\n" +
           pg_delivery_latency_view_ddl());
}

}  // namespace

void pg_migrate_step(PgConnection& c, int from) {
    switch (from) {
    case 7: to_8(c); break;
    case 8: to_9(c); break;
    case 9: to_10(c); break;
    default: throw StorageError(c.where() + ": no PostgreSQL migration from schema version " + std::to_string(from));
    }
    c.exec("UPDATE irqflow_schema SET version = " + std::to_string(from + 1));
}

}  // namespace irqflow::storage
