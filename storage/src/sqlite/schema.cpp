// Schema history. Each entry upgrades version N to N+1 (PRAGMA user_version); never edit
// a released entry, append a new one.
#include "../compare_views.hpp"
#include "../portable_views.hpp"
#include "event_tables.hpp"
#include "irqflow/storage/database.hpp"

namespace irqflow::storage {
namespace {

// 5: events move from one wide event_rows table to a table per kind with the kernel's
// field names (storage/SCHEMA.md, "Events"), and the exits table into kvm_exit's rows
// (guest_ns, host_ns) with an `exits` view over them: narrower rows, one in seven fewer
// (an exits row per kvm_exit), and auto-assigned rowids made the import twice as fast
// (storage/README.md, "Import"). Generated from the kind
// list of this release; a kind added later gets its table in a migration of its own.
std::string migration_5() {
    std::string sql = event_tables_ddl();
    const std::string from = " FROM event_rows r JOIN event_names n ON n.session = r.rowid >> 40 AND n.id = r.name_id WHERE n.name ";
    std::string kind_names;
    for (EventKind k : stored_kinds()) {
        if (k == EventKind::Other) continue;
        const auto cols = insert_columns(k);
        std::string names = "'" + std::string(kind_info(k).name) + "'";
        if (k == EventKind::NestedVmenter) names += ", 'kvm_nested_vmrun'";  // its name before Linux 6.2
        kind_names += (kind_names.empty() ? "" : ", ") + names;
        std::string into, select = "r.rowid >> 40, r.rowid & 1099511627775, r.ts_ns, r.cpu, r.tid, r.vm, r.vcpu";
        for (std::size_t i = 0; i < kind_info(k).nfields + kCommonColumns; ++i) into += (i ? ", " : "") + cols[i];
        for (std::size_t f = 0; f < kind_info(k).nfields; ++f) select += ", r.f" + std::to_string(f);
        sql += "INSERT INTO " + std::string(event_table(k)) + " (" + into + ") SELECT " + select + from + "IN (" + names + ") ORDER BY r.rowid;\n";
    }
    sql += "INSERT INTO other_events (session, record, ts_ns, cpu, tid, vm, vcpu, name_id) "
           "SELECT r.rowid >> 40, r.rowid & 1099511627775, r.ts_ns, r.cpu, r.tid, r.vm, r.vcpu, r.name_id" +
           from + "NOT IN (" + kind_names + ") ORDER BY r.rowid;\n";
    sql += R"sql(CREATE INDEX exits_v4_by_record ON exits (session, record);
UPDATE kvm_exit SET (guest_ns, host_ns) = (SELECT e.guest_ns, e.host_ns FROM exits e WHERE e.session = kvm_exit.session AND e.record = kvm_exit.record);
INSERT OR IGNORE INTO exit_reasons (isa, reason, name, halted) SELECT isa, reason, reason_name, halted FROM exits;
DROP VIEW events;
DROP VIEW intervals;
DROP TABLE exits;
DROP TABLE event_rows;
)sql";
    for (EventKind k : stored_kinds()) {
        const std::string t(event_table(k));
        sql += "INSERT INTO event_tables (session, name, first_rowid, last_rowid) SELECT session, '" + t + "', min(rowid), max(rowid) FROM " + t +
               " GROUP BY session;\n";
    }
    return sql + event_views_ddl();
}

}  // namespace

