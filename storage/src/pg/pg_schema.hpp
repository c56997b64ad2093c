// The fleet database's tables, derived from the SQLite schema this build writes
// (storage/SCHEMA.md): the same tables, column names and keys, so every query and view
// reads the same on both backends. Types map INTEGER → bigint, REAL → double precision,
// TEXT → text. Tables with a `session` column are LIST-partitioned by it (one
// partition per session: `rm` drops partitions, a per-session query reads one).
#pragma once
#include <string>
#include <vector>

namespace irqflow::storage {

struct PgTable {
    std::string name;
    std::string ddl;           // CREATE TABLE ...
    bool per_session = false;  // partitioned by session
};

// Every table of a fresh SQLite database at kSchemaVersion, as PostgreSQL DDL.
std::vector<PgTable> pg_tables();

// The DDL of `t`'s partition for one session ("<table>_s<id>").
std::string pg_partition_ddl(const PgTable& t, long long session);

}  // namespace irqflow::storage
