// Views whose text is the same SQL for SQLite and PostgreSQL, as schema version 2 created
// them and unchanged since: SQLite's migration 2 (sqlite/schema.cpp) and PostgreSQL's
// views (pg/pg_views.cpp) both write these. A change to one is a new SQLite migration,
// so these stay version 2's text.
#pragma once

namespace irqflow::storage {

inline constexpr const char* kExitsPerReasonView = R"sql(CREATE VIEW exits_per_reason AS
  SELECT session, vm, vcpu, reason_name, exits FROM exit_counts;
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