const std::vector<std::string>& migrations() {
    static const std::vector<std::string> m = {
        // 1: sessions and their events, vCPUs, gaps and serial lines
        R"sql(
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL,
  source_sha256 TEXT NOT NULL UNIQUE,
  format TEXT, host_kernel TEXT, trace_clock TEXT, host_cpus INTEGER,
  first_ts_ns INTEGER, last_ts_ns INTEGER, event_count INTEGER,
  imported_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE TABLE event_names (session INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL,
  PRIMARY KEY (session, id)) WITHOUT ROWID;
-- rowid = session << 40 | record (the raw record index): a session is a rowid range
-- and a record one lookup, with no index to maintain on import. f0..f7 are the
-- event kind's normalized fields in slot order (field_names, version 2, names them).
CREATE TABLE event_rows (
  ts_ns INTEGER NOT NULL, cpu INTEGER, tid INTEGER, vm INTEGER, vcpu INTEGER, name_id INTEGER NOT NULL,
  f0 INTEGER, f1 INTEGER, f2 INTEGER, f3 INTEGER, f4 INTEGER, f5 INTEGER, f6 INTEGER, f7 INTEGER);
CREATE TABLE gaps (session INTEGER NOT NULL, ts_ns INTEGER, cpu INTEGER, lost INTEGER, before_record INTEGER);
CREATE TABLE vcpus (session INTEGER NOT NULL, vm INTEGER, vcpu INTEGER, tid INTEGER, apic_id INTEGER,
  apic_id_from_trace INTEGER);
CREATE TABLE serial_lines (session INTEGER NOT NULL, line INTEGER, ts_ns INTEGER, alignment TEXT, text TEXT);
CREATE VIEW events AS
  SELECT r.rowid >> 40 AS session, r.rowid & 1099511627775 AS record, r.ts_ns, r.cpu, r.tid, r.vm, r.vcpu, n.name,
         r.f0, r.f1, r.f2, r.f3, r.f4, r.f5, r.f6, r.f7
  FROM event_rows r JOIN event_names n ON n.session = r.rowid >> 40 AND n.id = r.name_id;
)sql",
        // 2: replay results: intervals, exits, interrupt lifecycles, IPIs, findings, statistics
        R"sql(
ALTER TABLE sessions ADD COLUMN semantics TEXT;
CREATE TABLE field_names (name TEXT NOT NULL, slot INTEGER NOT NULL, field TEXT NOT NULL, PRIMARY KEY (name, slot)) WITHOUT ROWID;
-- one row per exit; with the guest time that ended at it and the host (or halted)
-- time after it, the per-vCPU intervals need no rows of their own (view intervals)
CREATE TABLE exits (session INTEGER NOT NULL, record INTEGER, ts_ns INTEGER, vm INTEGER, vcpu INTEGER,
  isa INTEGER, reason INTEGER, reason_name TEXT, guest_ns INTEGER, host_ns INTEGER, halted INTEGER);
CREATE TABLE exit_counts (session INTEGER NOT NULL, vm INTEGER, vcpu INTEGER, reason_name TEXT, exits INTEGER);
CREATE TABLE interrupts (session INTEGER NOT NULL, vm INTEGER, vcpu INTEGER, vector INTEGER, level INTEGER,
  accept_record INTEGER, accept_ts_ns INTEGER, inject_record INTEGER, inject_ts_ns INTEGER,
  eoi_record INTEGER, eoi_ts_ns INTEGER, eoi_path TEXT, nesting_depth INTEGER,
  accept_to_inject_ns INTEGER, inject_to_eoi_ns INTEGER);
CREATE TABLE latency (session INTEGER NOT NULL, vector INTEGER, stage TEXT, samples INTEGER,
  p50_ns INTEGER, p90_ns INTEGER, p99_ns INTEGER, max_ns INTEGER);
CREATE TABLE ipis (session INTEGER NOT NULL, id INTEGER, record INTEGER, ts_ns INTEGER, vm INTEGER,
  sender_vcpu INTEGER, kind TEXT, vector INTEGER, delivery_mode INTEGER, exact INTEGER,
  destinations INTEGER, delivered INTEGER);
CREATE TABLE ipi_destinations (session INTEGER NOT NULL, ipi INTEGER, apic_id INTEGER,
  expected INTEGER, received INTEGER);
CREATE TABLE findings (session INTEGER NOT NULL, id INTEGER, rule TEXT, severity TEXT, vm INTEGER, vcpu INTEGER,
  ts_ns INTEGER, record INTEGER, expected TEXT, observed TEXT);
CREATE TABLE finding_chain (session INTEGER NOT NULL, finding INTEGER, ord INTEGER, record INTEGER, what TEXT);
CREATE TABLE stats (session INTEGER NOT NULL, key TEXT NOT NULL, value REAL);
CREATE INDEX interrupts_by_session ON interrupts (session, vcpu, vector);
CREATE INDEX ipi_destinations_by_ipi ON ipi_destinations (session, ipi);
CREATE INDEX ipis_by_fanout ON ipis (session, kind, vector, destinations, delivered);
CREATE INDEX findings_by_session ON findings (session, ts_ns);
)sql" + std::string(kExitsPerReasonView) +  // (portable_views.hpp: PostgreSQL's too)
            R"sql(CREATE VIEW latency_per_vector AS
  SELECT session, printf('0x%02x', vector) AS vector, stage, samples, p50_ns, p90_ns, p99_ns, max_ns FROM latency;
)sql" + kPvEoiHitRateView +
            R"sql(CREATE VIEW ipi_fanout AS
  SELECT session, kind, printf('0x%02x', vector) AS vector, destinations, count(*) AS ipis,
         sum(delivered != destinations) AS mismatched
  FROM ipis GROUP BY session, kind, vector, destinations;
