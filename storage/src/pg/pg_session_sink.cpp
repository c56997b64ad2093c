// A session into PostgreSQL (storage/README.md, "PostgreSQL"), published by one
// transaction: the sessions row first (its unique keys make a concurrent import of the
// same trace wait, then fail), the session's own tables made beside the partitioned ones
// and filled by COPY, then — under the publish lock — the shared rows and ATTACH
// PARTITION, and COMMIT. Killed at any point before COMMIT, the server rolls back the
// session and every row readers could see; tables a second COPY lane committed stay
// attached to nothing, invisible, until the next writer drops them (pg_store.hpp).
//
// Events of every kind arrive interleaved and COPY fills one table at a time, so each
// kind's rows collect in a chunk of their own; a full chunk goes to the lane of its
// table, a thread owning a connection that COPYs it (one COPY statement per chunk) while
// this thread formats the next ones: the server's work overlaps ours. Memory stays
// bounded by kinds × kChunk plus the chunks in flight, not by events.
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <thread>
#include <unordered_map>

#include "../event_tables.hpp"
#include "irqflow/capture/batch_pipe.hpp"
#include "../session_sink.hpp"
#include "pg_schema.hpp"
#include "pg_store.hpp"

namespace irqflow::storage {
namespace {

constexpr std::size_t kChunk = 1 << 20;  // bytes of COPY text per statement

void put_int(std::string& out, std::int64_t v) {
    char b[24];
    const auto r = std::to_chars(b, b + sizeof b, v);
    out.append(b, r.ptr);
}

// Values as one line of COPY's text format.
class CopyValues final : public Values {
public:
    explicit CopyValues(std::string& out) : out_(out) {}
    void start() { first_ = true; }

private:
    void sep() {
        if (!first_) out_ += '\t';
        first_ = false;
    }
    void put_int(std::int64_t v) override {
        sep();
        storage::put_int(out_, v);
    }
    void put_real(double v) override {
        sep();
        if (std::isnan(v)) out_ += "NaN";
        else if (std::isinf(v)) out_ += v > 0 ? "Infinity" : "-Infinity";
        else {
            char b[32];
            const auto r = std::to_chars(b, b + sizeof b, v);  // shortest text that reads back the same double
            out_.append(b, r.ptr);
        }
    }
    void put_text(std::string_view v) override {
        sep();
        out_ += copy_escape(v);
    }
    void put_null() override {
        sep();
        out_ += "\\N";
    }
    std::string& out_;
    bool first_ = true;
};

// Values as text parameters (the few rows of the shared tables).
class ParamValues final : public Values {
public:
    std::vector<std::optional<std::string>> values;

private:
    void put_int(std::int64_t v) override { values.emplace_back(std::to_string(v)); }
    void put_real(double v) override {
        char b[32];
        const auto r = std::to_chars(b, b + sizeof b, v);
        values.emplace_back(std::string(b, r.ptr));
    }
    void put_text(std::string_view v) override { values.emplace_back(std::string(v)); }
    void put_null() override { values.emplace_back(std::nullopt); }
};

// Event rows on their way to the server: chunks of COPY text, each for one table
// (storage/src/event_tables.hpp names them; kinds past the last are `gaps`), COPYed by
// the lane that table was given.
struct Chunk {
    std::size_t table = 0;  // index into ChunkWriter's tables
    std::string rows;
};
struct CopyTable {
    std::string name;  // the session's own, quoted
    std::vector<std::string> columns;
    std::string create;  // its DDL, run before its first COPY
    bool created = false;
    int lane = -1;  // which lane COPYs it; -1 until its first chunk
};

// One COPY stream: a thread owning a connection COPYs the chunks pushed to it, while
// the importer formats the next ones. Lane 0 uses the import's own connection, inside
// its transaction. Another lane opens a connection of its own when first given a table,
// COPYs in a transaction of its own and commits it once its last chunk is in — its
// tables still attached to nothing (storage/README.md, "PostgreSQL") — while the import
// goes on.
class CopyLane {
public:
    using Pipe = BatchPipe<Chunk, 1, 4>;
    CopyLane(std::vector<CopyTable>& tables, PgConnection* own, const PgStore& store) : tables_(tables), c_(own), store_(store) {
        batch_ = pipe_.take_empty();
        thread_ = std::thread([this] { run(); });
    }
    ~CopyLane() { abandon(); }
    // Stops the lane: what is queued is dropped; its own transaction, unless committed
    // already, rolls back.
    void abandon() {
        abandon_ = true;
        pipe_.close(std::make_exception_ptr(StorageError("import abandoned")));
        wait();
    }
    // Throws the lane's error if it stopped on one.
    void push(Chunk chunk) {
        bytes_ += chunk.rows.size();
        batch_.push_back(std::move(chunk));
        try {
            pipe_.push(std::move(batch_));
        } catch (const Pipe::Cancelled&) {
            wait();
            std::rethrow_exception(error_);
        }
        batch_ = pipe_.take_empty();
    }
    // No more chunks: the lane COPYs what it has (a lane of its own then commits).
    void close() { pipe_.close(); }
    // Waits for the lane to end; its error, if any.
    std::exception_ptr wait() {
        if (thread_.joinable()) thread_.join();
        return error_;
    }
    // A lane of its own: whether it has its connection, opening it on the first ask. A
    // server at its connection limit refuses it; the import then keeps to lane 0.
    bool connected() {
        if (c_) return true;
        if (refused_) return false;
        try {
            own_ = store_.open_connection();
            c_ = own_.get();
        } catch (const StorageError&) {
            refused_ = true;
        }
        return c_ != nullptr;
    }
    bool failed() const { return failed_; }
    bool committed() const { return committed_; }
    std::size_t bytes() const { return bytes_; }

private:
    void run() {
        try {
            Pipe::Batch b;
            while (pipe_.pop(b))
                for (Chunk& chunk : b) {
                    if (abandon_) continue;
                    if (own_ && !txn_) {
                        // no wait for the disk at this commit: the import's own, later in
                        // the same WAL, waits for both
                        txn_.emplace(*c_, "BEGIN; SET LOCAL synchronous_commit = off");
                    }
                    CopyTable& t = tables_[chunk.table];
                    if (!t.created) c_->exec(t.create);  // a session's tables are only those with rows
                    t.created = true;
                    bool sent = false;
                    c_->copy_in(
                        t.name, t.columns,
                        [&](std::string& out) {
                            if (!sent) out.swap(chunk.rows);
                            sent = true;
                            return false;
                        },
                        true);  // FREEZE: the table is this transaction's own
                }
            if (txn_) {
                txn_->commit();
                committed_ = true;
            }
        } catch (...) {
            error_ = std::current_exception();
            failed_ = true;
            pipe_.cancel();
        }
    }
    std::vector<CopyTable>& tables_;
    PgConnection* c_;  // set before the first chunk is pushed
    const PgStore& store_;
    std::unique_ptr<PgConnection> own_;
    std::optional<PgTransaction> txn_;  // a lane of its own's; goes before own_
    Pipe pipe_;
    Pipe::Batch batch_;
    std::size_t bytes_ = 0;
    std::exception_ptr error_;
    std::atomic<bool> failed_ = false, abandon_ = false;
    bool committed_ = false;  // read after wait()
    bool refused_ = false;
    std::thread thread_;
};

// One backend parses and stores one row at a time (PostgreSQL 15 on CI's machine: 1.8 s
// of server CPU per 2 M events, one core busy while the other idled): a second lane
// COPYs the tables the first has no time for. Tables go to lanes whole — a table's rows
// cannot be split between transactions — when their first full chunk leaves, to the lane
// with the fewest bytes so far; a table that never fills a chunk stays with lane 0, so a
// small session uses the import's connection only. Measured in storage/README.md,
// "How fast".
constexpr std::size_t kLanes = 2;

class ChunkWriter {
public:
    ChunkWriter(PgConnection& c, const PgStore& store, std::vector<CopyTable> tables) : tables_(std::move(tables)), open_(tables_.size()) {
        for (std::size_t l = 0; l < kLanes; ++l) lanes_.push_back(std::make_unique<CopyLane>(tables_, l == 0 ? &c : nullptr, store));
    }
    // The chunk of table `t` to append rows to; sent once full.
    std::string& rows(std::size_t t) { return open_[t]; }
    void maybe_send(std::size_t t) {
        if (open_[t].size() < kChunk) return;
        send(t, true);
        open_[t].reserve(kChunk + 4096);  // a table that filled one chunk will likely fill more
    }
    // Sends what is left and waits for lane 0: the import's connection is the caller's
    // again. The other lanes finish meanwhile.
    void end() {
        for (std::size_t t = 0; t < open_.size(); ++t)
            if (!open_[t].empty()) send(t, false);
        for (auto& l : lanes_) l->close();
        if (auto e = lanes_[0]->wait()) std::rethrow_exception(e);
    }
    // After end(): waits for the other lanes to commit.
    void wait_all() {
        for (auto& l : lanes_)
            if (auto e = l->wait()) std::rethrow_exception(e);
    }
    // Stops every lane (the import failed).
    void abandon() {
        for (auto& l : lanes_) l->abandon();
    }
    // Whether table `t` got rows (and so exists); after wait_all().
    bool created(std::size_t t) const { return tables_[t].created; }
    // The tables other lanes committed, which stay if the import fails before its
    // commit; after abandon().
    std::vector<std::string> committed_elsewhere() const {
        std::vector<std::string> out;
        for (const auto& t : tables_)
            if (t.created && t.lane > 0 && lanes_[static_cast<std::size_t>(t.lane)]->committed()) out.push_back(t.name);
        return out;
    }

private:
    void send(std::size_t t, bool full) {
        CopyTable& table = tables_[t];
        if (table.lane < 0) {
            table.lane = 0;
            if (full)
                for (std::size_t l = 1; l < kLanes; ++l)
                    if (lanes_[l]->bytes() < lanes_[static_cast<std::size_t>(table.lane)]->bytes() && lanes_[l]->connected()) table.lane = static_cast<int>(l);
        }
        for (auto& l : lanes_)
            if (l->failed()) {
                if (auto e = l->wait()) std::rethrow_exception(e);
            }
        lanes_[static_cast<std::size_t>(table.lane)]->push({t, std::move(open_[t])});
        open_[t] = std::string();
    }
    std::vector<CopyTable> tables_;
    std::vector<std::string> open_;
    std::vector<std::unique_ptr<CopyLane>> lanes_;  // destroyed first: they use tables_
};

class PgSessionSink final : public SessionSink, public EventRowSink, public TableSink {
public:
    PgSessionSink(PgStore& store, const std::string& name, const SessionMeta& meta, const std::string& sha256, NameClash clash)
        : store_(store), c_(store.connection()), source_(sha256) {
        if (store.read_only()) throw StorageError(store.where() + ": opened read-only");
        txn_.emplace(c_, "BEGIN");
        if (source_.known())
            if (auto dup = store.session_with_source(sha256)) throw duplicate(sha256, *dup);
        auto nullable = [](const std::string& v) { return v.empty() ? std::nullopt : std::optional<std::string>(v); };
        std::string unique = name;
        for (int k = 2;; ++k) {
            c_.exec("SAVEPOINT session_name");
            try {
                const auto r = c_.query(
                    "INSERT INTO sessions (name, source, source_sha256, format, host_kernel, trace_clock, host_cpus, host_name, guest_kernel, qemu_cmdline) "
                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                    {unique, meta.trace.source, source_.row_value(), meta.trace.format, meta.trace.kernel_release, meta.trace.clock, std::to_string(meta.trace.host_cpus),
                     nullable(meta.host_name), nullable(meta.guest_kernel), nullable(meta.qemu_cmdline)});
                c_.exec("RELEASE SAVEPOINT session_name");
                id_ = std::stoll(r.rows.at(0).at(0).value());
                break;
            } catch (const PgError& e) {
                // A unique key taken, by a session committed or by an import still running
                // (which the INSERT waited for): the database decides, not a read before.
                c_.exec("ROLLBACK TO SAVEPOINT session_name");
                if (e.sqlstate != "23505") throw;
                if (e.constraint.find("sha256") != std::string::npos) {
                    if (auto dup = store.session_with_source(sha256)) throw duplicate(sha256, *dup);
                    throw;
                }
                if (clash == NameClash::Refuse)
                    throw StorageError(store.where() + ": a session is already named \"" + name + "\"; choose another name or remove it first");
                unique = name + "-" + std::to_string(k);
            }
        }
        name_ = unique;
        // The sources stored by now, read after the INSERT: an import of the same name
        // that it waited for has committed, or rolled back, by then. One committing later
        // is refused at this one's commit, by the unique key.
        if (!source_.known())
            for (const auto& r : c_.query("SELECT id, name, source_sha256 FROM sessions WHERE id != $1", {std::to_string(id_)}).rows)
                source_.stored(std::stoll(r.at(0).value()), r.at(1).value_or(""), r.at(2).value_or(""));
        // A migration waits for this import from here on (its INSERT holds `sessions`); one
        // that committed after this store was opened makes these rows the wrong shape.
        if (const auto v = c_.query("SELECT max(version) FROM irqflow_schema").rows.at(0).at(0); v != std::to_string(kSchemaVersion))
            throw StorageError(store.where() + ": the schema was migrated to version " + v.value_or("none") + " while this import ran; run it again" +
                               (v && std::stoi(*v) > kSchemaVersion ? " with a newer irqflow" : ""));
        // held until this transaction ends: the tables of this session that another lane
        // commits are work in progress, not a killed import's leftovers (pg_store.hpp)
        c_.exec("SELECT pg_advisory_xact_lock(" + pg_import_lock(id_) + ")");
        std::vector<CopyTable> tables(static_cast<std::size_t>(EventKind::Count_) + 1);
        for (EventKind k : stored_kinds()) tables[static_cast<std::size_t>(k)] = event_table_of(std::string(event_table(k)), insert_columns(k));
        tables.back() = event_table_of("gaps", {"session", "ts_ns", "cpu", "lost", "before_record"});
        chunks_ = std::make_unique<ChunkWriter>(c_, store_, std::move(tables));  // from here on the connection is lane 0's until end_events
    }
    ~PgSessionSink() override {
        if (!chunks_) return;  // committed
        chunks_->abandon();
        const auto left = chunks_->committed_elsewhere();
        chunks_.reset();
        if (left.empty()) return;
        txn_.reset();  // rolled back: the tables another lane committed are left, ours to drop
        try {
            std::string sql;
            for (const auto& t : left) sql += "DROP TABLE IF EXISTS " + t + ";\n";
            c_.exec(sql);
        } catch (const StorageError&) {
            // the connection is gone: the next writer's sweep drops them (pg_store.hpp)
        }
    }
    void source(const std::string& sha256) override { source_.given(store_.where(), sha256); }
    std::int64_t id() const override { return id_; }
    const std::string& name() const override { return name_; }
    EventRowSink& events() override { return *this; }
    TableSink& tables() override { return *this; }

