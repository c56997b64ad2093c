// What SQLite itself can take on this machine: the rows an import writes, written into
// a fresh database with irqflow's schema straight through the SQLite API on one thread —
// 32 rows per prepared INSERT OR FAIL, the same pragmas and one transaction committed and
// checkpointed, as `irqflow import` does — and nothing else: no stream, no attribution
// pass, no replay, no queue to a writer thread. The rows are one per event in its kind's
// table (the session a literal), and, given an imported database, every other row of its
// first session (the replay's interrupts, IPIs, findings, statistics…), read into memory
// before the clock starts. `import` can approach this time, never beat it, so
// bench_scale prints it as a ratio to import's.
//
//   bench_sqlite_floor TRACE DB [IMPORTED]
//     prints "floor <event rows> <other rows> <seconds>"
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "irqflow/capture/readers.hpp"
#include "irqflow/storage/database.hpp"

namespace {

using namespace irqflow;
constexpr int kRows = 32;

void prepare(sqlite3* db, const std::string& sql, sqlite3_stmt** st) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, st, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "bench_sqlite_floor: %s: %s\n", sql.substr(0, 80).c_str(), sqlite3_errmsg(db));
        std::exit(1);
    }
}

void step(sqlite3_stmt* st) {
    if (sqlite3_step(st) != SQLITE_DONE) {
        std::fprintf(stderr, "bench_sqlite_floor: %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
        std::exit(1);
    }
    sqlite3_reset(st);
}

void exec(sqlite3* db, const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::fprintf(stderr, "bench_sqlite_floor: %s: %s\n", sql.c_str(), err ? err : "?");
        std::exit(1);
    }
}

// Where a column's value comes from.
enum class Src { Record, Ts, Cpu, Tid, Vm, Vcpu, Field, Delta, NameId };
struct Column {
    Src src;
    int slot = -1;
};

// One event table: its columns as the schema has them (PRAGMA table_info) and a
// statement of kRows rows.
struct Table {
    std::vector<Column> cols;
    sqlite3_stmt* st = nullptr;
    int pending = 0;

    Table(sqlite3* db, const std::string& name, EventKind k) {
        sqlite3_stmt* info = nullptr;
        sqlite3_prepare_v2(db, ("PRAGMA table_info(" + name + ")").c_str(), -1, &info, nullptr);
        while (sqlite3_step(info) == SQLITE_ROW) {
            const std::string c = reinterpret_cast<const char*>(sqlite3_column_text(info, 1));
            if (c == "session") continue;
            if (c == "record") cols.push_back({Src::Record});
            else if (c == "ts_ns") cols.push_back({Src::Ts});
            else if (c == "cpu") cols.push_back({Src::Cpu});
            else if (c == "tid") cols.push_back({Src::Tid});
            else if (c == "vm") cols.push_back({Src::Vm});
            else if (c == "vcpu") cols.push_back({Src::Vcpu});
            else if (c == "name_id") cols.push_back({Src::NameId});
            else if (const int s = field_slot(k, c); s >= 0) cols.push_back({Src::Field, s});
            else cols.push_back({Src::Delta});  // kvm_exit's guest_ns / host_ns: a few µs
        }
        sqlite3_finalize(info);
        std::string sql = "INSERT OR FAIL INTO " + name + " VALUES ";  // no statement journal, as import (sqlite_util.hpp)
        for (int r = 0; r < kRows; ++r) {
            sql += r ? ",(1" : "(1";
            for (std::size_t c = 0; c < cols.size(); ++c) sql += ",?";
            sql += ")";
        }
        prepare(db, sql, &st);
    }
    void add(const Event& e, std::int64_t delta) {
        int i = pending * static_cast<int>(cols.size());
        for (const Column& c : cols) {
            ++i;
            switch (c.src) {
            case Src::Record: sqlite3_bind_int64(st, i, static_cast<sqlite3_int64>(e.record)); break;
            case Src::Ts: sqlite3_bind_int64(st, i, e.ts.value()); break;
            case Src::Cpu: sqlite3_bind_int64(st, i, e.cpu.value()); break;
            case Src::Tid: sqlite3_bind_int64(st, i, e.tid.value()); break;
            case Src::Vm: e.vm == kUnknownVm ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, e.vm.value()); break;
            case Src::Vcpu: e.vcpu == kUnknownVcpu ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, e.vcpu.value()); break;
            case Src::Field: e.has(c.slot) ? sqlite3_bind_int64(st, i, e.f[static_cast<std::size_t>(c.slot)]) : sqlite3_bind_null(st, i); break;
            case Src::Delta: sqlite3_bind_int64(st, i, delta); break;
            case Src::NameId: sqlite3_bind_int64(st, i, e.name_id); break;
            }
        }
        if (++pending == kRows) {
            step(st);
            pending = 0;
        }
    }
};

