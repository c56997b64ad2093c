// Recorded sessions in one SQLite file that any SQL tool opens (storage/SCHEMA.md).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "irqflow/capture/serial.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"

struct sqlite3;

namespace irqflow::storage {

// The schema version this build writes; older files are migrated forward on open,
// newer ones are refused untouched.
inline constexpr int kSchemaVersion = 6;

// Errors from the database (bad SQL, newer schema, duplicate import, I/O). `where` names
// the file and, for SQL, the offset of the problem in the statement.
class StorageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SessionInfo {
    std::int64_t id = 0;
    std::string name, source, sha256, format, kernel, semantics, imported_at;
    std::int64_t events = 0, first_ts = 0, last_ts = 0, findings = 0;
};

using QueryRow = std::vector<std::optional<std::string>>;  // nullopt = NULL
// What SQLite stored in each cell of a row (its storage class), so a JSON writer can
// emit numbers as numbers, as `sqlite3 -json` does.
enum class CellType : std::uint8_t { Null, Integer, Real, Text, Blob };
using QueryTypes = std::vector<CellType>;
struct QueryResult {
    std::vector<std::string> columns;
    std::vector<QueryRow> rows;
};

// Bounds of one `query`: rows delivered and wall time (0: no bound).
struct QueryLimits {
    std::uint64_t max_rows = 0;
    double timeout_s = 0;
};

// Another connection holds the write lock this one waits for.
struct LockWait {
    double waited_s = 0;
    std::string holder;  // "pid 123 (irqflow import …)" when the lock's owner can be seen, else ""
};

struct ImportProgress {
    std::uint64_t done = 0, total = 0;
};

// Whether `path` is an SQLite file, by its header (not by its name): a database of
// sessions, as opposed to a trace.
bool is_database_file(const std::string& path);

// A session name already taken: `name-2`, `name-3`… (a default name, from the file), or
// a StorageError (a name the user chose).
enum class NameClash { Suffix, Refuse };

// A stored session read back: the normalized events as the reader produced them
// (record numbers, attribution, lost-event markers), the VMs and vCPUs, and the
// serial lines at their stored host time. Not kept: raw payloads of events irqflow
// does not decode, and host thread names.
struct StoredSession {
    SessionInfo info;
    Trace trace;
    SerialLog serial;  // no lines when none were imported
    replay::PvEoiSemantics semantics = replay::PvEoiSemantics::Auto;
};

// One connection; use it from one thread at a time.
class Database {
public:
    enum class Mode { ReadWrite, ReadOnly };
    // Opens (creating for ReadWrite) and migrates to kSchemaVersion. A writer waits
    // as long as another one holds the write lock, calling `on_wait` about every 2 s
    // (storage/README.md, "Concurrent writers"); a reader never needs that lock.
    Database(const std::string& path, Mode mode, std::function<void(const LockWait&)> on_wait = {});
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    int schema_version();
    // One transaction: the session appears whole or not at all. Throws StorageError
    // when a file with the same content was imported already.
    std::int64_t import_session(const std::string& name, const Trace& trace, const std::string& sha256,
                                const replay::ReplayResult& replay, const SerialLog* serial,
                                const std::function<void(const ImportProgress&)>& progress = {},
                                NameClash clash = NameClash::Suffix);
    std::vector<SessionInfo> sessions();
    // Reads a session (by id or name) back; throws StorageError when there is none or
    // its rows contradict each other. `each`, when given, sees every event as it is read,
    // in order (the GUI builds its loading overview from them).
    StoredSession load_session(const std::string& id_or_name, const std::function<void(const ImportProgress&)>& progress = {},
                               const std::function<void(const Event&)>& each = {});
    // Removes a session by id or name; false when there is none.
    bool remove_session(const std::string& id_or_name);
    // The file's size in pages, and the rewrite that gives space back to the file system
    // (VACUUM) when at least `free_fraction` of it is free pages after removals; below
    // that the free pages stay for the next import. True when it shrank.
    std::int64_t file_bytes();
    bool shrink_if_mostly_free(double free_fraction = 0.25);
    // Runs one read-only statement (storage/README.md, "query"): anything that could
    // write, attach, vacuum or reach outside the file is refused before it runs. Rows
    // are handed over as they are stepped, never collected; stops quietly after
    // limits.max_rows and with an error after limits.timeout_s. Returns the rows given.
    std::uint64_t query(const std::string& sql, const std::function<void(const std::vector<std::string>&)>& on_columns,
                        const std::function<void(const QueryRow&, const QueryTypes&)>& on_row, const QueryLimits& limits = {});
    // The same, collected (tests, small results).
    QueryResult query(const std::string& sql);
    // PRAGMA quick_check; throws StorageError naming the file and the first problem.
    void verify();

    sqlite3* handle() { return db_; }
    const std::string& path() const { return path_; }
    bool read_only() const { return readonly_; }

private:
    void exec(const std::string& sql);
    void migrate();
    void refuse_foreign();
    static int on_busy(void* self, int count);
    std::string path_;
    sqlite3* db_ = nullptr;
    bool readonly_ = false;
    std::function<void(const LockWait&)> on_wait_;
    double wait_started_ = 0;  // steady seconds at the first retry of the current wait
    double wait_reported_ = 0;
};

// The DDL of each schema version, in order (tests build old files from it).
const std::vector<std::string>& migrations();

}  // namespace irqflow::storage
