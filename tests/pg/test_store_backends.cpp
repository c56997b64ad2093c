// The storage suite on both backends: real samples imported into an SQLite file and
// into a real PostgreSQL server, each answered by the same SQL and read back as the
// trace they came from (storage/README.md, "Backends").
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <map>

#include "backends.hpp"
#include "edit_events.hpp"
#include "helpers.hpp"
#include "storage_helpers.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/session_writer.hpp"
#include "irqflow/storage/sha256.hpp"
#include "irqflow/storage/store.hpp"
#include "pipeline.hpp"
#include "trace_builder.hpp"

#include <nlohmann/json.hpp>

using namespace irqflow;
using namespace irqflow::test;

namespace {

// The exits view against the trace: every exit of a known vCPU, its guest time since the
// vCPU's entry before it and its host time until the entry after (none across another
// exit), and kvm_exit's rows in record order.
void check_exit_times(storage::Store& d, const std::string& backend, std::int64_t session, const Trace& t) {
    struct Expected {
        std::int64_t guest = -1, host = -1;
    };
    std::map<std::uint64_t, Expected> want;  // by record
    std::map<std::uint64_t, std::pair<std::int64_t, std::int64_t>> last;  // vCPU key → (last entry ts, open exit record + 1)
    for (const Event& e : t.events) {
        if (e.vcpu == kUnknownVcpu || (e.kind != EventKind::Exit && e.kind != EventKind::Entry)) continue;
        auto& [entry_ts, open] = last.try_emplace(vm_vcpu_key(e.vm, e.vcpu), -1, 0).first->second;
        if (e.kind == EventKind::Exit) {
            want[e.record].guest = entry_ts >= 0 ? e.ts.value() - entry_ts : -1;
            entry_ts = -1;
            open = static_cast<std::int64_t>(e.record) + 1;
        } else {
            if (open) want[static_cast<std::uint64_t>(open - 1)].host = e.ts.value() - t.events[0].ts.value();  // ts of the entry, for now
            open = 0;
            entry_ts = e.ts.value();
        }
    }
    const auto s = std::to_string(session);
    auto q = d.query("SELECT record, ts_ns, coalesce(guest_ns, -1), coalesce(host_ns, -1) FROM exits WHERE session = " + s + " ORDER BY record");
    REQUIRE(q.rows.size() == want.size());
    std::size_t wrong = 0;
    for (const auto& row : q.rows) {
        const auto rec = std::stoull(*row[0]);
        const auto it = want.find(rec);
        if (it == want.end()) {
            ++wrong;
            continue;
        }
        const std::int64_t ts = std::stoll(*row[1]);
        const std::int64_t host = it->second.host >= 0 ? it->second.host + t.events[0].ts.value() - ts : -1;
        wrong += std::stoll(*row[2]) != it->second.guest || std::stoll(*row[3]) != host;
    }
    CHECK(wrong == 0);
    if (backend == "sqlite")  // rowids follow the records (PostgreSQL has none; its loader sorts)
        CHECK(one(d, "SELECT count(*) FROM kvm_exit a JOIN kvm_exit b ON b.rowid = a.rowid + 1 WHERE a.session = " + s +
                     " AND b.session = " + s + " AND b.record <= a.record") == "0");
}

void same_event(const Trace& a, const Event& x, const Trace& b, const Event& y) {
    CHECK(x.record == y.record);
    CHECK(x.ts == y.ts);
    CHECK(x.cpu == y.cpu);
    CHECK(x.tid == y.tid);
    CHECK(x.vm == y.vm);
    CHECK(x.vcpu == y.vcpu);
    CHECK(x.kind == y.kind);
    CHECK(a.name(x.name_id) == b.name(y.name_id));
    // an Other event's own vCPU (slot::other_vcpu_id) served its attribution, which the
    // store keeps (vm, vcpu above) with the event's printed info; the slot itself is not a column
    if (x.kind == EventKind::Other) return;
    CHECK(x.present == y.present);
    for (int f = 0; f < static_cast<int>(kMaxFields); ++f) CHECK(x.get(f) == y.get(f));
}

}  // namespace

