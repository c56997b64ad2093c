#include "pg_views.hpp"

#include "../compare_views.hpp"
#include "../portable_views.hpp"
#include "../event_tables.hpp"
#include "irqflow/storage/database.hpp"

namespace irqflow::storage {

namespace {

// `sql` with `from` replaced by `to`, which must be there (a change of SQLite's view text
// then fails the parity test instead of slipping through).
std::string replaced(std::string sql, const std::string& from, const std::string& to) {
    const auto at = sql.find(from);
    if (at == std::string::npos) throw StorageError("PostgreSQL views: '" + from + "' is no longer in the SQLite view text");
    return sql.replace(at, from.size(), to);
}

}  // namespace

std::string pg_ipi_fanout_view_ddl() {
    // version 8's (storage/src/sqlite/schema.cpp)
    return R"sql(CREATE VIEW ipi_fanout AS
  SELECT session, kind, '0x' || lpad(to_hex(vector), 2, '0') AS vector, destinations, ipis, mismatched FROM ipi_counts;
)sql";
}

std::string pg_delivery_latency_view_ddl() { return delivery_latency_view("'0x' || lpad(to_hex(vector), 2, '0')"); }

std::string pg_views_ddl() {
    // events, exits, intervals: generated for both; SQLite tests an integer for truth
    std::string sql = replaced(event_views_ddl(), "CASE WHEN halted THEN", "CASE WHEN halted <> 0 THEN");
    // versions 2 and 4's other views (storage/src/sqlite/schema.cpp) in PostgreSQL's dialect:
    // format/lpad/to_hex for printf, string_agg for group_concat, comparisons counted
    // as ::int (PostgreSQL does not add booleans)
    sql += kExitsPerReasonView;
    sql += kExitsPerReasonAllView;
    sql += R"sql(CREATE VIEW latency_per_vector AS
  SELECT session, '0x' || lpad(to_hex(vector), 2, '0') AS vector, stage, samples, p50_ns, p90_ns, p99_ns, max_ns FROM latency;
)sql";
    sql += kPvEoiHitRateView;
    sql += R"sql(CREATE VIEW findings_with_evidence AS
  SELECT f.session, f.id, f.rule, f.severity, f.vcpu, f.ts_ns, f.record, f.expected, f.observed, f.caused_by, f.resync,
    (SELECT string_agg(c.record || ': ' || c.what, '; ' ORDER BY c.ord) FROM finding_chain c
       WHERE c.session = f.session AND c.finding = f.id) AS evidence
  FROM findings f;
)sql";
    sql += pg_ipi_fanout_view_ddl();
    sql += pg_delivery_latency_view_ddl();
    return sql + session_compare_views_ddl(SqlDialect::Postgres);
}

}  // namespace irqflow::storage
