// Views whose text is the same SQL for SQLite and PostgreSQL, as the schema version
// named at each created them and unchanged since: SQLite's migrations (sqlite/schema.cpp)
// and PostgreSQL's views (pg/pg_views.cpp) and migrations both write these. A change to
// one is a new migration, so each stays its version's text.
#pragma once

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

inline constexpr const char* kPvEoiHitRateView = R"sql(CREATE VIEW pv_eoi_hit_rate AS
  SELECT s.id AS session,
    (SELECT value FROM stats WHERE session = s.id AND key = 'pv_eois') AS pv_eois,
    (SELECT value FROM stats WHERE session = s.id AND key = 'eois') AS eois,
    (SELECT value FROM stats WHERE session = s.id AND key = 'pv_eoi_hit_rate') AS hit_rate,
    (SELECT value FROM stats WHERE session = s.id AND key = 'exits_saved_pv_eoi') AS exits_saved
  FROM sessions s;
)sql";

}  // namespace irqflow::storage