TEST_CASE("every sample imports and SQL answers what capture and replay computed", "[storage][samples]") {
    const std::string backend = GENERATE(as<std::string>{}, "sqlite", "postgresql");
    INFO(backend);
    const auto store = fresh_store(backend, "all");
    storage::Store& d = *store;
    for (const auto& name : dat_samples()) {
        INFO(name);
        const auto id = import_sample(d, name, name != "pveoi-on-midflight-v6.dat");
        const std::string s = std::to_string(id);
        Trace t = load_trace(sample(name));
        replay::ReplayOptions o;
        o.collect_details = true;
        const auto r = replay::replay(t, o);
        CHECK(one(d, "SELECT count(*) FROM events WHERE session = " + s) == std::to_string(t.records()));
        for (const auto& [ev, n] : t.counts_by_name())
            CHECK(one(d, "SELECT count(*) FROM events WHERE session = " + s + " AND name = '" + ev + "'") == std::to_string(n));
        CHECK(one(d, "SELECT count(*) FROM gaps WHERE session = " + s) == std::to_string(t.lost_markers()));
        CHECK(one(d, "SELECT CAST(exits_saved AS INTEGER) FROM pv_eoi_hit_rate WHERE session = " + s) == std::to_string(r.stats.exits_saved_pv_eoi));
        CHECK(one(d, "SELECT CAST(value AS INTEGER) FROM stats WHERE key = 'exits_saved_pv_ipi' AND session = " + s) ==
              std::to_string(r.stats.exits_saved_pv_ipi));
        CHECK(one(d, "SELECT count(*) FROM findings WHERE session = " + s) == std::to_string(r.findings.size()));
        CHECK(one(d, "SELECT coalesce(sum(exits), 0) FROM exits_per_reason WHERE session = " + s) == std::to_string(r.stats.exits));
        // the all-vCPU rows: every exit once, per reason as the replay counted them, and each as its vCPUs' rows add up
        CHECK(one(d, "SELECT coalesce(sum(exits), 0) FROM exits_per_reason_all WHERE session = " + s) == std::to_string(r.stats.exits));
        for (const auto& [reason, n] : r.stats.exits_by_reason)
            CHECK(one(d, "SELECT sum(exits) FROM exits_per_reason_all WHERE session = " + s + " AND reason_name = '" + reason + "'") == std::to_string(n));
        CHECK(one(d, "SELECT count(*) FROM exits_per_reason_all a WHERE session = " + s +
                         " AND exits != (SELECT sum(exits) FROM exits_per_reason p WHERE p.session = a.session AND p.vm IS NOT DISTINCT FROM a.vm"
                         " AND p.reason_name = a.reason_name)") == "0");
        CHECK(one(d, "SELECT count(*) FROM interrupts WHERE session = " + s) == std::to_string(r.interrupts.size()));
        CHECK(one(d, "SELECT coalesce(sum(ipis), 0) FROM ipi_fanout WHERE session = " + s) == std::to_string(r.ipis.size()));
        CHECK(one(d, "SELECT coalesce(sum(mismatched), 0) FROM ipi_fanout WHERE session = " + s) == "0");
        // each lost-event gap may cut an exit or entry out of its interval, and an EOI out of
        // its interrupt's record (its injection lost)
        const auto gaps = static_cast<std::int64_t>(t.lost_markers());
        CHECK(std::stoll(one(d, "SELECT count(*) FROM intervals WHERE session = " + s)) > 2 * (std::int64_t)r.stats.exits - 16 - 2 * gaps);
        const auto pv_eois = static_cast<std::int64_t>(r.stats.eois_by_path.count("pv-eoi") ? r.stats.eois_by_path.at("pv-eoi") : 0);
        const auto pv_eoi_records = std::stoll(one(d, "SELECT count(*) FROM interrupts WHERE eoi_path = 'pv-eoi' AND session = " + s));
        CHECK(pv_eoi_records <= pv_eois);
        CHECK(pv_eoi_records >= pv_eois - gaps);
        // session_totals (what session_rates adds up) against the rows it counts
        CHECK(one(d, "SELECT exits || ' ' || guest_ns || ' ' || interrupts || ' ' || injections || ' ' || eois || ' ' || pv_eois FROM session_totals WHERE session = " + s) ==
              one(d, "SELECT count(*) || ' ' || coalesce(sum(guest_ns), 0) FROM exits WHERE session = " + s) + " " +
                  one(d, "SELECT count(*) || ' ' || count(CASE WHEN inject_ts_ns != 0 THEN 1 END) || ' ' || count(eoi_path) || ' ' || "
                         "count(CASE WHEN eoi_path = 'pv-eoi' THEN 1 END) FROM interrupts WHERE session = " + s));
        std::size_t vcpus = 0;
        for (const auto& vm : t.vms) vcpus += vm.vcpus.size();
        CHECK(one(d, "SELECT count(*) FROM vcpus WHERE session = " + s) == std::to_string(vcpus));
    }
    // serial lines with their host time, latencies per vector, the findings view
    CHECK(one(d, "SELECT count(*) FROM serial_lines WHERE session = 1 AND alignment = 'pio'") == "12");
    CHECK(std::stoll(one(d, "SELECT count(*) FROM latency_per_vector WHERE session = 1 AND vector = '0xec'")) == 2);
    CHECK(one(d, "SELECT count(*) FROM findings_with_evidence") == "0");
    if (backend == "sqlite") CHECK(one(d, "PRAGMA integrity_check") == "ok");
}

