#include "pg_views.hpp"

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

// Every `from` in `sql` replaced by `to`; there must be one at least.
std::string replaced_all(std::string sql, const std::string& from, const std::string& to) {
    if (sql.find(from) == std::string::npos) throw StorageError("PostgreSQL views: '" + from + "' is no longer in the SQLite view text");
    for (auto at = sql.find(from); at != std::string::npos; at = sql.find(from, at + to.size())) sql.replace(at, from.size(), to);
    return sql;
}

}  // namespace

std::string pg_ipi_fanout_view_ddl() {
    // version 8's (storage/src/sqlite/schema.cpp)
    return R"sql(CREATE VIEW ipi_fanout AS
  SELECT session, kind, '0x' || lpad(to_hex(vector), 2, '0') AS vector, destinations, ipis, mismatched FROM ipi_counts;
)sql";
}

std::string pg_views_ddl() {
    // events, exits, intervals: generated for both; SQLite tests an integer for truth
    std::string sql = replaced(event_views_ddl(), "CASE WHEN halted THEN", "CASE WHEN halted <> 0 THEN");
    // versions 2 and 4's other views (storage/src/sqlite/schema.cpp) in PostgreSQL's dialect:
    // format/lpad/to_hex for printf, string_agg for group_concat, comparisons counted
    // as ::int (PostgreSQL does not add booleans)
    sql += R"sql(
CREATE VIEW exits_per_reason AS
  SELECT session, vm, vcpu, reason_name, exits FROM exit_counts;
CREATE VIEW latency_per_vector AS
  SELECT session, '0x' || lpad(to_hex(vector), 2, '0') AS vector, stage, samples, p50_ns, p90_ns, p99_ns, max_ns FROM latency;
CREATE VIEW pv_eoi_hit_rate AS
  SELECT s.id AS session,
    (SELECT value FROM stats WHERE session = s.id AND key = 'pv_eois') AS pv_eois,
    (SELECT value FROM stats WHERE session = s.id AND key = 'eois') AS eois,
    (SELECT value FROM stats WHERE session = s.id AND key = 'pv_eoi_hit_rate') AS hit_rate,
    (SELECT value FROM stats WHERE session = s.id AND key = 'exits_saved_pv_eoi') AS exits_saved
  FROM sessions s;
CREATE VIEW findings_with_evidence AS
  SELECT f.session, f.id, f.rule, f.severity, f.vcpu, f.ts_ns, f.record, f.expected, f.observed, f.caused_by, f.resync,
    (SELECT string_agg(c.record || ': ' || c.what, '; ' ORDER BY c.ord) FROM finding_chain c
       WHERE c.session = f.session AND c.finding = f.id) AS evidence
  FROM findings f;
)sql";
    sql += pg_ipi_fanout_view_ddl();
    // session_rates and session_diffs: SQLite's text with PostgreSQL's arithmetic in
    // double precision (its 1e9 and 1.0 are numeric) and the derived table named
    std::string cmp = session_compare_views_ddl();
    for (const char* literal : {"1e9", "1.0 *", "100.0 *"}) {
        const std::string from = literal, to = from.substr(0, from.find(' ')) + "::float8" + from.substr(std::min(from.size(), from.find(' ')));
        cmp = replaced_all(cmp, from, to);
    }
    return sql + replaced(cmp, "UNION ALL SELECT 'pv_eoi_hit_rate' UNION ALL SELECT 'injections_per_guest_s') keys);",
                          "UNION ALL SELECT 'pv_eoi_hit_rate' UNION ALL SELECT 'injections_per_guest_s') keys) d;");
}

}  // namespace irqflow::storage
