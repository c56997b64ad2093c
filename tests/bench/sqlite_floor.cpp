// What SQLite itself can take on this machine: a trace's events written into a fresh
// database with irqflow's schema, one row per event in its kind's table, straight
// through the SQLite API on one thread — 32 rows per prepared INSERT OR FAIL, the session
// a literal, the same pragmas and one transaction committed and checkpointed, as
// `irqflow import` does — and nothing else: no stream, no attribution pass, no replay,
// no replay rows, no queue to a writer thread. `import` can approach this rate, never
// pass it, so bench_scale prints import's rate as a ratio to it.
//
//   bench_sqlite_floor TRACE DB      prints "floor <events> <seconds>"
#include <sqlite3.h>

#include <chrono>
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
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
            std::fprintf(stderr, "bench_sqlite_floor: %s\n", sqlite3_errmsg(db));
            std::exit(1);
        }
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
            sqlite3_step(st);
            sqlite3_reset(st);
            pending = 0;
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: bench_sqlite_floor TRACE DB\n");
        return 64;
    }
    const std::string db_path = argv[2];
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db_path + ext);
    const Trace t = load_trace(argv[1]);
    storage::Database d(db_path, storage::Database::Mode::ReadWrite);  // the schema and the pragmas import uses
    sqlite3* db = d.handle();
    std::vector<std::unique_ptr<Table>> tables(static_cast<std::size_t>(EventKind::Count_));
    for (const auto& k : all_kinds())
        if (k.kind != EventKind::Lost)
            tables[static_cast<std::size_t>(k.kind)] =
                std::make_unique<Table>(db, k.kind == EventKind::Other ? "other_events" : std::string(k.name), k.kind);
    const auto t0 = std::chrono::steady_clock::now();
    exec(db, "BEGIN IMMEDIATE");
    std::int64_t last = 0;
    std::uint64_t rows = 0;
    t.events.for_each([&](const Event& e) {
        if (auto& tb = tables[static_cast<std::size_t>(e.kind)]) {
            tb->add(e, e.ts.value() - last);
            ++rows;
        }
        last = e.ts.value();
    });
    exec(db, "COMMIT");
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (auto& tb : tables)
        if (tb) sqlite3_finalize(tb->st);
    // Rows still pending (fewer than kRows in a table) are not written: at most 31 per
    // table, nothing next to millions, and the rate counts only rows written.
    std::uint64_t unwritten = 0;
    for (auto& tb : tables)
        if (tb) unwritten += static_cast<std::uint64_t>(tb->pending);
    std::printf("floor %llu %.3f\n", static_cast<unsigned long long>(rows - unwritten), s);
    return 0;
}