TEST_CASE("exit rows carry guest and host time, also of a vCPU halted while the others exit a lot", "[storage]") {
    const std::string backend = GENERATE(as<std::string>{}, "sqlite", "postgresql");
    INFO(backend);
    const auto store = fresh_store(backend, "exit_times");
    storage::Store& d = *store;
    const auto id = import_sample(d, "xapic.dat");
    check_exit_times(d, backend, id, load_trace(sample("xapic.dat")));
    // vCPU 0 halts while vCPU 1 exits more often than the writer keeps exits waiting
    // (its HLT exit is written early and its host time filled in at the wake-up)
    TraceBuilder b(2);
    b.entry(0).entry(1).exit(0, 0x78);
    for (int i = 0; i < 70000; ++i) b.exit(1).entry(1);
    b.wait_ns(5000).entry(0).exit(0).exit(0).entry(0);
    const Trace t = b.build();
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto id2 = d.import_session("halted", t, "halted-sha", replay::replay(t, o), nullptr);
    check_exit_times(d, backend, id2, t);
    CHECK(one(d, "SELECT halted || ' ' || host_ns FROM exits WHERE session = " + std::to_string(id2) + " AND reason = 120") ==
          "1 " + std::to_string(2 * 70000 * 1000 + 5000 + 1000));
    CHECK(one(d, "SELECT count(*) FROM events WHERE session = " + std::to_string(id2)) == std::to_string(t.records()));
}

TEST_CASE("the same trace twice is refused by content hash and rm removes a session whole", "[storage]") {
    const std::string backend = GENERATE(as<std::string>{}, "sqlite", "postgresql");
    INFO(backend);
    const auto store = fresh_store(backend, "dup");
    storage::Store& d = *store;
    import_sample(d, "pveoi-on-midflight-v6.dat");
    import_sample(d, "xapic.dat");
    CHECK_THROWS_WITH(import_sample(d, "pveoi-on-midflight-v6.dat"), Catch::Contains("already session 1"));
    REQUIRE(d.remove_session("pveoi-on-midflight-v6.dat"));
    CHECK(one(d, "SELECT count(*) FROM events WHERE session = 1") == "0");
    CHECK(one(d, "SELECT count(*) FROM events WHERE session = 2") == one(d, "SELECT event_count FROM sessions WHERE id = 2"));
    for (const char* table : {"event_tables", "event_names", "gaps", "vcpus", "serial_lines", "exits", "exit_counts",
                              "interrupts", "latency", "ipis", "ipi_destinations", "findings", "finding_chain", "stats", "session_totals",
                              "ipi_counts"})
        CHECK(one(d, std::string("SELECT count(*) FROM ") + table + " WHERE session = 1") == "0");
    CHECK(one(d, "SELECT count(*) FROM events WHERE session = 2") == "150406");
    CHECK_FALSE(d.remove_session("nope"));
}

