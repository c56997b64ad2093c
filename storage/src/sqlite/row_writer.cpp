#include "row_writer.hpp"

#include "event_tables.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {

// One event table's inserts. Rows go kBatch per statement (one sqlite3_step per batch);
// within a table they arrive in record order, so its rowids follow the records.
class TableWriter {
public:
    static constexpr std::size_t kBatch = 32;
    TableWriter(sqlite3* db, EventKind k, std::int64_t session)
        : kind_(k), nfields_(static_cast<int>(kind_info(k).nfields)), cols_(static_cast<int>(insert_columns(k).size()) - 1),
          batch_(db, sql(k, kBatch, session)), single_(db, sql(k, 1, session)) {
        pending_.reserve(kBatch);
    }
    void add(Row r) {
        pending_.push_back(std::move(r));
        if (pending_.size() == kBatch) {
            for (std::size_t i = 0; i < kBatch; ++i) bind(batch_, static_cast<int>(i) * cols_, pending_[i]);
            batch_.run();
            pending_.clear();
        }
    }
    // Writes what waits, one row at a time.
    void flush() {
        for (const auto& r : pending_) {
            bind(single_, 0, r);
            single_.run();
        }
        pending_.clear();
    }

private:
    // The session is the same in every row: a literal, one bind a row fewer (of ~15).
    static std::string sql(EventKind k, std::size_t rows, std::int64_t session) {
        return multi_row_insert(event_table(k), insert_columns(k), rows, std::to_string(session));
    }
    void bind(Stmt& s, int base, const Row& r) const {
        const Event& e = r.e;
        int c = base;
        s.bind(++c, e.record);
        s.bind(++c, e.ts.value());
        s.bind(++c, e.cpu.value());
        s.bind(++c, e.tid.value());
        s.bind(++c, e.vm == kUnknownVm ? std::nullopt : std::optional<std::int64_t>{e.vm.value()});
        s.bind(++c, e.vcpu == kUnknownVcpu ? std::nullopt : std::optional<std::int64_t>{e.vcpu.value()});
        for (int f = 0; f < nfields_; ++f) s.bind(++c, e.get(f));
        if (kind_ == EventKind::Exit) {
            s.bind(++c, r.guest_ns);
            s.bind(++c, r.host_ns);
        }
        if (kind_ == EventKind::Other) s.bind(++c, static_cast<std::int64_t>(e.name_id));
    }
    EventKind kind_;
    int nfields_, cols_;  // cols_: bound per row (all but the session)
    Stmt batch_, single_;
    std::vector<Row> pending_;
};

RowWriter::RowWriter(sqlite3* db, std::int64_t session) : db_(db), session_(session) {
    tables_.resize(static_cast<std::size_t>(EventKind::Count_));
    for (EventKind k : stored_kinds()) tables_[static_cast<std::size_t>(k)] = std::make_unique<TableWriter>(db, k, session);
    gap_ = std::make_unique<Stmt>(db, "INSERT INTO gaps (session, ts_ns, cpu, lost, before_record) VALUES (?1, ?2, ?3, ?4, ?5)");
    set_host_ = std::make_unique<Stmt>(db, "UPDATE kvm_exit SET host_ns = ?1 WHERE rowid = ?2");
    batch_ = pipe_.take_empty();
    thread_ = std::thread([this] { run(); });
}

RowWriter::~RowWriter() {
    if (thread_.joinable()) {
        pipe_.close();
        thread_.join();
    }
}

TableWriter& RowWriter::table(EventKind k) { return *tables_[static_cast<std::size_t>(k)]; }

void RowWriter::push(Op op, Row r) {
    batch_.push_back({op, std::move(r)});
    if (batch_.size() == Pipe::kBatch) send();
}

void RowWriter::send() {
    try {
        pipe_.push(std::move(batch_));
    } catch (const Pipe::Cancelled&) {  // the writer stopped on an error: that error
        thread_.join();
        std::rethrow_exception(error_);
    }
    batch_ = pipe_.take_empty();
}

void RowWriter::insert(Row r) { push(Op::Insert, std::move(r)); }
void RowWriter::insert_early_exit(Row r) { push(Op::InsertEarlyExit, std::move(r)); }
void RowWriter::set_host_time(VmId vm, VcpuId vcpu, std::int64_t host_ns) {
    Row r;
    r.e.vm = vm;
    r.e.vcpu = vcpu;
    r.host_ns = host_ns;
    push(Op::SetHostTime, std::move(r));
}

void RowWriter::finish() {
    if (!batch_.empty()) send();
    pipe_.close();
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    for (EventKind k : stored_kinds()) table(k).flush();
}

void RowWriter::run() {
    try {
        Pipe::Batch b;
        while (pipe_.pop(b))
            for (auto& item : b) apply(item);
    } catch (...) {
        error_ = std::current_exception();
        pipe_.cancel();
    }
}

void RowWriter::apply(Item& item) {
    Row& r = item.row;
    switch (item.op) {
    case Op::Insert:
        if (r.e.kind == EventKind::Lost) gap_->bind(1, session_).bind(2, r.e.ts.value()).bind(3, r.e.cpu.value()).bind(4, r.e.f[slot::lost_count]).bind(5, r.e.record).run();
        else table(r.e.kind).add(std::move(r));
        break;
    case Op::InsertEarlyExit: {
        const std::uint64_t vcpu = vm_vcpu_key(r.e.vm, r.e.vcpu);
        table(EventKind::Exit).add(std::move(r));
        table(EventKind::Exit).flush();
        early_exits_[vcpu] = sqlite3_last_insert_rowid(db_);
        break;
    }
    case Op::SetHostTime:
        if (auto it = early_exits_.find(vm_vcpu_key(r.e.vm, r.e.vcpu)); it != early_exits_.end()) {
            set_host_->bind(1, *r.host_ns).bind(2, it->second).run();
            early_exits_.erase(it);
        }
        break;
    }
}

}  // namespace irqflow::storage