CREATE VIEW intervals AS
  SELECT session, vm, vcpu, 'guest' AS state, ts_ns - guest_ns AS start_ns, ts_ns AS end_ns FROM exits WHERE guest_ns IS NOT NULL
  UNION ALL
  SELECT session, vm, vcpu, CASE WHEN halted THEN 'halted' ELSE 'host' END, ts_ns, ts_ns + host_ns FROM exits WHERE host_ns IS NOT NULL;
CREATE VIEW findings_with_evidence AS
  SELECT f.session, f.id, f.rule, f.severity, f.vcpu, f.ts_ns, f.record, f.expected, f.observed,
    (SELECT group_concat(c.record || ': ' || c.what, '; ') FROM finding_chain c
       WHERE c.session = f.session AND c.finding = f.id ORDER BY c.ord) AS evidence
  FROM findings f;
)sql",
        // 3: the stats table follows replay's statistics list, under the keys `check --json`
        // uses. v2 wrote every kvm_inj_virq as 'injections' (now 'injections_all'; v3's
        // 'injections' counts the checkable ones, as `check` does), the EOI paths as
        // 'eois_path_<path>' and 'liveness_failures'.
        R"sql(
UPDATE stats SET key = 'injections_all' WHERE key = 'injections';
UPDATE stats SET key = 'eois_by_path_' || substr(key, 11) WHERE key LIKE 'eois\_path\_%' ESCAPE '\';
UPDATE stats SET key = 'liveness' WHERE key = 'liveness_failures';
)sql",
        // 4: recovery after a divergence (replay/README.md, "Recovery"): a follow-on finding
        // names its root (`caused_by`, the root's id; NULL for roots and in older sessions)
        // and a root what the model adopted from the trace (`resync`).
        R"sql(
ALTER TABLE findings ADD COLUMN caused_by INTEGER;
ALTER TABLE findings ADD COLUMN resync TEXT;
DROP VIEW findings_with_evidence;
CREATE VIEW findings_with_evidence AS
  SELECT f.session, f.id, f.rule, f.severity, f.vcpu, f.ts_ns, f.record, f.expected, f.observed, f.caused_by, f.resync,
    (SELECT group_concat(c.record || ': ' || c.what, '; ') FROM finding_chain c
       WHERE c.session = f.session AND c.finding = f.id ORDER BY c.ord) AS evidence
  FROM findings f;
)sql",
        migration_5(),
        // 6: runs compared in SQL (ui/README.md, "Comparing two runs"): each session's
        // headline rates under the keys `irqflow diff` gives them, and every ordered pair
        // of sessions side by side, so a fleet can ask which runs regressed. No
        // significance here (it needs each run's time blocks): `irqflow diff` has it.
        R"sql(
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
  JOIN (SELECT session, sum(inject_ts_ns != 0) AS injections, sum(eoi_path IS NOT NULL) AS eois,
          coalesce(sum(eoi_path = 'pv-eoi'), 0) AS pv_eois FROM interrupts GROUP BY session) i ON i.session = s.id;
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
                UNION ALL SELECT 'pv_eoi_hit_rate' UNION ALL SELECT 'injections_per_guest_s') keys);
)sql",
        // 7: where a session came from, so a fleet can group by it (storage/SCHEMA.md,
        // "sessions"): the host's name, the guest's kernel, QEMU's command line, and
        // tags given at import (`--tag key=value`); NULL in sessions stored before.
        // And session_totals: what session_rates adds up, counted once at import, so
        // the views comparing sessions read a row per session instead of every exit of
        // every session (a fleet's 100 M events: storage/README.md, "PostgreSQL"). The
        // two views are generated from the rate list of this release (compare_views.hpp):
        // a rate that needs a count session_totals does not have yet comes with a
        // migration of its own that adds the column and creates the views again.
        R"sql(
