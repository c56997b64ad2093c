// One session into the database, in one transaction: metadata, every event, and what
// the replay derived from them.
#include <map>
#include <variant>

#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/replay/statistics.hpp"
#include "irqflow/storage/database.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {
namespace {

using replay::ReplayResult;

void insert_events(sqlite3* db, std::int64_t id, const Trace& t, const std::function<void(const ImportProgress&)>& progress) {
    Stmt names(db, "INSERT INTO event_names (session, id, name) VALUES (?1, ?2, ?3)");
    for (std::size_t i = 0; i < t.name_count(); ++i)
        names.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, std::string_view(t.name(static_cast<std::uint16_t>(i)))).run();
    // Rows go in batches of kBatch per statement: one sqlite3_step per batch.
    constexpr int kBatch = 32, kCols = 15;
    auto sql = [](int n) {
        std::string q = "INSERT INTO event_rows (rowid, ts_ns, cpu, tid, vm, vcpu, name_id, f0, f1, f2, f3, f4, f5, f6, f7) VALUES ";
        for (int r = 0; r < n; ++r) {
            q += r ? ",(" : "(";
            for (int c = 0; c < kCols; ++c) q += c ? ",?" : "?";
            q += ")";
        }
        return q;
    };
    Stmt batch(db, sql(kBatch));
    Stmt single(db, sql(1));
    Stmt gap(db, "INSERT INTO gaps (session, ts_ns, cpu, lost, before_record) VALUES (?1, ?2, ?3, ?4, ?5)");
    ImportProgress p{0, t.events.size()};
    int in_batch = 0;
    auto bind_row = [&](Stmt& s, int base, const Event& e) {
        s.bind(base + 1, (id << 40) | static_cast<std::int64_t>(e.record)).bind(base + 2, e.ts.value());
        s.bind(base + 3, e.cpu.value()).bind(base + 4, e.tid.value());
        s.bind(base + 5, e.vm == kUnknownVm ? std::optional<std::int64_t>{} : std::optional<std::int64_t>{e.vm.value()});
        s.bind(base + 6, e.vcpu == kUnknownVcpu ? std::optional<std::int64_t>{} : std::optional<std::int64_t>{e.vcpu.value()});
        s.bind(base + 7, static_cast<std::int64_t>(e.name_id));
        for (int f = 0; f < static_cast<int>(kMaxFields); ++f) s.bind(base + 8 + f, e.get(f));
    };
    std::vector<std::size_t> tail;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const Event e = t.events[i];
        if (e.kind == EventKind::Lost) {
            gap.bind(1, id).bind(2, e.ts.value()).bind(3, e.cpu.value()).bind(4, e.f[slot::lost_count]).bind(5, e.record).run();
        } else {
            bind_row(batch, in_batch * kCols, e);
            tail.push_back(i);
            if (++in_batch == kBatch) {
                batch.run();
                in_batch = 0;
                tail.clear();
            }
        }
        if (++p.done % 65536 == 0 && progress) progress(p);
    }
    for (std::size_t i : tail) {  // the last partial batch, one row at a time
        bind_row(single, 0, t.events[i]);
        single.run();
    }
    // which f-column holds which field, per event name (for anyone writing SQL)
    Stmt fn(db, "INSERT OR IGNORE INTO field_names (name, slot, field) VALUES (?1, ?2, ?3)");
    for (const auto& k : all_kinds())
        for (std::size_t i = 0; i < k.nfields; ++i)
            fn.bind(1, k.name).bind(2, static_cast<std::int64_t>(i)).bind(3, k.fields[i]).run();
    if (progress) progress(p);
}

