// Recorded sessions in one SQLite file that any SQL tool opens (storage/SCHEMA.md).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "irqflow/storage/store.hpp"

struct sqlite3;

namespace irqflow::storage {

// Whether `path` is an SQLite file, by its header (not by its name): a database of
// sessions, as opposed to a trace.
bool is_database_file(const std::string& path);

// One connection to an SQLite file; use it from one thread at a time.
class Database : public Store {
public:
    using Mode = Store::Mode;
    // Opens (creating for ReadWrite) and migrates to kSchemaVersion. A writer waits
    // as long as another one holds the write lock, calling `on_wait` about every 2 s
    // (storage/README.md, "Concurrent writers"); a reader never needs that lock.
    Database(const std::string& path, Mode mode, std::function<void(const LockWait&)> on_wait = {});
    ~Database() override;
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    int schema_version();
    const std::string& where() const override { return path_; }
    std::vector<SessionInfo> sessions() override;
    // Reads a session (by id or name) back; throws StorageError when there is none or
    // its rows contradict each other. `each`, when given, sees every event as it is read,
    // in order (the GUI builds its loading overview from them).
    StoredSession load_session(const std::string& id_or_name, const std::function<void(const ImportProgress&)>& progress = {},
                               const std::function<void(const Event&)>& each = {}) override;
    // Removes a session by id or name; false when there is none.
    bool remove_session(const std::string& id_or_name) override;
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
                        const std::function<void(const QueryRow&, const QueryTypes&)>& on_row, const QueryLimits& limits = {}) override;
    using Store::query;  // the collected form (tests, small results)
    // PRAGMA quick_check; throws StorageError naming the file and the first problem.
    void verify() override;
    std::optional<SessionInfo> session_with_source(const std::string& sha256) override;
    std::unique_ptr<SessionSink> begin_session(const std::string& name, const SessionMeta& meta, const std::string& sha256,
                                               NameClash clash) override;

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
