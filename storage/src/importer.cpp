// One session into the database, in one transaction: metadata, every event as it
// arrives (SessionWriter), and what the replay derived from them.
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <variant>

#include "event_tables.hpp"
#include "row_writer.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/replay/statistics.hpp"
#include "irqflow/storage/session_writer.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {
namespace {

using replay::ReplayResult;

// Exit and entry times per vCPU: each exit's guest time (since the entry before) is
// known at the exit, its host time (until the next entry) only at that entry. Exits
// wait in record order until theirs is known; past kMaxWaiting (a vCPU halted while
// others keep exiting) the oldest is written without it and updated by rowid later.
class ExitTimes {
public:
    static constexpr std::size_t kMaxWaiting = 65536;
    explicit ExitTimes(RowWriter& rows) : rows_(rows) {}

    void exit(const Event& e) {
        Row r{e, std::nullopt, std::nullopt};
        if (e.vcpu == kUnknownVcpu) {
            unknown_reasons_.emplace(e.get(slot::exit_isa).value_or(kIsaVmx), e.get(slot::exit_reason).value_or(-1));
            waiting_.push_back({std::move(r), true, 0});
            drain();
            return;
        }
        auto& v = vcpus_[vm_vcpu_key(e.vm, e.vcpu)];
        close(v);  // two exits without an entry between: the first has no host time
        if (v.last_entry >= 0) r.guest_ns = e.ts.value() - v.last_entry;
        v.last_entry = -1;
        count(v, e);
        waiting_.push_back({std::move(r), false, vm_vcpu_key(e.vm, e.vcpu)});
        v.open = base_ + waiting_.size();
        v.exit_ts = e.ts.value();
        drain();
    }
    void entry(const Event& e) {
        if (e.vcpu == kUnknownVcpu) return;
        auto& v = vcpus_[vm_vcpu_key(e.vm, e.vcpu)];
        v.last_entry = e.ts.value();
        const std::int64_t host = e.ts.value() - v.exit_ts;
        if (v.open) {
            auto& w = waiting_[v.open - 1 - base_];
            w.row.host_ns = host;
            w.done = true;
            v.open = 0;
            drain();
        } else if (v.written_early) {
            rows_.set_host_time(e.vm, e.vcpu, host);
            v.written_early = false;
        }
    }
    void finish() {
        for (auto& w : waiting_) rows_.insert(std::move(w.row));
        waiting_.clear();
    }
    // Exits per (vCPU, reason name): exit_counts; and every (isa, reason) seen.
    std::map<std::tuple<std::int32_t, std::int32_t, std::string>, std::int64_t> counts() const {
        std::map<std::tuple<std::int32_t, std::int32_t, std::string>, std::int64_t> out;
        for (const auto& [key, v] : vcpus_)
            for (const auto& rc : v.reasons)
                out[{static_cast<std::int32_t>(key >> 32), static_cast<std::int32_t>(key & 0xffffffff), exit_reason_key(rc.reason, rc.isa)}] += rc.n;
        return out;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> reasons() const {  // (isa, code or -1)
        std::vector<std::pair<std::int64_t, std::int64_t>> out(unknown_reasons_.begin(), unknown_reasons_.end());
        for (const auto& [key, v] : vcpus_)
            for (const auto& rc : v.reasons) out.emplace_back(rc.isa, rc.reason.value_or(-1));
        return out;
    }

private:
    struct ReasonCount {
        std::int64_t isa;
        std::optional<std::int64_t> reason;
        std::int64_t n;
    };
    struct Vcpu {
        std::int64_t last_entry = -1, exit_ts = 0;
        std::uint64_t open = 0;           // 1 + sequence number of the exit waiting for its entry
        bool written_early = false;       // that exit was written before its entry came
        std::vector<ReasonCount> reasons; // a vCPU sees a few dozen reasons at most
    };
    struct Waiting {
        Row row;
        bool done;
        std::uint64_t vcpu;
    };
    void close(Vcpu& v) {
        if (v.open) waiting_[v.open - 1 - base_].done = true;
        v.open = 0;
        v.written_early = false;
    }
    static void count(Vcpu& v, const Event& e) {
        const auto isa = e.get(slot::exit_isa).value_or(kIsaVmx);
        const auto reason = e.get(slot::exit_reason);
        for (auto& rc : v.reasons)
            if (rc.isa == isa && rc.reason == reason) {
                ++rc.n;
                return;
            }
        v.reasons.push_back({isa, reason, 1});
    }
    void drain() {
        while (!waiting_.empty() && (waiting_.front().done || waiting_.size() > kMaxWaiting)) {
            Waiting& w = waiting_.front();
            if (w.done) {
                rows_.insert(std::move(w.row));
            } else {  // its vCPU has been out of the guest for a long time: write it now
                rows_.insert_early_exit(std::move(w.row));
                auto& v = vcpus_[w.vcpu];
                v.open = 0;
                v.written_early = true;
            }
            waiting_.pop_front();
            ++base_;
        }
    }
    RowWriter& rows_;
    std::deque<Waiting> waiting_;
    std::uint64_t base_ = 0;  // sequence number of waiting_.front()
    std::unordered_map<std::uint64_t, Vcpu> vcpus_;
    std::set<std::pair<std::int64_t, std::int64_t>> unknown_reasons_;  // of exits of no known vCPU
};

// 0..n-1 ordered by key(i), ties in index order.
template <class Key>
std::vector<std::uint32_t> order_by(std::size_t n, Key key) {
    std::vector<std::uint32_t> order(n);
    for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<std::uint32_t>(k);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
    return order;
}

void insert_replay(sqlite3* db, std::int64_t id, const ReplayResult& r) {
    auto opt = [](std::int64_t v, bool has) { return has ? std::optional<std::int64_t>{v} : std::nullopt; };
    // In the order of their index (interrupts_by_session: session, vcpu, vector): each
    // row's index entry then goes after the last one, which SQLite appends without a
    // search from the root (10 M events: 1.05 s → 0.46 s for their 356 k rows).
    const auto order = order_by(r.interrupts.size(), [&](std::uint32_t k) { return std::pair{r.interrupts[k].vcpu.value(), r.interrupts[k].vector}; });
    insert_rows(db, "interrupts",
                {"session", "vm", "vcpu", "vector", "level", "accept_record", "accept_ts_ns", "inject_record", "inject_ts_ns", "eoi_record",
                 "eoi_ts_ns", "eoi_path", "nesting_depth", "accept_to_inject_ns", "inject_to_eoi_ns"},
                order.size(), [&](RowBinder& b, std::size_t k) {
                    const auto& i = r.interrupts[order[k]];
                    const bool acc = i.accept_ts != 0, eoi = i.eoi_ts != 0;
                    b.bind(1, id).bind(2, i.vm.value()).bind(3, i.vcpu.value()).bind(4, i.vector).bind(5, i.level ? 1 : 0);
                    b.bind(6, opt(static_cast<std::int64_t>(i.accept_record), acc)).bind(7, opt(i.accept_ts, acc));
                    b.bind(8, static_cast<std::int64_t>(i.inject_record)).bind(9, i.inject_ts);
                    b.bind(10, opt(static_cast<std::int64_t>(i.eoi_record), eoi)).bind(11, opt(i.eoi_ts, eoi));
                    if (i.eoi_path) b.bind(12, std::string_view(replay::to_string(*i.eoi_path)));
                    else b.bind(12, std::optional<std::int64_t>{});
                    b.bind(13, i.nesting_depth).bind(14, opt(i.inject_ts - i.accept_ts, acc)).bind(15, opt(i.eoi_ts - i.inject_ts, eoi));
                });
    Stmt lat(db, "INSERT INTO latency (session, vector, stage, samples, p50_ns, p90_ns, p99_ns, max_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    for (const auto& [stage, m] : {std::pair{"accept_to_inject", &r.stats.accept_to_inject}, std::pair{"inject_to_eoi", &r.stats.inject_to_eoi}})
        for (const auto& [vec, l] : *m)
            lat.bind(1, id).bind(2, vec).bind(3, std::string_view(stage)).bind(4, l.count).bind(5, l.p50).bind(6, l.p90).bind(7, l.p99).bind(8, l.max).run();
    // also in index order (ipis_by_fanout: session, kind, vector, destinations, delivered); id keeps the trace order
    const auto by_fanout = order_by(r.ipis.size(), [&](std::uint32_t k) {
        const auto& p = r.ipis[k];
        return std::tuple{std::string_view(replay::to_string(p.kind)), p.vector, p.expected.size(), p.received.size()};
    });
    insert_rows(db, "ipis", {"session", "id", "record", "ts_ns", "vm", "sender_vcpu", "kind", "vector", "delivery_mode", "exact", "destinations", "delivered"},
                by_fanout.size(), [&](RowBinder& b, std::size_t k) {
                    const std::size_t n = by_fanout[k];
                    const auto& p = r.ipis[n];
                    b.bind(1, id).bind(2, static_cast<std::int64_t>(n)).bind(3, p.record).bind(4, p.ts).bind(5, p.vm.value()).bind(6, p.sender.value());
                    b.bind(7, std::string_view(replay::to_string(p.kind))).bind(8, p.vector).bind(9, p.delivery_mode).bind(10, p.exact ? 1 : 0);
                    b.bind(11, static_cast<std::int64_t>(p.expected.size())).bind(12, static_cast<std::int64_t>(p.received.size()));
                });
    struct Destination {
        std::int64_t ipi;
        std::uint32_t apic;
        bool expected, received;
    };
    std::vector<Destination> dests;
    for (std::size_t n = 0; n < r.ipis.size(); ++n) {
        std::map<std::uint32_t, std::pair<bool, bool>> d;
        for (auto a : r.ipis[n].expected) d[a].first = true;
        for (auto a : r.ipis[n].received) d[a].second = true;
        for (const auto& [apic, er] : d) dests.push_back({static_cast<std::int64_t>(n), apic, er.first, er.second});
    }
    insert_rows(db, "ipi_destinations", {"session", "ipi", "apic_id", "expected", "received"}, dests.size(), [&](RowBinder& b, std::size_t k) {
        const auto& x = dests[k];
        b.bind(1, id).bind(2, x.ipi).bind(3, static_cast<std::int64_t>(x.apic)).bind(4, x.expected ? 1 : 0).bind(5, x.received ? 1 : 0);
    });
    std::int64_t n = 0;
    Stmt f(db, "INSERT INTO findings (session, id, rule, severity, vm, vcpu, ts_ns, record, expected, observed, caused_by, resync) "
               "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    Stmt c(db, "INSERT INTO finding_chain (session, finding, ord, record, what) VALUES (?1, ?2, ?3, ?4, ?5)");
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

struct SessionWriter::Impl {
    Impl(Database& d, const std::string& name, const TraceMeta& meta, const std::string& sha256,
         std::function<void(const ImportProgress&)> report, std::uint64_t expected, NameClash clash)
        : db(d), h(d.handle()), on_progress(std::move(report)), progress{0, expected} {
        if (d.read_only()) throw StorageError(d.path() + ": opened read-only");
        exec(h, d.path(), "BEGIN IMMEDIATE");
        txn.h = h;
        {
            Stmt dup(h, "SELECT id, name FROM sessions WHERE source_sha256 = ?1");
            dup.bind(1, std::string_view(sha256));
            if (dup.row())
                throw StorageError(d.path() + ": this trace (sha256 " + sha256.substr(0, 12) + "…) is already session " +
                                   std::to_string(dup.i64(0)) + " \"" + dup.text(1) + "\"");
        }
        std::string unique = name;
        for (int k = 2;; ++k) {
            Stmt taken(h, "SELECT id FROM sessions WHERE name = ?1");
            taken.bind(1, std::string_view(unique));
            if (!taken.row()) break;
            if (clash == NameClash::Refuse)
                throw StorageError(d.path() + ": a session is already named \"" + name + "\" (session " + std::to_string(taken.i64(0)) +
                                   "); choose another name or remove it first");
            unique = name + "-" + std::to_string(k);
        }
        stored_name = unique;
        Stmt s(h, "INSERT INTO sessions (name, source, source_sha256, format, host_kernel, trace_clock, host_cpus) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
        s.bind(1, std::string_view(unique)).bind(2, std::string_view(meta.source)).bind(3, std::string_view(sha256));
        s.bind(4, std::string_view(meta.format)).bind(5, std::string_view(meta.kernel_release));
        s.bind(6, std::string_view(meta.clock)).bind(7, meta.host_cpus).run();
        id = sqlite3_last_insert_rowid(h);
        before.resize(static_cast<std::size_t>(EventKind::Count_));
        for (EventKind k : stored_kinds()) before[static_cast<std::size_t>(k)] = largest_rowid(k);
        rows = std::make_unique<RowWriter>(h, id);  // from here on the connection is its thread's until finish
        exit_times = std::make_unique<ExitTimes>(*rows);
    }
    std::int64_t largest_rowid(EventKind k) {
        Stmt last(h, "SELECT coalesce(max(rowid), 0) FROM " + std::string(event_table(k)));
        last.row();
        return last.i64(0);
    }

    void add(const Event& e) {
        if (!any) first_ts = e.ts.value();
        any = true;
        last_ts = e.ts.value();
        records += e.kind != EventKind::Lost;
        if (e.kind == EventKind::Exit) {
            exit_times->exit(e);
        } else {
            if (e.kind == EventKind::Entry) exit_times->entry(e);
            rows->insert(Row{e, std::nullopt, std::nullopt});
        }
        if (++progress.done % 65536 == 0 && on_progress) on_progress(progress);
    }

    std::int64_t finish(const Trace& t, const ReplayResult& r, const SerialLog* serial) {
        exit_times->finish();
        rows->finish();
        // Each table's new rows are one rowid range (auto-assigned rowids, one writer).
        Stmt range(h, "INSERT INTO event_tables (session, name, first_rowid, last_rowid) VALUES (?1, ?2, ?3, ?4)");
        for (EventKind k : stored_kinds()) {
            const std::int64_t first = before[static_cast<std::size_t>(k)] + 1, last = largest_rowid(k);
            if (last >= first) range.bind(1, id).bind(2, event_table(k)).bind(3, first).bind(4, last).run();
        }
        Stmt names(h, "INSERT INTO event_names (session, id, name) VALUES (?1, ?2, ?3)");
        for (std::size_t i = 0; i < t.name_count(); ++i)
            names.bind(1, id).bind(2, static_cast<std::int64_t>(i)).bind(3, std::string_view(t.name(static_cast<std::uint16_t>(i)))).run();
        // which f-column of the events view holds which field, per event name
        Stmt fn(h, "INSERT OR IGNORE INTO field_names (name, slot, field) VALUES (?1, ?2, ?3)");
        for (const auto& k : all_kinds())
            for (std::size_t i = 0; i < k.nfields; ++i) fn.bind(1, k.name).bind(2, static_cast<std::int64_t>(i)).bind(3, k.fields[i]).run();
        Stmt reason(h, "INSERT OR IGNORE INTO exit_reasons (isa, reason, name, halted) VALUES (?1, ?2, ?3, ?4)");
        for (const auto& [isa, code] : exit_times->reasons()) {
            const auto c = code >= 0 ? std::optional<std::int64_t>{code} : std::nullopt;
            reason.bind(1, isa).bind(2, code).bind(3, std::string_view(exit_reason_key(c, isa)));
            reason.bind(4, c && exit_class(*c, isa) == ExitClass::Hlt ? 1 : 0).run();
        }
        Stmt cnt(h, "INSERT INTO exit_counts (session, vm, vcpu, reason_name, exits) VALUES (?1, ?2, ?3, ?4, ?5)");
        for (const auto& [key, n] : exit_times->counts())
            cnt.bind(1, id).bind(2, std::get<0>(key)).bind(3, std::get<1>(key)).bind(4, std::string_view(std::get<2>(key))).bind(5, n).run();
        Stmt vc(h, "INSERT INTO vcpus (session, vm, vcpu, tid, apic_id, apic_id_from_trace) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        for (const auto& vm : t.vms)
            for (const auto& v : vm.vcpus)
                vc.bind(1, id).bind(2, vm.id.value()).bind(3, v.id.value()).bind(4, v.tid.value())
                    .bind(5, static_cast<std::int64_t>(v.apic.value())).bind(6, v.apic_from_trace ? 1 : 0).run();
        if (serial) {
            Stmt sl(h, "INSERT INTO serial_lines (session, line, ts_ns, alignment, text) VALUES (?1, ?2, ?3, ?4, ?5)");
            for (const auto& l : serial->lines)
                sl.bind(1, id).bind(2, l.line)
                    .bind(3, l.host_ts ? std::optional<std::int64_t>{l.host_ts->value()} : std::nullopt)
                    .bind(4, std::string_view(to_string(l.alignment))).bind(5, std::string_view(l.text)).run();
        }
        insert_replay(h, id, r);
        Stmt s(h, "UPDATE sessions SET first_ts_ns = ?1, last_ts_ns = ?2, event_count = ?3, semantics = ?4 WHERE id = ?5");
        s.bind(1, first_ts).bind(2, last_ts).bind(3, records).bind(4, std::string_view(replay::to_string(r.semantics))).bind(5, id).run();
        exec(h, db.path(), "COMMIT");
        txn.h = nullptr;
        // Fold the WAL into the file now, as far as readers allow (never waits for them).
        sqlite3_wal_checkpoint_v2(h, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        if (on_progress) on_progress(progress);
        return id;
    }

    // Rolls the import back unless it committed; destroyed after the statements below
    // (members die in reverse order), also when the constructor throws.
    struct Rollback {
        sqlite3* h = nullptr;
        ~Rollback() {
            if (h) sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
        }
    };
    Database& db;
    sqlite3* h;
    Rollback txn;
    std::function<void(const ImportProgress&)> on_progress;
    ImportProgress progress;
    bool any = false;
    std::int64_t id = 0, first_ts = 0, last_ts = 0;
    std::uint64_t records = 0;
    std::string stored_name;
    std::vector<std::int64_t> before;  // per kind: its table's largest rowid before this session
    std::unique_ptr<RowWriter> rows;   // destroyed (its thread stopped) before txn rolls back
    std::unique_ptr<ExitTimes> exit_times;
};

SessionWriter::SessionWriter(Database& db, const std::string& name, const TraceMeta& meta, const std::string& sha256,
                             std::function<void(const ImportProgress&)> progress, std::uint64_t expected_events, NameClash clash)
    : impl_(std::make_unique<Impl>(db, name, meta, sha256, std::move(progress), expected_events, clash)) {}
SessionWriter::~SessionWriter() = default;
void SessionWriter::add(const Event& e) { impl_->add(e); }
std::int64_t SessionWriter::finish(const Trace& trace, const ReplayResult& replay, const SerialLog* serial) {
    return impl_->finish(trace, replay, serial);
}
std::int64_t SessionWriter::session_id() const { return impl_->id; }
const std::string& SessionWriter::session_name() const { return impl_->stored_name; }
std::uint64_t SessionWriter::records() const { return impl_->records; }

std::int64_t Database::import_session(const std::string& name, const Trace& trace, const std::string& sha256,
                                      const ReplayResult& replay, const SerialLog* serial,
                                      const std::function<void(const ImportProgress&)>& progress, NameClash clash) {
    SessionWriter w(*this, name, trace.meta, sha256, progress, trace.events.size(), clash);
    trace.events.for_each([&w](const Event& e) { w.add(e); });
    return w.finish(trace, replay, serial);
}

}  // namespace irqflow::storage