// Exits, each with the guest time that ended at it (since the entry before) and the
// time after it until the next entry (host, or halted after HLT): the per-vCPU
// guest/host/halted intervals.
void insert_exits(sqlite3* db, std::int64_t id, const Trace& t) {
    Stmt ex(db, "INSERT INTO exits (session, record, ts_ns, vm, vcpu, isa, reason, reason_name, guest_ns, host_ns, halted) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
    Stmt cnt(db, "INSERT INTO exit_counts (session, vm, vcpu, reason_name, exits) VALUES (?1, ?2, ?3, ?4, ?5)");
    // per (vm, vcpu) slots; host_ns is known only at the next entry of that vCPU
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> slot_of;
    std::vector<std::size_t> pending_exit;  // index+1 of the exit waiting for its entry
    std::vector<std::int64_t> last_entry;   // ts of the entry before the next exit, -1 none
    std::vector<std::int64_t> host_ns(t.events.size(), -1);
    std::vector<std::size_t> ev_slot(t.events.size(), SIZE_MAX);
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const auto& e = t.events[i];
        if (e.vcpu == kUnknownVcpu || (e.kind != EventKind::Exit && e.kind != EventKind::Entry)) continue;
        const std::size_t k = ev_slot[i] = slot_of.try_emplace({e.vm.value(), e.vcpu.value()}, slot_of.size()).first->second;
        if (k >= pending_exit.size()) {
            pending_exit.resize(k + 1, 0);
            last_entry.resize(k + 1, -1);
        }
        if (e.kind == EventKind::Exit) {
            pending_exit[k] = i + 1;
        } else if (pending_exit[k]) {
            host_ns[pending_exit[k] - 1] = e.ts.value() - t.events[pending_exit[k] - 1].ts.value();
            pending_exit[k] = 0;
        }
    }
    std::map<std::tuple<std::int32_t, std::int32_t, std::string>, std::int64_t> counts;
    std::string name;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const auto& e = t.events[i];
        if (ev_slot[i] == SIZE_MAX) continue;
        const std::size_t k = ev_slot[i];
        if (e.kind == EventKind::Entry) {
            last_entry[k] = e.ts.value();
            continue;
        }
        const auto isa = e.get(slot::exit_isa).value_or(kIsaVmx);
        const auto reason = e.get(slot::exit_reason).value_or(-1);
        name = exit_reason_key(e);
        ex.bind(1, id).bind(2, e.record).bind(3, e.ts.value()).bind(4, e.vm.value()).bind(5, e.vcpu.value());
        ex.bind(6, isa).bind(7, reason).bind(8, std::string_view(name));
        ex.bind(9, last_entry[k] >= 0 ? std::optional<std::int64_t>{e.ts.value() - last_entry[k]} : std::nullopt);
        ex.bind(10, host_ns[i] >= 0 ? std::optional<std::int64_t>{host_ns[i]} : std::nullopt);
        ex.bind(11, exit_class(e) == ExitClass::Hlt ? 1 : 0).run();
        last_entry[k] = -1;
        ++counts[{e.vm.value(), e.vcpu.value(), name}];
    }
    for (const auto& [key, n] : counts)
        cnt.bind(1, id).bind(2, std::get<0>(key)).bind(3, std::get<1>(key)).bind(4, std::string_view(std::get<2>(key))).bind(5, n).run();
}

