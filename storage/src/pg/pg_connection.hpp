// One libpq connection to the fleet database (storage/README.md, "PostgreSQL"): opened
// from a postgresql:// or postgres:// URI, errors that name the server but never the
// password, statements with parameters, COPY FROM STDIN for bulk rows.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "irqflow/storage/database.hpp"

struct pg_conn;
struct pg_result;

namespace irqflow::storage {

// Whether `db` names a PostgreSQL server rather than an SQLite file.
bool is_postgres_uri(std::string_view db);

// `uri` as it may appear in messages and logs: the password (user:PASS@ or
// password=PASS) replaced by "***".
std::string redacted_uri(std::string_view uri);

// A result: rows of nullable text cells (libpq's text format).
struct PgRows {
    std::vector<std::string> columns;
    std::vector<std::vector<std::optional<std::string>>> rows;
};

class PgConnection {
public:
    // Connects (the password from PGPASSWORD or ~/.pgpass, as libpq does); throws
    // StorageError naming the redacted URI and the server's reason.
    explicit PgConnection(const std::string& uri);
    ~PgConnection();
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;

    // Runs SQL without parameters (DDL, BEGIN/COMMIT; several statements allowed).
    void exec(const std::string& sql);
    // One statement with $1.. parameters as text (nullopt = NULL); its rows.
    PgRows query(const std::string& sql, const std::vector<std::optional<std::string>>& params = {});
    // COPY table (columns) FROM STDIN in text format, streamed: `fill` appends the next
    // escaped lines ("a\tb\n"; copy_escape below) to its (emptied) buffer and returns
    // false once it has none left. Anything thrown inside aborts the COPY.
    void copy_in(const std::string& table, const std::vector<std::string>& columns, const std::function<bool(std::string&)>& fill);

    int server_version() const;  // e.g. 150018
    const std::string& where() const { return where_; }

private:
    [[noreturn]] void fail(const std::string& what, pg_result* r = nullptr) const;
    pg_conn* c_ = nullptr;
    std::string where_;  // the redacted URI, for messages
};

// A value for COPY's text format: backslash, tab, newline and carriage return escaped.
std::string copy_escape(std::string_view v);

}  // namespace irqflow::storage
