// Where sessions are stored: an SQLite file (Database, the embedded default) or a
// PostgreSQL server shared by a fleet (storage/README.md, "PostgreSQL"). Both hold the
// same tables, views and column names (storage/SCHEMA.md); the commands and the GUI
// use this interface and never ask which one they have.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <optional>
#include <stdexcept>

#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/serial.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::storage {

// The schema version this build writes; older files are migrated forward on open,
// newer ones are refused untouched.
inline constexpr int kSchemaVersion = 10;

// Errors from the database (bad SQL, newer schema, duplicate import, I/O). `where` names
// the file and, for SQL, the offset of the problem in the statement.
class StorageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SessionInfo {
    std::int64_t id = 0;
    std::string name, source, sha256, format, kernel, semantics, imported_at;
    std::string host_name, guest_kernel;  // "" when not known
    std::int64_t events = 0, first_ts = 0, last_ts = 0, findings = 0;
};

// Where a session came from, beyond what its trace records (storage/SCHEMA.md,
// "sessions"), so a fleet can group by host, kernels and tags.
struct SessionMeta {
    TraceMeta trace;
    std::string host_name;     // the trace's (trace.dat's uname) unless given
    std::string guest_kernel;  // from the serial log's "Linux version" line, or given
    std::string qemu_cmdline;  // when known
    std::vector<std::pair<std::string, std::string>> tags;  // key=value, keys unique
    SessionMeta() = default;
    SessionMeta(const TraceMeta& t) : trace(t), host_name(t.host_name) {}  // NOLINT: a trace's own meta is enough
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

// Bounds of one `query` (0: no bound): rows delivered, wall time, and memory — SQLite's
// heap while the statement runs (its hard heap limit); a PostgreSQL server bounds a
// statement's memory itself (work_mem, spilling to disk), so there only time applies.
// `irqflow query` sets defaults (ui/README.md); the library sets none.
struct QueryLimits {
    std::uint64_t max_rows = 0;
    double timeout_s = 0;
    std::uint64_t max_memory = 0;  // bytes
};

// Another connection holds the write lock this one waits for.
struct LockWait {
    double waited_s = 0;
    std::string holder;  // "pid 123 (irqflow import …)" when the lock's owner can be seen, else ""
};

struct ImportProgress {
    std::uint64_t done = 0, total = 0;
};


// A session name already taken: `name-2`, `name-3`… (a default name, from the file), or
// a StorageError (a name the user chose).
enum class NameClash { Suffix, Refuse };

// A stored session read back: the normalized events as the reader produced them
// (record numbers, attribution, lost-event markers), the VMs and vCPUs, and the
// serial lines at their stored host time. Not kept: raw payloads of events irqflow
// does not decode, and host thread names.
// The guest's own trace of a session's run, on the host's clock (storage/SCHEMA.md,
// "guest_traces", "guest_events"): imported beside the host's, read back with it.
struct GuestSide {
    std::string source;  // the guest trace as the user named it
    GuestTrace trace;
    GuestClock clock;
};

struct StoredSession {
    SessionInfo info;
    Trace trace;
    SerialLog serial;  // no lines when none were imported
    std::optional<GuestSide> guest;  // when one was imported
    replay::PvEoiSemantics semantics = replay::PvEoiSemantics::Auto;
};


class SessionSink;  // a backend's half of a SessionWriter (storage/src/session_sink.hpp)

class Store {
public:
    enum class Mode { ReadWrite, ReadOnly };
    virtual ~Store() = default;

    // Where it is, as messages may show it (a PostgreSQL URI without its password).
    virtual const std::string& where() const = 0;
    virtual std::vector<SessionInfo> sessions() = 0;
    virtual StoredSession load_session(const std::string& id_or_name, const std::function<void(const ImportProgress&)>& progress = {},
                                       const std::function<void(const Event&)>& each = {}) = 0;
    virtual bool remove_session(const std::string& id_or_name) = 0;
    // One read-only statement, rows handed over as they come (Database::query says how
    // each backend keeps it read-only).
    virtual std::uint64_t query(const std::string& sql, const std::function<void(const std::vector<std::string>&)>& on_columns,
                                const std::function<void(const QueryRow&, const QueryTypes&)>& on_row, const QueryLimits& limits = {}) = 0;
    QueryResult query(const std::string& sql);
    // Refuses a store whose contents cannot be trusted, naming the problem.
    virtual void verify() = 0;
    // The session a trace with this content (sha256) was stored as, if any.
    virtual std::optional<SessionInfo> session_with_source(const std::string& sha256) = 0;

    // SessionWriter's backend: takes what the store needs to write one session in one
    // transaction. Throws StorageError for a read-only store or a source stored already.
    virtual std::unique_ptr<SessionSink> begin_session(const std::string& name, const SessionMeta& meta, const std::string& sha256,
                                                       NameClash clash) = 0;

    // A whole trace in one call (tests, `push`); as SessionWriter.
    std::int64_t import_session(const std::string& name, const Trace& trace, const std::string& sha256, const replay::ReplayResult& replay,
                                const SerialLog* serial, const std::function<void(const ImportProgress&)>& progress = {},
                                NameClash clash = NameClash::Suffix, const SessionMeta* meta = nullptr, const GuestSide* guest = nullptr);
};

// Whether `db` names a PostgreSQL server rather than an SQLite file.
bool is_postgres_uri(std::string_view db);

// `uri` as it may appear in messages and logs: the password (user:PASS@ or
// password=PASS) replaced by "***".
std::string redacted_uri(std::string_view uri);

// "DB:SESSION" as `diff` and the GUI's --compare name a stored session: DB an SQLite
// file (by its header) or a postgresql:// URI, SESSION an id or name. nullopt: not that.
struct StoredSessionName {
    std::string db, session;
};
std::optional<StoredSessionName> stored_session_name(const std::string& given);

// Opens `db`: postgresql://… or postgres://… is a server (libpq URI; the password from
// PGPASSWORD or ~/.pgpass), anything else an SQLite file. A writer to a file waits for
// another writer as Database does, calling `on_wait`.
std::unique_ptr<Store> open_store(const std::string& db, Store::Mode mode, std::function<void(const LockWait&)> on_wait = {});

}  // namespace irqflow::storage