void insert_replay(sqlite3* db, std::int64_t id, const ReplayResult& r) {
    Stmt in(db,
            "INSERT INTO interrupts (session, vm, vcpu, vector, level, accept_record, accept_ts_ns, inject_record, inject_ts_ns, "
            "eoi_record, eoi_ts_ns, eoi_path, nesting_depth, accept_to_inject_ns, inject_to_eoi_ns) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
    auto opt = [](std::int64_t v, bool has) { return has ? std::optional<std::int64_t>{v} : std::nullopt; };
    for (const auto& i : r.interrupts) {
        const bool acc = i.accept_ts != 0, eoi = i.eoi_ts != 0;
        in.bind(1, id).bind(2, i.vm.value()).bind(3, i.vcpu.value()).bind(4, i.vector).bind(5, i.level ? 1 : 0);
        in.bind(6, opt(static_cast<std::int64_t>(i.accept_record), acc)).bind(7, opt(i.accept_ts, acc));
        in.bind(8, static_cast<std::int64_t>(i.inject_record)).bind(9, i.inject_ts);
        in.bind(10, opt(static_cast<std::int64_t>(i.eoi_record), eoi)).bind(11, opt(i.eoi_ts, eoi));
        if (i.eoi_path) in.bind(12, std::string_view(replay::to_string(*i.eoi_path)));
        else in.bind(12, std::optional<std::int64_t>{});
        in.bind(13, i.nesting_depth).bind(14, opt(i.inject_ts - i.accept_ts, acc)).bind(15, opt(i.eoi_ts - i.inject_ts, eoi)).run();
    }
    Stmt lat(db, "INSERT INTO latency (session, vector, stage, samples, p50_ns, p90_ns, p99_ns, max_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    for (const auto& [stage, m] : {std::pair{"accept_to_inject", &r.stats.accept_to_inject}, std::pair{"inject_to_eoi", &r.stats.inject_to_eoi}})
        for (const auto& [vec, l] : *m)
            lat.bind(1, id).bind(2, vec).bind(3, std::string_view(stage)).bind(4, l.count).bind(5, l.p50).bind(6, l.p90).bind(7, l.p99).bind(8, l.max).run();
    Stmt ipi(db, "INSERT INTO ipis (session, id, record, ts_ns, vm, sender_vcpu, kind, vector, delivery_mode, exact, destinations, "
                 "delivered) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    Stmt dest(db, "INSERT INTO ipi_destinations (session, ipi, apic_id, expected, received) VALUES (?1, ?2, ?3, ?4, ?5)");
    std::int64_t n = 0;
    for (const auto& p : r.ipis) {
        ipi.bind(1, id).bind(2, n).bind(3, p.record).bind(4, p.ts).bind(5, p.vm.value()).bind(6, p.sender.value());
        ipi.bind(7, std::string_view(replay::to_string(p.kind))).bind(8, p.vector).bind(9, p.delivery_mode).bind(10, p.exact ? 1 : 0);
        ipi.bind(11, static_cast<std::int64_t>(p.expected.size())).bind(12, static_cast<std::int64_t>(p.received.size())).run();
        std::map<std::uint32_t, std::pair<bool, bool>> d;
        for (auto a : p.expected) d[a].first = true;
        for (auto a : p.received) d[a].second = true;
        for (const auto& [apic, er] : d)
            dest.bind(1, id).bind(2, n).bind(3, static_cast<std::int64_t>(apic)).bind(4, er.first ? 1 : 0).bind(5, er.second ? 1 : 0).run();
        ++n;
    }
    Stmt f(db, "INSERT INTO findings (session, id, rule, severity, vm, vcpu, ts_ns, record, expected, observed, caused_by, resync) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    Stmt c(db, "INSERT INTO finding_chain (session, finding, ord, record, what) VALUES (?1, ?2, ?3, ?4, ?5)");
    n = 0;
    for (const auto& x : r.findings) {
        const auto& info = replay::rule_info(x.rule);
        f.bind(1, id).bind(2, n).bind(3, info.id).bind(4, std::string_view(replay::to_string(info.severity)));
        f.bind(5, x.vm.value()).bind(6, x.vcpu.value()).bind(7, x.ts.value()).bind(8, x.record);
        f.bind(9, std::string_view(x.expected)).bind(10, std::string_view(x.observed));
        // a finding's id is its index in the replay's findings: caused_by names the root's
        f.bind(11, x.caused_by ? std::optional<std::int64_t>(static_cast<std::int64_t>(*x.caused_by)) : std::nullopt);
        if (x.resync.empty()) f.bind(12, std::optional<std::int64_t>{});
        else f.bind(12, std::string_view(x.resync));
        f.run();
        std::int64_t ord = 0;
        for (const auto& [rec, what] : x.chain) c.bind(1, id).bind(2, n).bind(3, ord++).bind(4, rec).bind(5, std::string_view(what)).run();
        ++n;
    }
    // every statistic the list stores (replay/include/irqflow/replay/statistics.hpp)
    Stmt st(db, "INSERT INTO stats (session, key, value) VALUES (?1, ?2, ?3)");
    auto put = [&](std::string_view k, double v) { st.bind(1, id).bind(2, k).bind(3, v).run(); };
    const auto list = replay::statistics();
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!(list[i].outputs & replay::kDatabase)) continue;
        const std::string key = replay::stat_db_key(list[i]);
        const auto v = replay::stat_value(r, i);
        if (const auto* count = std::get_if<std::uint64_t>(&v)) put(key, static_cast<double>(*count));
        else if (const auto* x = std::get_if<double>(&v)) put(key, *x);
        else if (const auto* m = std::get_if<const std::map<std::string, std::uint64_t>*>(&v))
            for (const auto& [name, times] : **m) put(key + "_" + name, static_cast<double>(times));
    }
}

}  // namespace

std::int64_t Database::import_session(const std::string& name, const Trace& trace, const std::string& sha256,
                                      const ReplayResult& replay, const SerialLog* serial,
                                      const std::function<void(const ImportProgress&)>& progress) {
    if (readonly_) throw StorageError(path_ + ": opened read-only");
    exec("BEGIN IMMEDIATE");
    try {
        {
            Stmt dup(db_, "SELECT id, name FROM sessions WHERE source_sha256 = ?1");
            dup.bind(1, std::string_view(sha256));
            if (dup.row())
                throw StorageError(path_ + ": this trace (sha256 " + sha256.substr(0, 12) + "…) is already session " +
                                   std::to_string(dup.i64(0)) + " \"" + dup.text(1) + "\"");
        }
        std::string unique = name;
        for (int k = 2;; ++k) {
            Stmt taken(db_, "SELECT 1 FROM sessions WHERE name = ?1");
            taken.bind(1, std::string_view(unique));
            if (!taken.row()) break;
            unique = name + "-" + std::to_string(k);
        }
        std::int64_t first = 0, last = 0;
        if (!trace.events.empty()) {
            first = trace.events.front().ts.value();
            last = trace.events.back().ts.value();
        }
        Stmt s(db_, "INSERT INTO sessions (name, source, source_sha256, format, host_kernel, trace_clock, host_cpus, first_ts_ns, "
                    "last_ts_ns, event_count, semantics) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
        s.bind(1, std::string_view(unique)).bind(2, std::string_view(trace.meta.source)).bind(3, std::string_view(sha256));
        s.bind(4, std::string_view(trace.meta.format)).bind(5, std::string_view(trace.meta.kernel_release));
        s.bind(6, std::string_view(trace.meta.clock)).bind(7, trace.meta.host_cpus).bind(8, first).bind(9, last);
        s.bind(10, trace.records()).bind(11, std::string_view(replay::to_string(replay.semantics))).run();
        const std::int64_t id = sqlite3_last_insert_rowid(db_);
        if (id >= (1LL << 22)) throw StorageError(path_ + ": too many sessions");
        insert_events(db_, id, trace, progress);
        Stmt vc(db_, "INSERT INTO vcpus (session, vm, vcpu, tid, apic_id, apic_id_from_trace) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        for (const auto& vm : trace.vms)
            for (const auto& v : vm.vcpus)
                vc.bind(1, id).bind(2, vm.id.value()).bind(3, v.id.value()).bind(4, v.tid.value())
                    .bind(5, static_cast<std::int64_t>(v.apic.value())).bind(6, v.apic_from_trace ? 1 : 0).run();
        if (serial) {
            Stmt sl(db_, "INSERT INTO serial_lines (session, line, ts_ns, alignment, text) VALUES (?1, ?2, ?3, ?4, ?5)");
            for (const auto& l : serial->lines)
                sl.bind(1, id).bind(2, l.line)
                    .bind(3, l.host_ts ? std::optional<std::int64_t>{l.host_ts->value()} : std::nullopt)
                    .bind(4, std::string_view(to_string(l.alignment))).bind(5, std::string_view(l.text)).run();
        }
        insert_exits(db_, id, trace);
        insert_replay(db_, id, replay);
        exec("COMMIT");
        return id;
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

}  // namespace irqflow::storage
