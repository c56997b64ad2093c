// A session into an SQLite file (storage/README.md, "Import"): one BEGIN IMMEDIATE
// transaction; event rows on the RowWriter's thread; the other tables by multi-row
// INSERTs; each event table's new rows recorded as one rowid range (event_tables).
#include "event_tables.hpp"
#include "row_writer.hpp"
#include "session_sink.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {
namespace {

// Values bound into a multi-row INSERT: row r's column c is parameter r * columns + c + 1.
class BoundValues final : public Values {
public:
    BoundValues(Stmt& s, int base) : s_(s), at_(base) {}

private:
    void put_int(std::int64_t v) override { s_.bind(++at_, v); }
    void put_real(double v) override { s_.bind(++at_, v); }
    void put_text(std::string_view v) override { s_.bind(++at_, v); }
    void put_null() override { s_.bind(++at_, std::optional<std::int64_t>{}); }
    Stmt& s_;
    int at_;
};

class SqliteTables final : public TableSink {
public:
    explicit SqliteTables(sqlite3* db) : db_(db) {}
    // kRows rows per statement: one step and reset per kRows rows, as the event rows go.
    void rows(std::string_view table, const std::vector<std::string_view>& columns, std::size_t n, const std::function<void(Values&, std::size_t)>& fill,
              OnConflict on_conflict) override {
        constexpr std::size_t kRows = 32;
        const int cols = static_cast<int>(columns.size());
        auto sql = [&](std::size_t rows) { return multi_row_insert(table, columns, rows, {}, on_conflict); };
        auto run = [&](Stmt& st, std::size_t from, std::size_t rows) {
            for (std::size_t r = 0; r < rows; ++r) {
                BoundValues v(st, static_cast<int>(r) * cols);
                fill(v, from + r);
            }
            st.run();
        };
        std::size_t i = 0;
        if (n >= kRows) {
            Stmt full(db_, sql(kRows));
            for (; i + kRows <= n; i += kRows) run(full, i, kRows);
        }
        if (i < n) {
            Stmt rest(db_, sql(n - i));
            run(rest, i, n - i);
        }
    }

private:
    sqlite3* db_;
};

class SqliteSessionSink final : public SessionSink {
public:
    SqliteSessionSink(Database& d, const std::string& name, const SessionMeta& meta, const std::string& sha256, NameClash clash)
        : db_(d), h_(d.handle()), tables_(h_), source_(sha256) {
        if (d.read_only()) throw StorageError(d.path() + ": opened read-only");
        exec(h_, d.path(), "BEGIN IMMEDIATE");
        txn_.h = h_;
        if (source_.known())
            if (auto dup = d.session_with_source(sha256)) throw duplicate_source(d.path(), sha256, dup->id, dup->name);
        std::string unique = name;
        for (int k = 2;; ++k) {
            Stmt taken(h_, "SELECT id FROM sessions WHERE name = ?1");
            taken.bind(1, std::string_view(unique));
            if (!taken.row()) break;
            if (clash == NameClash::Refuse)
                throw StorageError(d.path() + ": a session is already named \"" + name + "\" (session " + std::to_string(taken.i64(0)) +
                                   "); choose another name or remove it first");
            unique = name + "-" + std::to_string(k);
        }
        name_ = unique;
        auto text_or_null = [](const std::string& v) { return v.empty() ? std::nullopt : std::optional<std::string_view>(v); };
        Stmt s(h_, "INSERT INTO sessions (name, source, source_sha256, format, host_kernel, trace_clock, host_cpus, host_name, guest_kernel, qemu_cmdline) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
        s.bind(1, std::string_view(unique)).bind(2, std::string_view(meta.trace.source)).bind(3, std::string_view(source_.row_value()));
        s.bind(4, std::string_view(meta.trace.format)).bind(5, std::string_view(meta.trace.kernel_release));
        s.bind(6, std::string_view(meta.trace.clock)).bind(7, meta.trace.host_cpus);
        int c = 8;
        for (const auto* v : {&meta.host_name, &meta.guest_kernel, &meta.qemu_cmdline}) {
            if (const auto t = text_or_null(*v)) s.bind(c, *t);
            else s.bind(c, std::optional<std::int64_t>{});
            ++c;
        }
        s.run();
        id_ = sqlite3_last_insert_rowid(h_);
        if (!source_.known()) {  // (no other writer until COMMIT: BEGIN IMMEDIATE)
            Stmt stored(h_, "SELECT id, name, source_sha256 FROM sessions WHERE id != ?1");
            stored.bind(1, id_);
            while (stored.row()) source_.stored(stored.i64(0), stored.text(1), stored.text(2));
        }
        before_.resize(static_cast<std::size_t>(EventKind::Count_));
        for (EventKind k : stored_kinds()) before_[static_cast<std::size_t>(k)] = largest_rowid(k);
        rows_ = std::make_unique<RowWriter>(h_, id_);  // from here on the connection is its thread's until end_events
    }
    void source(const std::string& sha256) override { source_.given(db_.path(), sha256); }
    std::int64_t id() const override { return id_; }
    const std::string& name() const override { return name_; }
    EventRowSink& events() override { return *rows_; }
    void end_events() override {
        rows_->finish();
        // Each table's new rows are one rowid range (auto-assigned rowids, one writer).
        Stmt range(h_, "INSERT INTO event_tables (session, name, first_rowid, last_rowid) VALUES (?1, ?2, ?3, ?4)");
        for (EventKind k : stored_kinds()) {
            const std::int64_t first = before_[static_cast<std::size_t>(k)] + 1, last = largest_rowid(k);
            if (last >= first) range.bind(1, id_).bind(2, event_table(k)).bind(3, first).bind(4, last).run();
        }
    }
    TableSink& tables() override { return tables_; }
    void commit(std::int64_t first_ts, std::int64_t last_ts, std::uint64_t records, std::string_view semantics) override {
        if (!source_.known()) throw std::logic_error("SqliteSessionSink: commit before the source's sha256");
        Stmt s(h_, "UPDATE sessions SET first_ts_ns = ?1, last_ts_ns = ?2, event_count = ?3, semantics = ?4, source_sha256 = ?6 WHERE id = ?5");
        s.bind(1, first_ts).bind(2, last_ts).bind(3, records).bind(4, semantics).bind(5, id_).bind(6, std::string_view(source_.sha256())).run();
        exec(h_, db_.path(), "COMMIT", "committing session \"" + name_ + "\"");
        txn_.h = nullptr;
        // Fold the WAL into the file now, as far as readers allow (never waits for them).
        sqlite3_wal_checkpoint_v2(h_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    }

private:
    std::int64_t largest_rowid(EventKind k) {
        Stmt last(h_, "SELECT coalesce(max(rowid), 0) FROM " + std::string(event_table(k)));
        last.row();
        return last.i64(0);
    }
    // Rolls the import back unless it committed; destroyed after rows_ (members die in
    // reverse order), also when the constructor throws.
    struct Rollback {
        sqlite3* h = nullptr;
        ~Rollback() {
            if (h) sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
        }
    };
    Database& db_;
    sqlite3* h_;
    Rollback txn_;
    SqliteTables tables_;
    SessionSource source_;
    std::int64_t id_ = 0;
    std::string name_;
    std::vector<std::int64_t> before_;  // per kind: its table's largest rowid before this session
    std::unique_ptr<RowWriter> rows_;   // destroyed (its thread stopped) before txn_ rolls back
};

}  // namespace

std::unique_ptr<SessionSink> Database::begin_session(const std::string& name, const SessionMeta& meta, const std::string& sha256, NameClash clash) {
    return std::make_unique<SqliteSessionSink>(*this, name, meta, sha256, clash);
}

std::optional<SessionInfo> Database::session_with_source(const std::string& sha256) {
    Stmt dup(db_, "SELECT id FROM sessions WHERE source_sha256 = ?1");
    dup.bind(1, std::string_view(sha256));
    if (!dup.row()) return std::nullopt;
    const std::int64_t id = dup.i64(0);
    for (auto& s : sessions())
        if (s.id == id) return s;
    return std::nullopt;
}

}  // namespace irqflow::storage
