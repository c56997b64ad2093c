// Views whose text is the same SQL for SQLite and PostgreSQL, as the schema version
// named at each created them and unchanged since: SQLite's migrations (sqlite/schema.cpp)
// and PostgreSQL's views (pg/pg_views.cpp) and migrations both write these. A change to
// one is a new migration, so each stays its version's text.
#pragma once
#include <string>

namespace irqflow::storage {

inline constexpr const char* kExitsPerReasonView = R"sql(CREATE VIEW exits_per_reason AS
  SELECT session, vm, vcpu, reason_name, exits FROM exit_counts;
)sql";

// Version 9's: each VM's exits per reason over all its vCPUs (and its exits no vCPU was
// known for), the row `exits_per_reason` has per vCPU. A view of its own, so that sums
// over `exits_per_reason` keep counting every exit once. The cast: PostgreSQL's sum of
// a bigint is numeric, SQLite's an integer already.
inline constexpr const char* kExitsPerReasonAllView = R"sql(CREATE VIEW exits_per_reason_all AS
  SELECT session, vm, reason_name, CAST(sum(exits) AS BIGINT) AS exits, count(DISTINCT vcpu) AS vcpus FROM exit_counts
  GROUP BY session, vm, reason_name;
)sql";

// Version 10's: the guest's side of a session (guest/handler stages are rows of
// `latency` named guest_*), the tables in both dialects' words (PostgreSQL's derived
// from SQLite's).
inline constexpr const char* kGuestTablesDdl = R"sql(CREATE TABLE guest_traces (session INTEGER NOT NULL PRIMARY KEY, source TEXT, format TEXT,
  clock TEXT, method TEXT, bound_ns INTEGER, detail TEXT, vm INTEGER, aligned INTEGER, unaligned INTEGER, other_events INTEGER) WITHOUT ROWID;
CREATE TABLE guest_events (session INTEGER NOT NULL, record INTEGER, ts_ns INTEGER, guest_ts_ns INTEGER, vcpu INTEGER, name TEXT,
  vector INTEGER, irq INTEGER, irq_name TEXT, target_cpu INTEGER, ret INTEGER);
)sql";

// Version 10's view: each vector's delivery stage by stage across both sides, from the
// guest_* rows of `latency` (`check --guest`'s table). `vector` is formatted by the
// dialect's own words: VECTOR_HEX stands for them.
inline constexpr const char* kDeliveryLatencyView = R"sql(CREATE VIEW delivery_latency AS
  SELECT session, VECTOR_HEX AS vector,
    max(CASE WHEN stage = 'guest_inject_to_handler' THEN samples END) AS handled,
    max(CASE WHEN stage = 'guest_accept_to_inject' THEN p50_ns END) AS accept_to_inject_p50_ns,
    max(CASE WHEN stage = 'guest_accept_to_inject' THEN p99_ns END) AS accept_to_inject_p99_ns,
    max(CASE WHEN stage = 'guest_inject_to_handler' THEN p50_ns END) AS inject_to_handler_p50_ns,
    max(CASE WHEN stage = 'guest_inject_to_handler' THEN p99_ns END) AS inject_to_handler_p99_ns,
    max(CASE WHEN stage = 'guest_handler_run' THEN p50_ns END) AS handler_run_p50_ns,
    max(CASE WHEN stage = 'guest_handler_run' THEN p99_ns END) AS handler_run_p99_ns,
    max(CASE WHEN stage = 'guest_handler_to_eoi' THEN p50_ns END) AS handler_to_eoi_p50_ns,
    max(CASE WHEN stage = 'guest_handler_to_eoi' THEN p99_ns END) AS handler_to_eoi_p99_ns
  FROM latency WHERE substr(stage, 1, 6) = 'guest_' GROUP BY session, vector;
)sql";

inline constexpr const char* kPvEoiHitRateView = R"sql(CREATE VIEW pv_eoi_hit_rate AS
  SELECT s.id AS session,
    (SELECT value FROM stats WHERE session = s.id AND key = 'pv_eois') AS pv_eois,
    (SELECT value FROM stats WHERE session = s.id AND key = 'eois') AS eois,
    (SELECT value FROM stats WHERE session = s.id AND key = 'pv_eoi_hit_rate') AS hit_rate,
    (SELECT value FROM stats WHERE session = s.id AND key = 'exits_saved_pv_eoi') AS exits_saved
  FROM sessions s;
)sql";

// kDeliveryLatencyView with the vector formatted as `hex` does it.
inline std::string delivery_latency_view(const std::string& hex) {
    std::string sql = kDeliveryLatencyView;
    return sql.replace(sql.find("VECTOR_HEX"), 10, hex);
}

}  // namespace irqflow::storage