// `import` begins a session before the file is hashed (the hash runs while the events
// stream): the sessions row holds a stand-in value until the hash is given.
TEST_CASE("a source hashed while its events stream is stored at commit, and one stored already is refused when its hash comes, leaving nothing",
          "[storage]") {
    const std::string backend = GENERATE(as<std::string>{}, "sqlite", "postgresql");
    INFO(backend);
    const auto store = fresh_store(backend, "latehash");
    storage::Store& d = *store;
    const std::string sha = storage::sha256(read_file(sample("xapic.dat")));
    const Trace t = load_trace(sample("xapic.dat"));
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto r = replay::replay(t, o);
    bool refused_at_hash = false;  // by source_hashed itself, before any later event
    auto write = [&](const std::string& name, std::size_t events_before_hash) {
        storage::SessionWriter w(d, name, storage::SessionMeta(t.meta), std::string());
        auto hashed = [&] {
            try {
                w.source_hashed(sha);
            } catch (const storage::StorageError&) {
                refused_at_hash = true;
                throw;
            }
        };
        std::size_t i = 0;
        t.events.for_each([&](const Event& e) {
            if (i++ == events_before_hash) hashed();
            w.add(e);
        });
        if (events_before_hash >= i) hashed();
        return w.finish(t, r, nullptr);
    };
    const auto first = write("late", 70000);
    CHECK(one(d, "SELECT source_sha256 FROM sessions WHERE id = " + std::to_string(first)) == sha);
    CHECK(one(d, "SELECT count(*) FROM events WHERE session = " + std::to_string(first)) == "150406");
    // the same trace again: refused when the hash comes, mid-stream or after the last event
    for (const std::size_t at : {std::size_t{70000}, t.events.size()}) {
        INFO(at);
        refused_at_hash = false;
        CHECK_THROWS_WITH(write("again", at), Catch::Contains("already session " + std::to_string(first) + " \"late\""));
        CHECK(refused_at_hash);
        CHECK(one(d, "SELECT count(*) FROM sessions") == "1");
        CHECK(one(d, "SELECT count(*) FROM events") == "150406");
        CHECK(one(d, "SELECT count(*) FROM interrupts WHERE session != " + std::to_string(first)) == "0");
    }
    // a session never committed without its source's hash
    {
        storage::SessionWriter w(d, "unhashed", storage::SessionMeta(t.meta), std::string());
        t.events.for_each([&](const Event& e) { w.add(e); });
        CHECK_THROWS_AS(w.finish(t, r, nullptr), std::logic_error);
    }
    CHECK(one(d, "SELECT count(*) FROM sessions") == "1");
    CHECK(one(d, "SELECT count(*) FROM sessions WHERE source_sha256 LIKE 'importing-%'") == "0");
}

