#include "irqflow/storage/database.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>


#include "event_tables.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {

Database::Database(const std::string& path, Mode mode, std::function<void(const LockWait&)> on_wait)
    : path_(path), readonly_(mode == Mode::ReadOnly), on_wait_(std::move(on_wait)) {
    struct stat st {};
    if (readonly_ && stat(path.c_str(), &st) != 0) throw StorageError(path + ": no such database");
    // A reader opens read-write when it may (query_only and the query authorizer keep it
    // from writing): only then does closing the last connection fold the WAL back and
    // remove the -wal/-shm files instead of leaving them behind after every query.
    const bool writable_file = access(path.c_str(), W_OK) == 0;
    // NOMUTEX: a Database is used by one thread at a time, so SQLite's per-call mutex is
    // pure cost (a quarter of the insert time of an import, measured by bench_scale).
    const int flags = (!readonly_ ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
                       : writable_file ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_NOMUTEX;
    // SQLite counts every allocation under a global mutex unless told not to. An import
    // allocates per row (~7 % of its time) and reads no count; a reader's query needs
    // them for its memory bound (QueryLimits::max_memory: SQLite's hard heap limit is
    // only kept with the counts on). The first database a process opens decides:
    // sqlite3_config only works before SQLite starts.
    static const int configured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, readonly_ ? 1 : 0);
    (void)configured;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw StorageError(path + ": cannot open: " + msg);
    }
    sqlite3_busy_handler(db_, &Database::on_busy, this);
    sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);  // no writes to the schema or pages behind SQLite's back
    try {
        // Refuse a newer or foreign file before changing anything in it.
        refuse_foreign();
        if (readonly_) {
            exec("PRAGMA query_only = 1");
            if (const int v = schema_version(); v < kSchemaVersion)
                throw StorageError(path + ": schema version " + std::to_string(v) + " must be migrated first (open it read-write once, e.g. irqflow sessions --db " + path + ")");
        } else {
            if (schema_version() == 0) exec("PRAGMA page_size = 16384");  // new file: bigger pages insert faster
            // A new file starts in rollback mode, where two openers switching it to WAL at
            // once each hold a shared lock and want the exclusive one: SQLite answers one
            // of them "locked" at once instead of waiting (it would deadlock). That one
            // lets go and tries again; the other finishes the switch.
            for (int attempt = 0;; ++attempt) {
                if (sqlite3_exec(db_, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr) == SQLITE_OK) break;
                if (sqlite3_errcode(db_) != SQLITE_BUSY || attempt == 1000) exec("PRAGMA journal_mode = WAL");  // throws with the reason
                std::this_thread::sleep_for(std::chrono::milliseconds(1 + attempt % 7));
            }
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

// The version and whether the file has tables, read in one snapshot: a creator in
// another process commits its tables and the version together, so "tables but no
// version" is a file that irqflow did not make, never a creation in progress.
void Database::refuse_foreign() {
    exec("BEGIN");
    int v = 0;
    std::int64_t tables = 0;
    try {
        v = schema_version();
        Stmt t(db_, "SELECT count(*) FROM sqlite_master");
        if (t.row()) tables = t.i64(0);
        exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    if (v > kSchemaVersion)
        throw StorageError(path_ + ": schema version " + std::to_string(v) + " is newer than this irqflow understands (" +
                           std::to_string(kSchemaVersion) + "); refusing to open it (use a newer irqflow)");
    if (v == 0 && tables > 0) throw StorageError(path_ + ": not an irqflow database (it has tables but no irqflow schema version)");
}

Database::~Database() { sqlite3_close(db_); }

void Database::exec(const std::string& sql) { storage::exec(db_, path_, sql); }

int Database::schema_version() {
    Stmt s(db_, "PRAGMA user_version");
    return s.row() ? static_cast<int>(s.i64(0)) : 0;
}

// Each step reads the version inside its write transaction: two processes creating
// or upgrading the same file at once take turns, and the second finds nothing to do
// (reading it before BEGIN made both run the same DDL: "table exists").
void Database::migrate() {
    for (;;) {
        exec("BEGIN IMMEDIATE");
        try {
            const int v = schema_version();
            if (v >= kSchemaVersion) {
                exec("COMMIT");
                return;
            }
            exec(migrations()[static_cast<std::size_t>(v)]);
            exec("PRAGMA user_version = " + std::to_string(v + 1));
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
}

void Database::verify() {
    Stmt s(db_, "PRAGMA quick_check(5)");
    std::string problems;
    while (s.row()) {
        const std::string line = s.text(0);
        if (line == "ok") return;
        problems += (problems.empty() ? "" : "; ") + line;
    }
    throw StorageError(path_ + ": damaged database (PRAGMA quick_check: " + problems + "); it cannot be trusted, re-import the trace");
}

std::vector<SessionInfo> Database::sessions() {
    std::vector<SessionInfo> out;
    Stmt s(db_,
           "SELECT id, name, source, source_sha256, format, host_kernel, coalesce(semantics, ''), imported_at, event_count, "
           "first_ts_ns, last_ts_ns, (SELECT count(*) FROM findings f WHERE f.session = sessions.id), coalesce(host_name, ''), "
           "coalesce(guest_kernel, '') FROM sessions ORDER BY id");
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
        i.host_name = s.text(12);
        i.guest_kernel = s.text(13);
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
        // The session's rows of each event table are one rowid range (event_tables).
        for (EventKind k : stored_kinds()) {
            Stmt range(db_, "SELECT first_rowid, last_rowid FROM event_tables WHERE session = ?1 AND name = ?2");
            range.bind(1, id).bind(2, event_table(k));
            if (!range.row()) continue;
            Stmt rows(db_, "DELETE FROM " + std::string(event_table(k)) + " WHERE rowid BETWEEN ?1 AND ?2");
            rows.bind(1, range.i64(0)).bind(2, range.i64(1)).run();
        }
        for (const char* table : {"event_tables", "event_names", "gaps", "vcpus", "serial_lines", "exit_counts", "interrupts",
                                  "latency", "ipis", "ipi_destinations", "findings", "finding_chain", "stats", "session_tags", "session_totals", "ipi_counts", "guest_traces", "guest_events"}) {
            Stmt d(db_, std::string("DELETE FROM ") + table + " WHERE session = ?1");
            d.bind(1, id).run();
        }
        Stmt ses(db_, "DELETE FROM sessions WHERE id = ?1");
        ses.bind(1, id).run();
        exec("COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    return true;
}

std::int64_t Database::file_bytes() {
    Stmt pages(db_, "PRAGMA page_count"), size(db_, "PRAGMA page_size");
    pages.row();
    size.row();
    return pages.i64(0) * size.i64(0);
}

bool Database::shrink_if_mostly_free(double free_fraction) {
    {
        Stmt free_pages(db_, "PRAGMA freelist_count"), pages(db_, "PRAGMA page_count");  // finalized before VACUUM
        free_pages.row();
        pages.row();
        if (pages.i64(0) == 0 || static_cast<double>(free_pages.i64(0)) < free_fraction * static_cast<double>(pages.i64(0))) return false;
    }
    exec("VACUUM");
    // the WAL now holds the rewritten file: fold it in and cut it to nothing
    sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    return true;
}

bool is_database_file(const std::string& path) {
    char head[16] = {};
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    const std::size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    return n == sizeof head && std::memcmp(head, "SQLite format 3", 16) == 0;
}

}  // namespace irqflow::storage
