// The fleet database's tables, derived from the SQLite schema this build writes
// (storage/SCHEMA.md): the same tables, column names and keys, so every query and view
// reads the same on both backends. Types map INTEGER → bigint, REAL → double precision,
// TEXT → text. Tables with a `session` column are LIST-partitioned by it (one
// partition per session: `rm` drops partitions, a per-session query reads one).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace irqflow::storage {

struct PgTable {
    std::string name;
    std::string ddl;           // CREATE TABLE ...
    bool per_session = false;  // partitioned by session
};

// Every table of a fresh SQLite database at kSchemaVersion, as PostgreSQL DDL (worked
// out once per process).
const std::vector<PgTable>& pg_tables();
// The one of them named `name`; throws StorageError when this build has none.
const PgTable& pg_table(std::string_view name);

// A session's rows of `t` go to a table of their own ("<table>_s<id>", quoted), made
// outside the partitioned table, filled, and attached as its partition at commit
// (storage/README.md, "PostgreSQL"): until then no reader's query touches it.
std::string pg_session_table(const std::string& table, long long session);
std::string pg_session_table_ddl(const PgTable& t, long long session);
std::string pg_attach_ddl(const PgTable& t, long long session);

}  // namespace irqflow::storage
