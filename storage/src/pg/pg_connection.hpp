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

// The server refused a statement: its SQLSTATE ("23505": a unique key taken) and, for a
// constraint, the constraint's name.
class PgError : public StorageError {
public:
    PgError(const std::string& what, std::string state, std::string constraint_name)
        : StorageError(what), sqlstate(std::move(state)), constraint(std::move(constraint_name)) {}
    std::string sqlstate, constraint;
};

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
    // false once it has none left. Anything thrown inside aborts the COPY. `freeze`
    // (a table made in this transaction): rows stored frozen and pages all-visible, so
    // the first readers and VACUUM need not visit them again.
    void copy_in(const std::string& table, const std::vector<std::string>& columns, const std::function<bool(std::string&)>& fill,
                 bool freeze = false);

    // COPY (query) TO STDOUT, text format: `line` sees each row's line (no newline) as
    // it arrives, never the whole result at once.
    void copy_out(const std::string& query, const std::function<void(std::string_view)>& line);
    // One statement with parameters, its rows handed over one at a time as the server
    // sends them (libpq's single-row mode): `on_columns` gets the names and type OIDs
    // first; `on_row` returns false to stop early (the rest is then cancelled).
    void stream(const std::string& sql, const std::vector<std::optional<std::string>>& params,
                const std::function<void(const std::vector<std::string>&, const std::vector<unsigned>&)>& on_columns,
                const std::function<bool(const std::vector<std::optional<std::string_view>>&)>& on_row);

    int server_version() const;  // e.g. 150018
    bool in_transaction() const;
    const std::string& where() const { return where_; }

private:
    [[noreturn]] void fail(const std::string& what, pg_result* r = nullptr) const;
    pg_conn* c_ = nullptr;
    std::string where_;  // the redacted URI, for messages
};

// A transaction from `begin` ("BEGIN", "BEGIN READ ONLY; …") until commit(), or ROLLBACK
// when the guard goes without it (the ROLLBACK's own error dropped: a connection that
// is gone has rolled back already).
class PgTransaction {
public:
    PgTransaction(PgConnection& c, const std::string& begin) : c_(c) { c_.exec(begin); }
    ~PgTransaction();
    PgTransaction(const PgTransaction&) = delete;
    PgTransaction& operator=(const PgTransaction&) = delete;
    void commit();

private:
    PgConnection& c_;
    bool done_ = false;
};

// A value for COPY's text format: backslash, tab, newline and carriage return escaped.
std::string copy_escape(std::string_view v);

}  // namespace irqflow::storage
