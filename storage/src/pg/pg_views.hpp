// The fleet database's views (storage/SCHEMA.md): the SQLite ones under the same names
// and columns, in PostgreSQL's dialect. The event views are generated for both backends
// from the same kind list, version 6's taken from its text with asserted edits, the
// others written out once more; a test compares every view's columns with SQLite's.
#pragma once
#include <string>

namespace irqflow::storage {

std::string pg_views_ddl();
// The ipi_fanout view alone, for the migration that changed it (pg_migrations.cpp).
std::string pg_ipi_fanout_view_ddl();
// delivery_latency alone, for the migration that added it.
std::string pg_delivery_latency_view_ddl();

}  // namespace irqflow::storage