ALTER TABLE sessions ADD COLUMN host_name TEXT;
ALTER TABLE sessions ADD COLUMN guest_kernel TEXT;
ALTER TABLE sessions ADD COLUMN qemu_cmdline TEXT;
CREATE TABLE session_tags (session INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (session, key)) WITHOUT ROWID;
CREATE TABLE session_totals (session INTEGER NOT NULL PRIMARY KEY, exits INTEGER NOT NULL, guest_ns INTEGER NOT NULL,
  interrupts INTEGER NOT NULL, injections INTEGER NOT NULL, eois INTEGER NOT NULL, pv_eois INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO session_totals
  SELECT s.id, coalesce(x.exits, 0), coalesce(x.guest_ns, 0), coalesce(i.n, 0), coalesce(i.injections, 0), coalesce(i.eois, 0), coalesce(i.pv_eois, 0)
  FROM sessions s
  LEFT JOIN (SELECT session, count(*) AS exits, sum(guest_ns) AS guest_ns FROM exits GROUP BY session) x ON x.session = s.id
  LEFT JOIN (SELECT session, count(*) AS n, sum(inject_ts_ns != 0) AS injections, sum(eoi_path IS NOT NULL) AS eois,
               sum(eoi_path = 'pv-eoi') AS pv_eois FROM interrupts GROUP BY session) i ON i.session = s.id;
DROP VIEW session_diffs;
DROP VIEW session_rates;
)sql" + session_compare_views_ddl(SqlDialect::Sqlite),
        // 8: ipi_counts, what ipi_fanout groups, counted once at import: the view read
        // every IPI row of every session, over a second on a fleet's 50 sessions
        // (storage/README.md, "How fast"). The same rows and columns as before.
        R"sql(
CREATE TABLE ipi_counts (session INTEGER NOT NULL, kind TEXT NOT NULL, vector INTEGER NOT NULL, destinations INTEGER NOT NULL,
  ipis INTEGER NOT NULL, mismatched INTEGER NOT NULL, PRIMARY KEY (session, kind, vector, destinations)) WITHOUT ROWID;
INSERT INTO ipi_counts
  SELECT session, kind, vector, destinations, count(*), coalesce(sum(delivered != destinations), 0) FROM ipis GROUP BY session, kind, vector, destinations;
DROP VIEW ipi_fanout;
CREATE VIEW ipi_fanout AS
  SELECT session, kind, printf('0x%02x', vector) AS vector, destinations, ipis, mismatched FROM ipi_counts;
)sql",
        // 9: exits per reason over all of a VM's vCPUs, beside exits_per_reason's
        // per-vCPU rows (portable_views.hpp: PostgreSQL's too)
        kExitsPerReasonAllView,
        // 10: the guest's own trace beside the host's (storage/SCHEMA.md, "guest_traces"):
        // its events on the host's clock, how they got there, the guest_* stages in
        // `latency` and the delivery_latency view over them; findings about a guest
        // event name its guest record. NULL / no rows in sessions stored before.
        std::string(kGuestTablesDdl) + "ALTER TABLE findings ADD COLUMN guest_record INTEGER;\n" +
            delivery_latency_view("printf('0x%02x', vector)"),
    };
    return m;
}

}  // namespace irqflow::storage
