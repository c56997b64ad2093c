// An import's event rows go to SQLite on a thread of their own (storage/README.md,
// "Import"), so decoding and replay on one core overlap the inserts on the other: the
// inserts are most of an import's time. The importing thread queues operations in
// order; the writer thread runs them on the connection, which nothing else touches
// until finish().
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "irqflow/capture/batch_pipe.hpp"
#include "irqflow/capture/event.hpp"
#include "session_sink.hpp"

namespace irqflow::storage {

class TableWriter;
class Stmt;

class RowWriter : public EventRowSink {
public:
    // SQLite's errors name the file itself (sqlite_util.hpp, fail).
    RowWriter(sqlite3* db, std::int64_t session);
    ~RowWriter() override;  // stops the thread; what was not written stays uncommitted
    RowWriter(const RowWriter&) = delete;
    RowWriter& operator=(const RowWriter&) = delete;

    // Every call below may throw the writer thread's error (SQLite's, naming the file).
    void insert(Row r) override;  // into r.e.kind's table (a Lost marker: a gaps row)
    // A kvm_exit written before its host time is known, and that time once it is (at
    // the vCPU's next entry; at most one such exit per vCPU is open).
    void insert_early_exit(Row r) override;
    void set_host_time(VmId vm, VcpuId vcpu, std::int64_t host_ns) override;
    // Writes everything queued and stops the thread; the connection is the caller's again.
    void finish();

private:
    enum class Op : std::uint8_t { Insert, InsertEarlyExit, SetHostTime };
    struct Item {
        Op op;
        Row row;
    };
    using Pipe = BatchPipe<Item, 2048, 8>;
    void push(Op op, Row r);
    void send();
    void run();  // the writer thread
    void apply(Item& item);
    TableWriter& table(EventKind k);

    sqlite3* db_;
    std::int64_t session_;
    std::vector<std::unique_ptr<TableWriter>> tables_;  // per kind (none for Lost)
    std::unique_ptr<Stmt> gap_, set_host_;
    std::unordered_map<std::uint64_t, std::int64_t> early_exits_;  // vm_vcpu_key → rowid of its exit written early
    Pipe pipe_;
    Pipe::Batch batch_;
    std::exception_ptr error_;
    std::thread thread_;
};

}  // namespace irqflow::storage