TEST_CASE("schema 8: ipi_fanout reads ipi_counts, counted at import, and a version-7 store migrates to the same rows", "[storage]") {
    const std::string backend = GENERATE(as<std::string>{}, "sqlite", "postgresql");
    INFO(backend);
    const std::string where = fresh_store_location(backend, "ipicounts");
    // what version 7's ipi_fanout gave: every IPI row grouped
    const std::string grouped =
        "SELECT session || ' ' || kind || ' ' || vector || ' ' || destinations || ' ' || count(*) || ' ' || sum(CASE WHEN delivered != destinations THEN 1 ELSE 0 END) "
        "FROM ipis GROUP BY session, kind, vector, destinations ORDER BY session, kind, vector, destinations";
    const std::string fanout = "SELECT session || ' ' || kind || ' ' || vector || ' ' || destinations || ' ' || ipis || ' ' || mismatched FROM ipi_counts "
                               "ORDER BY session, kind, vector, destinations";
    auto lines = [](storage::Store& d, const std::string& sql) {
        std::string out;
        for (const auto& r : d.query(sql).rows) out += r.at(0).value_or("NULL") + "\n";
        return out;
    };
    std::string want;
    {
        const auto store = storage::open_store(where, storage::Store::Mode::ReadWrite);
        import_sample(*store, "pvipi-off.dat");
        import_trace_file(*store, "missing-dest", std::string(IRQFLOW_SOURCE) + "/tests/replay/cases/IPI-MISSING-DEST-fires.txt");
        import_sample(*store, "hyperv.dat");
        want = lines(*store, grouped);
        CHECK(lines(*store, fanout) == want);
        CHECK(one(*store, "SELECT sum(mismatched) FROM ipi_fanout WHERE session = 2") == "1");  // the IPI that missed a destination
        CHECK(one(*store, "SELECT count(DISTINCT kind) FROM ipi_fanout") == "2");  // ICR writes, Hyper-V IPIs
    }
    // back to version 7 by hand: no ipi_counts, the view grouping ipis (nor version 9's exits_per_reason_all)
    if (backend == "postgresql") {
        pg_back_to_schema_7(where);
        // a reader does not migrate: it says who will
        CHECK_THROWS_WITH(storage::open_store(where, storage::Store::Mode::ReadOnly), Catch::Contains("must be migrated to " + std::to_string(storage::kSchemaVersion) + " first"));
    } else {
        sqlite3* raw = nullptr;
        REQUIRE(sqlite3_open(where.c_str(), &raw) == SQLITE_OK);
        CHECK(sqlite3_exec(raw, (std::string(kUndoSchema10) + "DROP VIEW exits_per_reason_all; DROP VIEW ipi_fanout; DROP TABLE ipi_counts; CREATE VIEW ipi_fanout AS SELECT session, kind, printf('0x%02x', vector) AS vector, "
                 "destinations, count(*) AS ipis, sum(delivered != destinations) AS mismatched FROM ipis GROUP BY session, kind, vector, destinations; "
                 "PRAGMA user_version = 7").c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(raw);
    }
    const auto store = storage::open_store(where, storage::Store::Mode::ReadWrite);
    CHECK(one(*store, "SELECT count(*) FROM ipi_counts") != "0");
    CHECK(lines(*store, fanout) == want);
    // migrated through 9 as well: the all-vCPU rows of the sessions stored before
    CHECK(one(*store, "SELECT sum(exits) FROM exits_per_reason_all") == one(*store, "SELECT sum(exits) FROM exits_per_reason"));
    CHECK(one(*store, "SELECT count(DISTINCT session) FROM exits_per_reason_all") == "3");
    CHECK(lines(*store, "SELECT session || ' ' || kind || ' ' || vector || ' ' || destinations || ' ' || ipis || ' ' || mismatched FROM ipi_fanout "
                        "ORDER BY session, kind, vector, destinations") ==
          lines(*store, "SELECT session || ' ' || kind || ' ' || vector || ' ' || destinations || ' ' || count(*) || ' ' || "
                        "sum(CASE WHEN delivered != destinations THEN 1 ELSE 0 END) FROM (SELECT session, kind, " +
                            std::string(backend == "postgresql" ? "'0x' || lpad(to_hex(vector), 2, '0')" : "printf('0x%02x', vector)") +
                            " AS vector, destinations, delivered FROM ipis) i GROUP BY session, kind, vector, destinations ORDER BY session, kind, vector, destinations"));
    // and takes new sessions, counted as before
    import_sample(*store, "pveoi-on.dat");
    CHECK(lines(*store, fanout) == lines(*store, grouped));
    CHECK(one(*store, "SELECT count(DISTINCT kind) FROM ipi_fanout") == "3");  // and PV IPI hypercalls
    if (backend == "postgresql")  // one partition per session with IPIs, as an import makes
        CHECK(one(*store, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'ipi_counts'::regclass") == "4");
}

TEST_CASE("a stored session reads back as the trace it came from and replays the same", "[storage][samples]") {
    const std::string backend = GENERATE(as<std::string>{}, "sqlite", "postgresql");
    INFO(backend);
    const auto store = fresh_store(backend, "load");
    storage::Store& d = *store;
    for (const auto& name : dat_samples()) {
        INFO(name);
        const bool with_serial = name != "pveoi-on-midflight-v6.dat";
        Trace t = load_trace(sample(name));
        std::optional<SerialLog> log;
        if (with_serial) {
            log = read_serial_log(sample(name.substr(0, name.size() - 4) + "-serial.log"));
            align_serial(t, *log);
        }
        // one real EOI taken out, so there are findings to carry over too
        test::edit_events(t, [](std::vector<Event>& ev) {
            for (std::size_t i = ev.size() / 2; i < ev.size(); ++i)
                if (ev[i].kind == EventKind::Eoi) {
                    ev.erase(ev.begin() + static_cast<std::ptrdiff_t>(i));
                    break;
                }
        });
        replay::ReplayOptions o;
        o.collect_details = true;
        const auto r = replay::replay(t, o);
        const auto id = d.import_session(name, t, storage::sha256(name), r, log ? &*log : nullptr);
        std::uint64_t progress_calls = 0;
        auto back = d.load_session(std::to_string(id), [&](const storage::ImportProgress&) { ++progress_calls; });
        CHECK(progress_calls >= 1);
        CHECK(back.info.name == name);
        CHECK(back.trace.meta.kernel_release == t.meta.kernel_release);
        REQUIRE(back.trace.events.size() == t.events.size());
        CHECK(back.trace.lost_markers() == t.lost_markers());
        for (std::size_t i = 0; i < t.events.size(); ++i) {
            if (t.events[i].kind != back.trace.events[i].kind || t.events[i].record != back.trace.events[i].record) {
                same_event(t, t.events[i], back.trace, back.trace.events[i]);  // report the first difference in full
                FAIL("event " << i << " differs");
            }
            if (i % 997 == 0) same_event(t, t.events[i], back.trace, back.trace.events[i]);
        }
        bool all_same = true;
        for (std::size_t i = 0; i < t.events.size(); ++i) {
            const auto &x = t.events[i], &y = back.trace.events[i];
            all_same = all_same && x.ts == y.ts && x.vm == y.vm && x.vcpu == y.vcpu &&
                       (x.kind == EventKind::Other || (x.present == y.present && x.f == y.f));  // as same_event
        }
        CHECK(all_same);
        REQUIRE(back.trace.vms.size() == t.vms.size());
        for (std::size_t v = 0; v < t.vms.size(); ++v) {
            REQUIRE(back.trace.vms[v].vcpus.size() == t.vms[v].vcpus.size());
            for (std::size_t c = 0; c < t.vms[v].vcpus.size(); ++c) {
                CHECK(back.trace.vms[v].vcpus[c].apic == t.vms[v].vcpus[c].apic);
                CHECK(back.trace.vms[v].vcpus[c].tid == t.vms[v].vcpus[c].tid);
            }
        }
        CHECK(back.serial.lines.size() == (log ? log->lines.size() : 0));
        for (std::size_t i = 0; log && i < log->lines.size(); ++i) {
            CHECK(back.serial.lines[i].host_ts == log->lines[i].host_ts);
            CHECK(back.serial.lines[i].text == log->lines[i].text);
        }
        o.semantics = back.semantics;
        const auto r2 = replay::replay(back.trace, o);
        CHECK(!r.findings.empty());
        REQUIRE(r2.findings.size() == r.findings.size());
        for (std::size_t i = 0; i < r.findings.size(); ++i) {
            CHECK(r2.findings[i].rule == r.findings[i].rule);
            CHECK(r2.findings[i].ts == r.findings[i].ts);
        }
        CHECK(r2.interrupts.size() == r.interrupts.size());
        CHECK(r2.stats.eois == r.stats.eois);
        CHECK(r2.stats.exits_saved_pv_eoi == r.stats.exits_saved_pv_eoi);
        CHECK(r2.stats.exits_by_reason == r.stats.exits_by_reason);
    }
    CHECK_THROWS_WITH(d.load_session("no-such-session"), Catch::Contains("no session \"no-such-session\""));
}


TEST_CASE("schema 10: the guest's side is stored, reads back, replays the same and draws delivery_latency, and a version-9 store migrates", "[storage][guest][samples]") {
    const std::string backend = GENERATE(as<std::string>{}, "sqlite", "postgresql");
    INFO(backend);
    const std::string where = fresh_store_location(backend, "guestside");
    {  // a store of version 9 holding a session: the migration adds the guest's side empty
        const auto store = storage::open_store(where, storage::Store::Mode::ReadWrite);
        import_sample(*store, "pveoi-on.dat");
    }
    if (backend == "postgresql") {
        pg_back_to_schema_9(where);
    } else {
        sqlite3* raw = nullptr;
        REQUIRE(sqlite3_open(where.c_str(), &raw) == SQLITE_OK);
        CHECK(sqlite3_exec(raw, (std::string(kUndoSchema10) + "PRAGMA user_version = 9").c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(raw);
    }
    {
        const auto store = storage::open_store(where, storage::Store::Mode::ReadWrite);
        CHECK(one(*store, "SELECT count(*) FROM guest_events") == "0");
        CHECK(one(*store, "SELECT count(*) FROM findings WHERE guest_record IS NOT NULL") == "0");
        CHECK(one(*store, "SELECT count(*) FROM delivery_latency") == "0");
    }
    // import the host+guest pair through the CLI, as a user does
    const auto r = run(cli() + " import " + sample("hostguest.dat") + " --guest " + sample("hostguest-guest.dat") + " --db '" + where + "'", true);
    INFO(r.out);
    REQUIRE(r.status == 0);
    const auto store = storage::open_store(where, storage::Store::Mode::ReadWrite);
    CHECK(one(*store, "SELECT count(*) FROM guest_events WHERE session = 2") == "26573");
    CHECK(one(*store, "SELECT method || ' ' || bound_ns || ' ' || vm || ' ' || aligned FROM guest_traces WHERE session = 2") == "tsc 0 0 26573");
    CHECK(one(*store, "SELECT count(*) FROM guest_events WHERE session = 2 AND name = 'irq_handler_entry' AND irq_name IS NULL") == "0");
    // the per-vector stages are check --guest's, to the ns
    const auto checked = nlohmann::json::parse(run(cli() + " check " + sample("hostguest.dat") + " --guest " + sample("hostguest-guest.dat") + " --json").out);
    const auto& lat = checked.at("guest").at("latency");
    for (const char* v : {"0xec", "0xfb", "0x22"}) {
        INFO(v);
        const std::string row = one(*store, std::string("SELECT handled || ' ' || inject_to_handler_p50_ns || ' ' || handler_run_p99_ns FROM delivery_latency "
                                                        "WHERE session = 2 AND vector = '") + v + "'");
        const auto& l = lat.at(v);
        CHECK(row == std::to_string(l.at("inject_to_handler").at("n").get<long long>()) + " " +
                         std::to_string(l.at("inject_to_handler").at("p50_ns").get<long long>()) + " " +
                         std::to_string(l.at("handler_run").at("p99_ns").get<long long>()));
    }
    // read back: the guest's events as they were, and the replay matches them the same
    const auto replayed = pipeline::replay_stored(*store, "2");
    REQUIRE(replayed.stored.guest);
    CHECK(replayed.stored.guest->trace.events.size() == 26573);
    CHECK(replayed.stored.guest->clock.method == GuestClock::Method::Tsc);
    REQUIRE(replayed.result.guest);
    CHECK(replayed.result.guest->matched == 13267);
    CHECK(replayed.result.guest->handlers == 13271);
    CHECK(replayed.result.guest->unexplained == 0);
    CHECK(replayed.result.findings.empty());
    // rm takes the guest's rows too
    CHECK(store->remove_session("2"));
    CHECK(one(*store, "SELECT count(*) FROM guest_events") == "0");
    CHECK(one(*store, "SELECT count(*) FROM guest_traces") == "0");
}
