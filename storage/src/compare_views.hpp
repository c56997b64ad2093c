// session_rates and session_diffs (storage/SCHEMA.md, "Views"), generated for either
// backend from the rate list that `irqflow diff` uses (irqflow/replay/rates.hpp): a rate
// is a column of session_rates and a key of session_diffs when both of its counts are
// columns of session_totals. SQLite's schema version 7 creates them
// (storage/src/sqlite/schema.cpp), PostgreSQL's schema has them from the start.
#pragma once
#include <string>

namespace irqflow::storage {

enum class SqlDialect { Sqlite, Postgres };

std::string session_compare_views_ddl(SqlDialect dialect);

}  // namespace irqflow::storage