// The rows of one table that are not event rows, from an imported database: each cell
// a tag byte and its value, in one buffer (a 100 M-event session has ~7 M such rows,
// ~0.8 GB here next to the loaded trace's ~3 GB).
struct OtherRows {
    std::string table;
    int columns = 0;
    std::size_t rows = 0;
    std::vector<unsigned char> cells;

    void put(const void* p, std::size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        cells.insert(cells.end(), b, b + n);
    }
    void read(sqlite3* from, std::int64_t session) {
        sqlite3_stmt* st = nullptr;
        prepare(from, "SELECT * FROM " + table + " WHERE session = ?1", &st);
        sqlite3_bind_int64(st, 1, session);
        while (sqlite3_step(st) == SQLITE_ROW) {
            columns = sqlite3_column_count(st);
            ++rows;
            for (int c = 0; c < columns; ++c) {
                const auto type = static_cast<unsigned char>(sqlite3_column_type(st, c));
                cells.push_back(type);
                if (type == SQLITE_INTEGER) {
                    const sqlite3_int64 v = sqlite3_column_int64(st, c);
                    put(&v, sizeof v);
                } else if (type == SQLITE_FLOAT) {
                    const double v = sqlite3_column_double(st, c);
                    put(&v, sizeof v);
                } else if (type != SQLITE_NULL) {  // text (no table of a session holds blobs)
                    const auto n = static_cast<std::uint32_t>(sqlite3_column_bytes(st, c));
                    put(&n, sizeof n);
                    put(sqlite3_column_text(st, c), n);
                }
            }
        }
        sqlite3_finalize(st);
    }
    // Into `db`, kRows rows per statement as import's tables go (the rest in one more).
    void write(sqlite3* db) const {
        auto statement = [&](std::size_t n) {
            std::string sql = "INSERT OR FAIL INTO " + table + " VALUES ";
            for (std::size_t r = 0; r < n; ++r) {
                sql += r ? ",(" : "(";
                for (int c = 0; c < columns; ++c) sql += c ? ",?" : "?";
                sql += ")";
            }
            sqlite3_stmt* st = nullptr;
            prepare(db, sql, &st);
            return st;
        };
        sqlite3_stmt* full = rows >= kRows ? statement(kRows) : nullptr;
        const unsigned char* at = cells.data();
        for (std::size_t done = 0; done < rows;) {
            const std::size_t n = std::min<std::size_t>(kRows, rows - done);
            sqlite3_stmt* st = n == kRows ? full : statement(n);
            for (int i = 1; i <= static_cast<int>(n) * columns; ++i) {
                const unsigned char type = *at++;
                if (type == SQLITE_INTEGER) {
                    sqlite3_int64 v = 0;
                    std::memcpy(&v, at, sizeof v);
                    at += sizeof v;
                    sqlite3_bind_int64(st, i, v);
                } else if (type == SQLITE_FLOAT) {
                    double v = 0;
                    std::memcpy(&v, at, sizeof v);
                    at += sizeof v;
                    sqlite3_bind_double(st, i, v);
                } else if (type == SQLITE_NULL) {
                    sqlite3_bind_null(st, i);
                } else {
                    std::uint32_t len;
                    std::memcpy(&len, at, sizeof len);
                    at += sizeof len;
                    sqlite3_bind_text(st, i, reinterpret_cast<const char*>(at), static_cast<int>(len), SQLITE_STATIC);
                    at += len;
                }
            }
            step(st);
            if (st != full) sqlite3_finalize(st);
            done += n;
        }
        if (full) sqlite3_finalize(full);
    }
};