    // EventRowSink
    void insert(Row r) override {
        const std::size_t t = r.e.kind == EventKind::Lost ? static_cast<std::size_t>(EventKind::Count_) : static_cast<std::size_t>(r.e.kind);
        std::string& b = chunks_->rows(t);
        if (r.e.kind == EventKind::Lost) {
            put_int(b, id_);
            for (std::int64_t v : {r.e.ts.value(), static_cast<std::int64_t>(r.e.cpu.value()), r.e.f[slot::lost_count], static_cast<std::int64_t>(r.e.record)}) {
                b += '\t';
                put_int(b, v);
            }
            b += '\n';
        } else {
            format(b, r);
        }
        chunks_->maybe_send(t);
    }
    void insert_early_exit(Row r) override {
        early_[vm_vcpu_key(r.e.vm, r.e.vcpu)] = static_cast<std::int64_t>(r.e.record);
        insert(std::move(r));
    }
    void set_host_time(VmId vm, VcpuId vcpu, std::int64_t host_ns) override {
        if (auto it = early_.find(vm_vcpu_key(vm, vcpu)); it != early_.end()) {
            fixes_.emplace_back(it->second, host_ns);
            early_.erase(it);
        }
    }
    void end_events() override { chunks_->end(); }

    // TableSink: the session's own tables by COPY now, the shared ones at commit
    void rows(std::string_view table, const std::vector<std::string_view>& columns, std::size_t n, const std::function<void(Values&, std::size_t)>& fill,
              OnConflict on_conflict) override {
        std::vector<std::string> cols(columns.begin(), columns.end());
        const PgTable& t = pg_table(table);
        if (t.per_session) {
            if (n == 0) return;  // a session's tables are only those with rows
            c_.exec(pg_session_table_ddl(t, id_));
            attach_ += pg_attach_ddl(t, id_) + ";\n";
            std::size_t next = 0;
            c_.copy_in(pg_session_table(std::string(table), id_), cols, [&](std::string& out) {
                CopyValues v(out);
                for (; next < n && out.size() < (1 << 20); ++next) {
                    v.start();
                    fill(v, next);
                    out += '\n';
                }
                return next < n;
            }, true);
            return;
        }
        for (std::size_t i = 0; i < n; ++i) {
            ParamValues v;
            fill(v, i);
            std::string sql = "INSERT INTO " + std::string(table) + " (";
            for (std::size_t c = 0; c < cols.size(); ++c) sql += (c ? ", " : "") + cols[c];
            sql += ") VALUES (";
            for (std::size_t c = 0; c < cols.size(); ++c) sql += (c ? ", $" : "$") + std::to_string(c + 1);
            sql += on_conflict == OnConflict::Ignore ? ") ON CONFLICT DO NOTHING" : ")";
            shared_.emplace_back(std::move(sql), std::move(v.values));
        }
    }

