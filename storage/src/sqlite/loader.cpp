// A stored session read back from an SQLite file into the capture layer's Trace, so the
// replay (and the GUI) run on a database exactly as on the trace file it came from.
#include <algorithm>
#include <memory>

#include "event_tables.hpp"
#include "guest_rows.hpp"
#include "irqflow/storage/database.hpp"
#include "session_builder.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {

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
    out.trace.meta.host_name = out.info.host_name;
    const std::string where = path_ + ", session " + std::to_string(id);
    SessionBuilder b(out, where, each);
    {
        Stmt n(db_, "SELECT id, name FROM event_names WHERE session = ?1 ORDER BY id");
        n.bind(1, id);
        while (n.row()) b.name(n.i64(0), n.text(1));
    }
    {
        Stmt v(db_, "SELECT vm, vcpu, tid, apic_id, apic_id_from_trace FROM vcpus WHERE session = ?1 ORDER BY vm, vcpu");
        v.bind(1, id);
        while (v.row()) b.vcpu(v.i64(0), v.i64(1), v.i64(2), v.i64(3), v.i64(4) != 0);
    }
    {
        Stmt gaps(db_, "SELECT before_record, ts_ns, cpu, lost FROM gaps WHERE session = ?1 ORDER BY rowid");
        gaps.bind(1, id);
        while (gaps.row()) b.gap(gaps.i64(0), gaps.i64(1), gaps.i64(2), gaps.i64(3));
    }
    ImportProgress p{0, static_cast<std::uint64_t>(std::max<std::int64_t>(out.info.events, 0))};
    // (The stored count is only a progress hint: the event store grows as rows arrive.)
    // Each event table holds the session's rows of one kind in record order (its rowid
    // range in event_tables); merged back by record.
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
        src.record = static_cast<std::uint64_t>(src.rows->i64(1));
        return true;
    };
    auto later = [](const Source* x, const Source* y) { return x->record > y->record; };
    std::vector<Source*> heap;
    for (auto& src : sources)
        if (next(src)) heap.push_back(&src);
    std::make_heap(heap.begin(), heap.end(), later);
    SessionBuilder::EventRow row;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        Source& src = *heap.back();
        Stmt& rows = *src.rows;
        sqlite3_stmt* st = rows.get();
        auto nullable = [&](int c) { return sqlite3_column_type(st, c) == SQLITE_NULL ? std::nullopt : std::optional<std::int64_t>(rows.i64(c)); };
        row.kind = src.kind;
        row.record = rows.i64(1);
        row.ts = rows.i64(2);
        row.cpu = rows.i64(3);
        row.tid = rows.i64(4);
        row.vm = nullable(5);
        row.vcpu = nullable(6);
        const int nfields = static_cast<int>(kind_info(src.kind).nfields);
        for (int f = 0; f < nfields; ++f) row.fields[static_cast<std::size_t>(f)] = nullable(7 + f);
        row.name_id = src.kind == EventKind::Other ? rows.i64(7 + nfields) : -1;
        b.event(row);
        if (next(src)) std::push_heap(heap.begin(), heap.end(), later);
        else heap.pop_back();
        if (++p.done % 65536 == 0 && progress) progress(p);
    }
    {
        Stmt sl(db_, "SELECT line, ts_ns, alignment, text FROM serial_lines WHERE session = ?1 ORDER BY line");
        sl.bind(1, id);
        while (sl.row())
            b.serial_line(sl.i64(0), sqlite3_column_type(sl.get(), 1) == SQLITE_NULL ? std::nullopt : std::optional<std::int64_t>(sl.i64(1)),
                          sl.text(2), sl.text(3));
    }
    b.finish();
    {  // the guest's side, if one was imported (guest_rows.hpp)
        auto cells = [](Stmt& s, int n) {
            QueryRow r;
            for (int i = 0; i < n; ++i) r.push_back(sqlite3_column_type(s.get(), i) == SQLITE_NULL ? std::nullopt : std::optional<std::string>(s.text(i)));
            return r;
        };
        Stmt gt(db_, std::string("SELECT ") + kGuestTraceColumns + " FROM guest_traces WHERE session = ?1");
        gt.bind(1, id);
        if (gt.row()) {
            const QueryRow header = cells(gt, 10);
            std::vector<QueryRow> events;
            Stmt ge(db_, std::string("SELECT ") + kGuestEventColumns +
                             " FROM guest_events WHERE session = ?1 ORDER BY ts_ns IS NULL, coalesce(ts_ns, guest_ts_ns), record");
            ge.bind(1, id);
            while (ge.row()) events.push_back(cells(ge, 10));
            out.guest = guest_side_from(header, events, b.where());
        }
    }
    if (progress) progress(p);
    return out;
}

}  // namespace irqflow::storage