// The tables of an imported database that hold a session's rows other than its events.
std::vector<OtherRows> other_rows(const std::string& path, const std::vector<std::string>& event_tables) {
    sqlite3* from = nullptr;
    if (sqlite3_open_v2(path.c_str(), &from, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "bench_sqlite_floor: %s: %s\n", path.c_str(), sqlite3_errmsg(from));
        std::exit(1);
    }
    std::vector<OtherRows> tables;
    sqlite3_stmt* names = nullptr;
    prepare(from, "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS "
                  "(SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'session') ORDER BY m.name", &names);
    while (sqlite3_step(names) == SQLITE_ROW) {
        const std::string t = reinterpret_cast<const char*>(sqlite3_column_text(names, 0));
        if (std::find(event_tables.begin(), event_tables.end(), t) == event_tables.end()) tables.push_back(OtherRows{t, 0, 0, {}});
    }
    sqlite3_finalize(names);
    sqlite3_stmt* first = nullptr;
    prepare(from, "SELECT min(id) FROM sessions", &first);
    const std::int64_t session = sqlite3_step(first) == SQLITE_ROW ? sqlite3_column_int64(first, 0) : 0;
    sqlite3_finalize(first);
    if (session <= 0) {
        std::fprintf(stderr, "bench_sqlite_floor: %s: no session\n", path.c_str());
        std::exit(1);
    }
    for (OtherRows& t : tables) t.read(from, session);
    sqlite3_close(from);
    return tables;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: bench_sqlite_floor TRACE DB [IMPORTED]\n");
        return 64;
    }
    const std::string db_path = argv[2];
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db_path + ext);
    const Trace t = load_trace(argv[1]);
    storage::Database d(db_path, storage::Database::Mode::ReadWrite);  // the schema and the pragmas import uses
    sqlite3* db = d.handle();
    std::vector<std::unique_ptr<Table>> tables(static_cast<std::size_t>(EventKind::Count_));
    std::vector<std::string> event_tables;
    for (const auto& k : all_kinds())
        if (k.kind != EventKind::Lost) {
            event_tables.push_back(k.kind == EventKind::Other ? "other_events" : std::string(k.name));
            tables[static_cast<std::size_t>(k.kind)] = std::make_unique<Table>(db, event_tables.back(), k.kind);
        }
    const std::vector<OtherRows> others = argc == 4 ? other_rows(argv[3], event_tables) : std::vector<OtherRows>{};
    const auto t0 = std::chrono::steady_clock::now();
    exec(db, "BEGIN IMMEDIATE");
    std::int64_t last = 0;
    std::uint64_t rows = 0, other = 0;
    t.events.for_each([&](const Event& e) {
        if (auto& tb = tables[static_cast<std::size_t>(e.kind)]) {
            tb->add(e, e.ts.value() - last);
            ++rows;
        }
        last = e.ts.value();
    });
    for (const OtherRows& o : others) {
        o.write(db);
        other += o.rows;
    }
    exec(db, "COMMIT");
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (auto& tb : tables)
        if (tb) sqlite3_finalize(tb->st);
    // Event rows still pending (fewer than kRows in a table) are not written: at most 31
    // per table, nothing next to millions, and what is left out only makes the floor faster.
    std::uint64_t unwritten = 0;
    for (auto& tb : tables)
        if (tb) unwritten += static_cast<std::uint64_t>(tb->pending);
    std::printf("floor %llu %llu %.3f\n", static_cast<unsigned long long>(rows - unwritten), static_cast<unsigned long long>(other), s);
    return 0;
}
