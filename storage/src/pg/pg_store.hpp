// Sessions in a PostgreSQL server shared by a fleet (storage/README.md, "PostgreSQL"):
// the tables and views of storage/SCHEMA.md, per-session tables attached as partitions,
// imports by COPY published by one transaction, `query` in a READ ONLY transaction.
#pragma once
#include <memory>
#include <string>

#include "irqflow/storage/store.hpp"
#include "pg_connection.hpp"

namespace irqflow::storage {

class PgStore final : public Store {
public:
    // Creates the schema on a database that has none (ReadWrite); refuses a schema
    // version other than this build's.
    PgStore(const std::string& uri, Mode mode);
    const std::string& where() const override { return c_.where(); }
    std::vector<SessionInfo> sessions() override;
    StoredSession load_session(const std::string& id_or_name, const std::function<void(const ImportProgress&)>& progress = {},
                               const std::function<void(const Event&)>& each = {}) override;
    bool remove_session(const std::string& id_or_name) override;
    std::uint64_t query(const std::string& sql, const std::function<void(const std::vector<std::string>&)>& on_columns,
                        const std::function<void(const QueryRow&, const QueryTypes&)>& on_row, const QueryLimits& limits = {}) override;
    using Store::query;
    // The schema's version; the server keeps its own data checksums and WAL.
    void verify() override;
    std::optional<SessionInfo> session_with_source(const std::string& sha256) override;
    std::unique_ptr<SessionSink> begin_session(const std::string& name, const SessionMeta& meta, const std::string& sha256,
                                               NameClash clash) override;

    PgConnection& connection() { return c_; }
    // Another connection to the same database, for an import's second COPY stream.
    std::unique_ptr<PgConnection> open_connection() const { return std::make_unique<PgConnection>(uri_); }
    bool read_only() const { return readonly_; }

private:
    void create_or_check_schema();
    // Drops what an import killed after its second connection committed left behind
    // (pg_session_sink.cpp): a session's tables that are attached to nothing and whose
    // import no longer holds its lock (pg_import_lock).
    void drop_abandoned_tables();
    // Runs `read` in a READ ONLY transaction that holds the publish lock shared, unless
    // the connection is in a transaction already (an import's own reads).
    template <class F>
    auto consistent(F read);
    std::optional<std::int64_t> find(const std::string& id_or_name);
    std::string uri_;  // as given, password included: never printed (where() is redacted)
    PgConnection c_;
    bool readonly_;
};

// Advisory locks (pg_advisory_xact_lock) that keep irqflow connections from each other:
// schema creation; and the short last step of an import or a removal, which attaches or
// drops partitions (taken exclusively, one at a time), against irqflow's readers (taken
// shared before their statement is planned). PostgreSQL gives a query the partitions
// attached when it opens each table, not when its snapshot was taken: a query planned
// while an import commits could see some of the new session's tables and not others.
// With the lock it plans wholly before that commit or wholly after.
inline constexpr long long kPgSchemaLock = 0x697271666c6f77;  // "irqflow"
inline constexpr long long kPgPublishLock = kPgSchemaLock + 1;

// The arguments of the advisory lock an import holds on its session for the whole of its
// transaction: while it is held, the session's unattached tables are that import's work
// in progress; once it is free, they are what a killed import left. Two int4 keys (a
// space apart from the single-key locks above), the second a hash of schema and id:
// sessions of other schemas do not share it, and a collision only makes a sweep wait.
inline std::string pg_import_lock(long long session) {
    return "1769105009, hashtext(current_schema() || '.' || " + std::to_string(session) + ")";
}

}  // namespace irqflow::storage
