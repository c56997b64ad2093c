// The fleet database's schema history (storage/SCHEMA.md, "History"): PostgreSQL schemas
// start at version 7, the first with a PostgreSQL backend; each later SQLite migration
// (storage/src/sqlite/schema.cpp) has its step here, in PostgreSQL's dialect and over
// partitions. An older schema is upgraded on a read-write open, as an SQLite file is.
#pragma once
#include "pg_connection.hpp"

namespace irqflow::storage {

// The oldest PostgreSQL schema there is.
inline constexpr int kFirstPgSchemaVersion = 7;

// Upgrades the schema from `from` to `from + 1`, inside the caller's transaction, which
// holds every lock the step needs (PgStore::create_or_check_schema).
void pg_migrate_step(PgConnection& c, int from);

}  // namespace irqflow::storage