    void commit(std::int64_t first_ts, std::int64_t last_ts, std::uint64_t records, std::string_view semantics) override {
        chunks_->wait_all();  // the other lanes' tables committed, ready to attach
        for (EventKind k : stored_kinds())
            if (chunks_->created(static_cast<std::size_t>(k))) attach_ += pg_attach_ddl(pg_table(event_table(k)), id_) + ";\n";
        if (chunks_->created(static_cast<std::size_t>(EventKind::Count_))) attach_ += pg_attach_ddl(pg_table("gaps"), id_) + ";\n";
        // exits written before their host time was known (a vCPU long out of the guest)
        if (!fixes_.empty()) {
            std::string records_list = "{", hosts = "{";
            for (std::size_t i = 0; i < fixes_.size(); ++i) {
                records_list += (i ? "," : "") + std::to_string(fixes_[i].first);
                hosts += (i ? "," : "") + std::to_string(fixes_[i].second);
            }
            c_.query("UPDATE " + pg_session_table("kvm_exit", id_) + " x SET host_ns = f.host FROM unnest($1::bigint[], $2::bigint[]) AS f(record, host) "
                     "WHERE x.record = f.record",
                     {records_list + "}", hosts + "}"});
        }
        if (!source_.known()) throw std::logic_error("PgSessionSink: commit before the source's sha256");
        // (the source's unique key waits here for an import of the same trace that has not
        // ended, then refuses this one if that one committed)
        c_.exec("SAVEPOINT session_source");
        try {
            c_.query("UPDATE sessions SET first_ts_ns = $1, last_ts_ns = $2, event_count = $3, semantics = $4, source_sha256 = $6 WHERE id = $5",
                     {std::to_string(first_ts), std::to_string(last_ts), std::to_string(records), std::string(semantics), std::to_string(id_),
                      source_.sha256()});
            c_.exec("RELEASE SAVEPOINT session_source");
        } catch (const PgError& e) {
            c_.exec("ROLLBACK TO SAVEPOINT session_source");
            if (e.sqlstate == "23505" && e.constraint.find("sha256") != std::string::npos)
                if (auto dup = store_.session_with_source(source_.sha256())) throw duplicate(source_.sha256(), *dup);
            throw;
        }
        // Shared rows and attaching take locks other imports take too: one at a time,
        // for the few milliseconds this last step lasts.
        c_.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kPgPublishLock) + ")");
        for (const auto& [sql, values] : shared_) c_.query(sql, values);
        if (!attach_.empty()) c_.exec(attach_);
        txn_->commit();
        chunks_.reset();  // from here the destructor has nothing to undo
    }

private:
    CopyTable event_table_of(const std::string& name, std::vector<std::string> columns) const {
        return {pg_session_table(name, id_), std::move(columns), pg_session_table_ddl(pg_table(name), id_)};
    }
    StorageError duplicate(const std::string& sha256, const SessionInfo& s) const { return duplicate_source(store_.where(), sha256, s.id, s.name); }
    // An event row, columns as insert_columns(kind) names them.
    void format(std::string& b, const Row& r) const {
        const Event& e = r.e;
        put_int(b, id_);
        for (std::int64_t v : {static_cast<std::int64_t>(e.record), e.ts.value(), static_cast<std::int64_t>(e.cpu.value()), static_cast<std::int64_t>(e.tid.value())}) {
            b += '\t';
            put_int(b, v);
        }
        auto opt = [&](std::optional<std::int64_t> v) {
            b += '\t';
            if (v) put_int(b, *v);
            else b += "\\N";
        };
        opt(e.vm == kUnknownVm ? std::nullopt : std::optional<std::int64_t>{e.vm.value()});
        opt(e.vcpu == kUnknownVcpu ? std::nullopt : std::optional<std::int64_t>{e.vcpu.value()});
        const int nfields = static_cast<int>(kind_info(e.kind).nfields);
        for (int f = 0; f < nfields; ++f) opt(e.get(f));
        if (e.kind == EventKind::Exit) {
            opt(r.guest_ns);
            opt(r.host_ns);
        }
        if (e.kind == EventKind::Other) opt(static_cast<std::int64_t>(e.name_id));
        b += '\n';
    }

    PgStore& store_;
    PgConnection& c_;
    SessionSource source_;
    std::optional<PgTransaction> txn_;  // rolls back unless committed, after chunks_ stopped
    std::int64_t id_ = 0;
    std::string name_;
    std::string attach_;
    std::unique_ptr<ChunkWriter> chunks_;  // until commit; destroyed first: its threads let go of the connections
    std::unordered_map<std::uint64_t, std::int64_t> early_;  // vm_vcpu_key → record of its exit written early
    std::vector<std::pair<std::int64_t, std::int64_t>> fixes_;  // (record, host_ns)
    std::vector<std::pair<std::string, std::vector<std::optional<std::string>>>> shared_;
};

}  // namespace

std::unique_ptr<SessionSink> PgStore::begin_session(const std::string& name, const SessionMeta& meta, const std::string& sha256, NameClash clash) {
    return std::make_unique<PgSessionSink>(*this, name, meta, sha256, clash);
}

}  // namespace irqflow::storage
