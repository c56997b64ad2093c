#include "irqflow/storage/database.hpp"

#include <sys/stat.h>

#include <cctype>
#include <memory>

#include "sqlite_util.hpp"

namespace irqflow::storage {

Database::Database(const std::string& path, Mode mode) : path_(path), readonly_(mode == Mode::ReadOnly) {
    struct stat st {};
    if (readonly_ && stat(path.c_str(), &st) != 0) throw StorageError(path + ": no such database");
    const int flags = readonly_ ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw StorageError(path + ": cannot open: " + msg);
    }
    sqlite3_busy_timeout(db_, 10000);
    try {
        // Read the version before changing anything: a newer file is left untouched.
        const int v = schema_version();
        if (v > kSchemaVersion)
            throw StorageError(path + ": schema version " + std::to_string(v) + " is newer than this irqflow understands (" +
                               std::to_string(kSchemaVersion) + "); refusing to open it (use a newer irqflow)");
        if (v == 0) {
            Stmt t(db_, "SELECT count(*) FROM sqlite_master");
            if (t.row() && t.i64(0) > 0) throw StorageError(path + ": not an irqflow database (it has tables but no irqflow schema version)");
        }
        if (readonly_) {
            if (v < kSchemaVersion)
                throw StorageError(path + ": schema version " + std::to_string(v) + " must be migrated first (open it read-write once, e.g. irqflow sessions --db " + path + ")");
            exec("PRAGMA query_only = 1");
        } else {
            if (v == 0) exec("PRAGMA page_size = 16384");  // new file: bigger pages insert faster
            exec("PRAGMA journal_mode = WAL");
            exec("PRAGMA cache_size = -65536");  // 64 MiB
            exec("PRAGMA synchronous = NORMAL");
            migrate();
        }
    } catch (...) {
        sqlite3_close(db_);
        db_ = nullptr;
        throw;
    }
}

Database::~Database() { sqlite3_close(db_); }

void Database::exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw StorageError(path_ + ": " + msg);
    }
}

int Database::schema_version() {
    Stmt s(db_, "PRAGMA user_version");
    return s.row() ? static_cast<int>(s.i64(0)) : 0;
}

void Database::migrate() {
    for (int v = schema_version(); v < kSchemaVersion; ++v) {
        exec("BEGIN IMMEDIATE");
        try {
            exec(migrations()[static_cast<std::size_t>(v)]);
            exec("PRAGMA user_version = " + std::to_string(v + 1));
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
}

std::vector<SessionInfo> Database::sessions() {
    std::vector<SessionInfo> out;
    Stmt s(db_,
           "SELECT id, name, source, source_sha256, format, host_kernel, coalesce(semantics, ''), imported_at, event_count, "
           "first_ts_ns, last_ts_ns, (SELECT count(*) FROM findings f WHERE f.session = sessions.id) FROM sessions ORDER BY id");
    while (s.row()) {
        SessionInfo i;
        i.id = s.i64(0);
        i.name = s.text(1);
        i.source = s.text(2);
        i.sha256 = s.text(3);
        i.format = s.text(4);
        i.kernel = s.text(5);
        i.semantics = s.text(6);
        i.imported_at = s.text(7);
        i.events = s.i64(8);
        i.first_ts = s.i64(9);
        i.last_ts = s.i64(10);
        i.findings = s.i64(11);
        out.push_back(std::move(i));
    }
    return out;
}

bool Database::remove_session(const std::string& id_or_name) {
    std::int64_t id = -1;
    {
        Stmt s(db_, "SELECT id FROM sessions WHERE name = ?1 OR CAST(id AS TEXT) = ?1");
        s.bind(1, std::string_view(id_or_name));
        if (!s.row()) return false;
        id = s.i64(0);
    }
    exec("BEGIN IMMEDIATE");
    try {
        for (const char* table : {"event_names", "gaps", "vcpus", "serial_lines", "exits", "exit_counts", "interrupts",
                                  "latency", "ipis", "ipi_destinations", "findings", "finding_chain", "stats"}) {
            Stmt d(db_, std::string("DELETE FROM ") + table + " WHERE session = ?1");
            d.bind(1, id).run();
        }
        Stmt rows(db_, "DELETE FROM event_rows WHERE rowid >= ?1 AND rowid < ?2");  // the session's rowid range
        rows.bind(1, id << 40).bind(2, (id + 1) << 40).run();
        Stmt ses(db_, "DELETE FROM sessions WHERE id = ?1");
        ses.bind(1, id).run();
        exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    return true;
}

QueryResult Database::query(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &st, &tail) != SQLITE_OK) {
        const int off = sqlite3_error_offset(db_);
        std::string msg = sqlite3_errmsg(db_);
        throw StorageError("SQL error" + (off >= 0 ? " at offset " + std::to_string(off) : std::string()) + ": " + msg);
    }
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(st, &sqlite3_finalize);
    for (const char* p = tail; p && *p; ++p)
        if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';')
            throw StorageError("SQL error at offset " + std::to_string(tail - sql.c_str()) + ": one statement at a time");
    if (!st) throw StorageError("SQL error: empty statement");
    QueryResult r;
    const int n = sqlite3_column_count(st);
    for (int c = 0; c < n; ++c) r.columns.emplace_back(sqlite3_column_name(st, c));
    for (;;) {
        const int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) throw StorageError(std::string("SQL error: ") + sqlite3_errmsg(db_));
        auto& row = r.rows.emplace_back();
        for (int c = 0; c < n; ++c) {
            const auto* p = sqlite3_column_text(st, c);
            if (sqlite3_column_type(st, c) == SQLITE_NULL || !p) row.emplace_back(std::nullopt);
            else row.emplace_back(std::string(reinterpret_cast<const char*>(p)));
        }
    }
    return r;
}

}  // namespace irqflow::storage
