// A stored session read back into the capture layer's Trace, so the replay (and the
// GUI) run on a database exactly as on the trace file it came from.
#include <algorithm>
#include <memory>

#include "event_tables.hpp"
#include "irqflow/capture/drop_windows.hpp"
#include "irqflow/storage/database.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {
namespace {

// KVM's vCPU ids are below KVM_MAX_VCPU_IDS (4096 on x86); leave room for other hosts.
constexpr std::int64_t kMaxStoredVcpuId = (1 << 20) - 1;

SerialAlignment alignment_from(const std::string& s) {
    for (auto a : {SerialAlignment::Pio, SerialAlignment::PrintkOffset, SerialAlignment::Neighbour, SerialAlignment::None})
        if (s == to_string(a)) return a;
    return SerialAlignment::None;
}

}  // namespace

StoredSession Database::load_session(const std::string& id_or_name, const std::function<void(const ImportProgress&)>& progress,
                                     const std::function<void(const Event&)>& each) {
    StoredSession out;
    std::int64_t id = -1;
    {
        Stmt s(db_, "SELECT id, source, format, host_kernel, trace_clock, host_cpus, coalesce(semantics, '') "
                    "FROM sessions WHERE name = ?1 OR CAST(id AS TEXT) = ?1");
        s.bind(1, std::string_view(id_or_name));
        if (!s.row()) throw StorageError(path_ + ": no session \"" + id_or_name + "\" (irqflow sessions --db " + path_ + " lists them)");
        id = s.i64(0);
        out.trace.meta.source = s.text(1);
        out.trace.meta.format = s.text(2);
        out.trace.meta.kernel_release = s.text(3);
        out.trace.meta.clock = s.text(4);
        out.trace.meta.host_cpus = static_cast<int>(s.i64(5));
        out.semantics = replay::parse_semantics(s.text(6)).value_or(replay::PvEoiSemantics::Auto);
    }
    for (const auto& i : sessions())  // name, counts, import time: as `irqflow sessions` lists it
        if (i.id == id) out.info = i;
    Trace& t = out.trace;
    const std::string where = path_ + ", session " + std::to_string(id);
    {  // names in id order, so the rows' name ids stay valid
        Stmt n(db_, "SELECT id, name FROM event_names WHERE session = ?1 ORDER BY id");
        n.bind(1, id);
        while (n.row())
            if (t.intern(n.text(1)) != n.i64(0)) throw StorageError(where + ": event name ids are not dense");
    }
    // Lost-event markers sit before the record they were reported with.
    Stmt gaps(db_, "SELECT before_record, ts_ns, cpu, lost FROM gaps WHERE session = ?1 ORDER BY rowid");
    gaps.bind(1, id);
    bool gap = gaps.row();
    const std::uint16_t lost_name = t.intern("lost_events");
    auto add_gaps_before = [&](std::uint64_t record) {
        for (; gap && static_cast<std::uint64_t>(gaps.i64(0)) <= record; gap = gaps.row()) {
            Event l;
            l.kind = EventKind::Lost;
            l.name_id = lost_name;
            l.record = static_cast<std::uint64_t>(gaps.i64(0));
            l.ts = TimestampNs(gaps.i64(1));
            l.cpu = HostCpu(static_cast<std::int32_t>(gaps.i64(2)));
            l.set(slot::lost_count, gaps.i64(3));
            t.events.push_back(l);
            if (each) each(l);
        }
    };
    std::vector<EventKind> kind_of(t.name_count(), EventKind::Other);
    for (std::size_t i = 0; i < t.name_count(); ++i)
        kind_of[i] = kind_by_name(t.name(static_cast<std::uint16_t>(i))).value_or(EventKind::Other);
    {
        Stmt v(db_, "SELECT vm, vcpu, tid, apic_id, apic_id_from_trace FROM vcpus WHERE session = ?1 ORDER BY vm, vcpu");
        v.bind(1, id);
        while (v.row()) {
            // VM ids index the trace's VM table and vCPU ids name model slots: a damaged or
            // hand-edited row is refused here rather than trusted downstream.
            const std::int64_t vm_id = v.i64(0), vcpu_id = v.i64(1);
            const std::string row = where + ", vcpus row (vm " + std::to_string(vm_id) + ", vcpu " + std::to_string(vcpu_id) + ")";
            const bool next_vm = t.vms.empty() || t.vms.back().id.value() != vm_id;
            if (next_vm && vm_id != static_cast<std::int64_t>(t.vms.size()))
                throw StorageError(row + ": VM ids must run 0, 1, 2… (damaged database?)");
            if (vcpu_id < 0 || vcpu_id > kMaxStoredVcpuId) throw StorageError(row + ": vCPU id out of range (damaged database?)");
            if (!next_vm && t.vms.back().vcpus.back().id.value() == vcpu_id) throw StorageError(row + ": listed twice (damaged database?)");
            if (next_vm) t.vms.push_back(VmInfo{VmId(static_cast<std::int32_t>(vm_id)), {}, {}});
            VcpuInfo c;
            c.id = VcpuId(static_cast<std::int32_t>(vcpu_id));
            c.tid = Tid(static_cast<std::int32_t>(v.i64(2)));
            c.apic = ApicId(static_cast<std::uint32_t>(v.i64(3)));
            c.apic_from_trace = v.i64(4) != 0;
            t.vms.back().vcpus.push_back(c);
        }
    }
    ImportProgress p{0, static_cast<std::uint64_t>(std::max<std::int64_t>(out.info.events, 0))};
    // (The stored count is only a progress hint: the event store grows as rows arrive.)
    // Each event table holds the session's rows of one kind in record order (its rowid
    // range in event_tables); merged back by record.
    std::vector<std::int64_t> name_of_kind(static_cast<std::size_t>(EventKind::Count_), -1);
    for (std::size_t i = 0; i < t.name_count(); ++i)
        if (auto k = kind_by_name(t.name(static_cast<std::uint16_t>(i)))) name_of_kind[static_cast<std::size_t>(*k)] = static_cast<std::int64_t>(i);
    struct Source {
        EventKind kind;
        std::unique_ptr<Stmt> rows;
        std::uint64_t record = 0;
    };
    std::vector<Source> sources;
    {
        Stmt ranges(db_, "SELECT name, first_rowid, last_rowid FROM event_tables WHERE session = ?1");
        ranges.bind(1, id);
        while (ranges.row()) {
            const std::string name = ranges.text(0);
            std::optional<EventKind> kind;
            for (EventKind k : stored_kinds())
                if (event_table(k) == name) kind = k;
            if (!kind) throw StorageError(where + ": event_tables names \"" + name + "\", which is no event table (damaged database?)");
            const auto cols = insert_columns(*kind);
            std::string sql = "SELECT ";
            for (std::size_t c = 0; c < cols.size(); ++c) sql += (c ? ", " : "") + cols[c];
            sql += " FROM " + name + " WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid";
            Source src{*kind, std::make_unique<Stmt>(db_, sql)};
            src.rows->bind(1, ranges.i64(1)).bind(2, ranges.i64(2));
            sources.push_back(std::move(src));
        }
    }
    auto next = [&](Source& src) {
        if (!src.rows->row()) return false;
        if (src.rows->i64(0) != id)
            throw StorageError(where + ", table " + std::string(event_table(src.kind)) + ": a row of session " + std::to_string(src.rows->i64(0)) +
                               " inside this session's rowid range (damaged database?)");
        if (src.rows->i64(1) < 0) throw StorageError(where + ", table " + std::string(event_table(src.kind)) + ": negative record number");
        src.record = static_cast<std::uint64_t>(src.rows->i64(1));
        return true;
    };
    auto later = [](const Source* a, const Source* b) { return a->record > b->record; };
    std::vector<Source*> heap;
    for (auto& src : sources)
        if (next(src)) heap.push_back(&src);
    std::make_heap(heap.begin(), heap.end(), later);
    std::optional<std::uint64_t> previous;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        Source& src = *heap.back();
        Stmt& rows = *src.rows;
        sqlite3_stmt* st = rows.get();
        Event e;
        e.record = src.record;
        if (previous && e.record <= *previous)
            throw StorageError(where + ", record " + std::to_string(e.record) + ": stored twice (damaged database?)");
        previous = e.record;
        add_gaps_before(e.record);
        e.ts = TimestampNs(rows.i64(2));
        e.cpu = HostCpu(static_cast<std::int32_t>(rows.i64(3)));
        e.tid = Tid(static_cast<std::int32_t>(rows.i64(4)));
        // Events name VMs and vCPUs of the table read above (or none); checked before
        // they are narrowed to ids.
        const std::int64_t vm = sqlite3_column_type(st, 5) == SQLITE_NULL ? kUnknownVm.value() : rows.i64(5);
        const std::int64_t vcpu = sqlite3_column_type(st, 6) == SQLITE_NULL ? kUnknownVcpu.value() : rows.i64(6);
        const bool vm_ok = vm == kUnknownVm.value() || (vm >= 0 && static_cast<std::uint64_t>(vm) < t.vms.size());
        const bool vcpu_ok = vcpu == kUnknownVcpu.value() || (vcpu >= 0 && vcpu <= kMaxStoredVcpuId);
        if (!vm_ok || !vcpu_ok)
            throw StorageError(where + ", record " + std::to_string(e.record) + ": " +
                               (vm_ok ? "vCPU " + std::to_string(vcpu) : "VM " + std::to_string(vm)) +
                               " is not one the session lists (damaged database?)");
        e.vm = VmId(static_cast<std::int32_t>(vm));
        e.vcpu = VcpuId(static_cast<std::int32_t>(vcpu));
        e.kind = src.kind;
        const int nfields = static_cast<int>(kind_info(src.kind).nfields);
        for (int f = 0; f < nfields; ++f)
            if (sqlite3_column_type(st, 7 + f) != SQLITE_NULL) e.set(f, rows.i64(7 + f));
        const std::int64_t name = src.kind == EventKind::Other ? rows.i64(7 + nfields) : name_of_kind[static_cast<std::size_t>(src.kind)];
        if (name < 0 || static_cast<std::size_t>(name) >= t.name_count())
            throw StorageError(where + ", record " + std::to_string(e.record) + ": " +
                               (src.kind == EventKind::Other ? "unknown event name id " + std::to_string(name)
                                                             : "no event name for " + std::string(event_table(src.kind))) +
                               " (damaged database?)");
        e.name_id = static_cast<std::uint16_t>(name);
        t.events.push_back(e);
        if (each) each(e);
        if (next(src)) std::push_heap(heap.begin(), heap.end(), later);
        else heap.pop_back();
        if (++p.done % 65536 == 0 && progress) progress(p);
    }
    add_gaps_before(UINT64_MAX);
    find_drop_windows(t);
    {
        Stmt sl(db_, "SELECT line, ts_ns, alignment, text FROM serial_lines WHERE session = ?1 ORDER BY line");
        sl.bind(1, id);
        out.serial.source = where;
        while (sl.row()) {
            SerialLine l;
            l.line = static_cast<std::uint64_t>(sl.i64(0));
            if (sqlite3_column_type(sl.get(), 1) != SQLITE_NULL) l.host_ts = TimestampNs(sl.i64(1));
            l.alignment = alignment_from(sl.text(2));
            l.text = sl.text(3);
            out.serial.lines.push_back(std::move(l));
        }
    }
    if (progress) progress(p);
    return out;
}

}  // namespace irqflow::storage
