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

}  // namespace

std::string pg_views_ddl() {
    // events, exits, intervals: generated for both; SQLite tests an integer for truth
    std::string sql = replaced(event_views_ddl(), "CASE WHEN halted THEN", "CASE WHEN halted <> 0 THEN");
    // the rest (storage/src/schema.cpp, versions 2, 4 and 6) in PostgreSQL's dialect:
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
CREATE VIEW ipi_fanout AS
  SELECT session, kind, '0x' || lpad(to_hex(vector), 2, '0') AS vector, destinations, count(*) AS ipis,
         sum((delivered != destinations)::int) AS mismatched
  FROM ipis GROUP BY session, kind, vector, destinations;
CREATE VIEW findings_with_evidence AS
  SELECT f.session, f.id, f.rule, f.severity, f.vcpu, f.ts_ns, f.record, f.expected, f.observed, f.caused_by, f.resync,
    (SELECT string_agg(c.record || ': ' || c.what, '; ' ORDER BY c.ord) FROM finding_chain c
       WHERE c.session = f.session AND c.finding = f.id) AS evidence
  FROM findings f;
CREATE VIEW session_rates AS
  SELECT s.id AS session, s.name,
    x.guest_s, x.exits, i.injections, i.eois, i.pv_eois,
    x.exits / nullif(x.guest_s, 0) AS exits_per_guest_s,
    1.0 * x.exits / nullif(i.injections, 0) AS exits_per_interrupt,
    1.0 * (i.eois - i.pv_eois) / nullif(i.injections, 0) AS eoi_exits_per_interrupt,
    100.0 * i.pv_eois / nullif(i.eois, 0) AS pv_eoi_hit_rate,
    i.injections / nullif(x.guest_s, 0) AS injections_per_guest_s
  FROM sessions s
  JOIN (SELECT session, count(*) AS exits, coalesce(sum(guest_ns), 0) / 1e9 AS guest_s FROM exits GROUP BY session) x ON x.session = s.id
  JOIN (SELECT session, sum((inject_ts_ns != 0)::int) AS injections, sum((eoi_path IS NOT NULL)::int) AS eois,
          coalesce(sum((eoi_path = 'pv-eoi')::int), 0) AS pv_eois FROM interrupts GROUP BY session) i ON i.session = s.id;
CREATE VIEW session_diffs AS
  SELECT a_session, b_session, key, a, b, 100.0 * (b - a) / nullif(abs(a), 0) AS change_percent FROM (
    SELECT a.session AS a_session, b.session AS b_session, keys.key,
      CASE keys.key WHEN 'exits_per_guest_s' THEN a.exits_per_guest_s WHEN 'exits_per_interrupt' THEN a.exits_per_interrupt
        WHEN 'eoi_exits_per_interrupt' THEN a.eoi_exits_per_interrupt WHEN 'pv_eoi_hit_rate' THEN a.pv_eoi_hit_rate
        ELSE a.injections_per_guest_s END AS a,
      CASE keys.key WHEN 'exits_per_guest_s' THEN b.exits_per_guest_s WHEN 'exits_per_interrupt' THEN b.exits_per_interrupt
        WHEN 'eoi_exits_per_interrupt' THEN b.eoi_exits_per_interrupt WHEN 'pv_eoi_hit_rate' THEN b.pv_eoi_hit_rate
        ELSE b.injections_per_guest_s END AS b
    FROM session_rates a JOIN session_rates b ON a.session != b.session
    CROSS JOIN (SELECT 'exits_per_guest_s' AS key UNION ALL SELECT 'exits_per_interrupt' UNION ALL SELECT 'eoi_exits_per_interrupt'
                UNION ALL SELECT 'pv_eoi_hit_rate' UNION ALL SELECT 'injections_per_guest_s') keys) d;
)sql";
    return sql;
}

}  // namespace irqflow::storage
