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
inline constexpr int kSchemaVersion = 4;

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

struct QueryResult {
    std::vector<std::string> columns;
    std::vector<std::vector<std::optional<std::string>>> rows;  // nullopt = NULL
};

struct ImportProgress {
    std::uint64_t done = 0, total = 0;
};

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

class Database {
public:
    enum class Mode { ReadWrite, ReadOnly };
    // Opens (creating for ReadWrite) and migrates to kSchemaVersion.
    Database(const std::string& path, Mode mode);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    int schema_version();
    // One transaction: the session appears whole or not at all. Throws StorageError
    // when a file with the same content was imported already.
    std::int64_t import_session(const std::string& name, const Trace& trace, const std::string& sha256,
                                const replay::ReplayResult& replay, const SerialLog* serial,
                                const std::function<void(const ImportProgress&)>& progress = {});
    std::vector<SessionInfo> sessions();
    // Reads a session (by id or name) back; throws StorageError when there is none or
    // its rows contradict each other.
    StoredSession load_session(const std::string& id_or_name, const std::function<void(const ImportProgress&)>& progress = {});
    // Removes a session by id or name; false when there is none.
    bool remove_session(const std::string& id_or_name);
    // Runs one statement (read-only databases refuse writes).
    QueryResult query(const std::string& sql);

    sqlite3* handle() { return db_; }

private:
    void exec(const std::string& sql);
    void migrate();
    std::string path_;
    sqlite3* db_ = nullptr;
    bool readonly_ = false;
};

// The DDL of each schema version, in order (tests build old files from it).
const std::vector<std::string>& migrations();

}  // namespace irqflow::storage
