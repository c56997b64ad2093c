// trace.dat reader on the real captures in samples/.
#include <catch2/catch.hpp>

#include <set>

#include "dat/dat_reader.hpp"
#include "dat/dat_validate.hpp"
#include "helpers.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/summary.hpp"

using namespace irqflow;
using namespace irqflow::test;

TEST_CASE("per-event-name counts equal trace-cmd report's on every sample", "[dat][samples]") {
    for (const auto& name : dat_samples()) {
        INFO(name);
        Trace t = load_trace(sample(name));
        auto ours = t.counts_by_name();
        auto theirs = report_counts(sample(name));
        REQUIRE(!theirs.empty());
        CHECK(ours == theirs);
    }
}

TEST_CASE("events irqflow does not model keep their info exactly as trace-cmd report prints it", "[dat][samples]") {
    // pvspin has the most unmodelled kinds (kvm_emulate_insn is printed by libtraceevent's
    // kvm plugin), hyperv the Hyper-V ones, the v6 file the other file version
    for (const char* name : {"pvspin.dat", "hyperv.dat", "pveoi-on-midflight-v6.dat", "instance.dat"}) {
        INFO(name);
        LoadOptions lo;
        lo.other_event_info = true;
        Trace t = load_trace(sample(name), lo);
        const auto report = report_lines(sample(name));
        std::size_t compared = 0;
        std::set<std::string> kinds;
        for (const auto& e : t.events) {
            if (e.kind != EventKind::Other) continue;
            REQUIRE(e.record < report.size());
            const auto& line = report[e.record];
            REQUIRE(t.name(e.name_id) == line.name);
            REQUIRE(std::string(t.raw_of(e)) == line.info);
            ++compared;
            kinds.insert(line.name);
        }
        CHECK(compared > 9000);
        CHECK(kinds.size() >= 8);
    }
    // not asked for: nothing is printed or kept
    Trace plain = load_trace(sample("pvspin.dat"));
    CHECK(plain.raw.empty());
}

TEST_CASE("both file versions and a named buffer instance are read", "[dat][samples]") {
    CHECK(load_trace(sample("pveoi-on.dat")).meta.format.rfind("trace.dat v7", 0) == 0);
    CHECK(load_trace(sample("pveoi-on-midflight-v6.dat")).meta.format == "trace.dat v6");
    Trace inst = load_trace(sample("instance.dat"));
    CHECK(inst.meta.buffer == "irqflow");
    CHECK(inst.counts_by_name().at("kvm_exit") > 1000);
}

TEST_CASE("fields are decoded by name and a field the kernel lacks is absent rather than zero", "[dat][samples]") {
    Trace t = load_trace(sample("pveoi-on.dat"));
    CHECK(t.meta.kernel_release == "6.1.0-50-amd64");
    bool saw_accept = false, saw_exit = false, saw_inj = false;
    for (const auto& e : t.events) {
        if (e.kind == EventKind::ApicAcceptIrq) {
            saw_accept = true;
            REQUIRE(e.has(slot::accept_vec));
            REQUIRE(e.has(slot::accept_dm));
            // Linux 6.1's kvm_apic_accept_irq has no "coalesced" field.
            REQUIRE_FALSE(e.has(slot::accept_coalesced));
        }
        if (e.kind == EventKind::Exit) {
            saw_exit = true;
            REQUIRE(e.get(slot::exit_isa) == 2);  // SVM
            REQUIRE(e.has(slot::exit_vcpu_id));
        }
        if (e.kind == EventKind::InjVirq) {
            saw_inj = true;
            REQUIRE(e.has(slot::inj_vector));
            REQUIRE(e.has(slot::inj_reinjected));
        }
    }
    CHECK((saw_accept && saw_exit && saw_inj));
}

TEST_CASE("records keep trace-cmd report's order and index", "[dat][samples]") {
    Trace t = load_trace(sample("xapic.dat"));
    std::uint64_t expect = 0;
    std::int64_t last = INT64_MIN;
    for (const auto& e : t.events) {
        if (e.kind == EventKind::Lost) continue;
        REQUIRE(e.record == expect++);
        REQUIRE(e.ts.value() >= last);
        last = e.ts.value();
    }
}

TEST_CASE("events trace-cmd reports as dropped become explicit per-CPU gaps", "[dat][samples][lost]") {
    Trace t = load_trace(sample("lost.dat"));
    auto r = run("trace-cmd report '" + sample("lost.dat") + "'");
    std::uint64_t report_gaps = 0;
    for (std::size_t p = r.out.find("EVENTS DROPPED]"); p != std::string::npos; p = r.out.find("EVENTS DROPPED]", p + 1))
        ++report_gaps;
    REQUIRE(report_gaps > 0);
    CHECK(t.lost_markers() == report_gaps);
    for (const auto& e : t.events)
        if (e.kind == EventKind::Lost) {
            CHECK(e.cpu.value() >= 0);
            CHECK(e.f[slot::lost_count] != 0);
        }
}

TEST_CASE("vCPUs are attributed from their threads and accepts go to the destination", "[dat][samples][attribution]") {
    Trace t = load_trace(sample("pveoi-on.dat"));
    REQUIRE(t.vms.size() == 1);
    REQUIRE(t.vms[0].vcpus.size() == 4);
    for (const auto& v : t.vms[0].vcpus) {
        CHECK(v.apic_from_trace);
        CHECK(v.apic.value() == static_cast<std::uint32_t>(v.id.value()));
    }
    std::uint64_t cross = 0;
    for (const auto& e : t.events) {
        if (e.kind == EventKind::Entry) REQUIRE(e.vcpu.value() == *e.get(slot::entry_vcpu_id));
        if (e.kind == EventKind::InjVirq || e.kind == EventKind::Eoi || e.kind == EventKind::PvEoi) REQUIRE(e.vcpu != kUnknownVcpu);
        if (e.kind == EventKind::ApicAcceptIrq) {
            REQUIRE(e.vcpu.value() == static_cast<std::int32_t>(*e.get(slot::accept_apicid)));
            // sent from another vCPU's thread (an IPI): still the destination's event
            for (const auto& v : t.vms[0].vcpus)
                if (v.tid == e.tid && v.id != e.vcpu) ++cross;
        }
    }
    CHECK(cross > 100);
}

TEST_CASE("stats summary matches the raw counts", "[dat][samples]") {
    Trace t = load_trace(sample("pvipi-off.dat"));
    TraceSummary s = summarize(t);
    std::uint64_t exits = 0, per_vcpu = 0;
    for (const auto& [k, v] : s.exits_by_reason) exits += v;
    for (const auto& v : s.vcpus) per_vcpu += v.by_name.count("kvm_exit") ? v.by_name.at("kvm_exit") : 0;
    CHECK(exits == s.events.at("kvm_exit"));
    CHECK(per_vcpu == exits);
    CHECK(s.exits_by_reason.count("EXIT_MSR"));
    CHECK(s.exits_by_reason.count("EXIT_HLT"));
}

namespace {

// What a read gives: its events by name and their printed info, or its error.
std::string read_outcome(const std::string& path) {
    try {
        LoadOptions lo;
        lo.other_event_info = true;
        const Trace t = load_trace(path, lo);
        std::string out = t.meta.format + " " + t.meta.clock + " " + std::to_string(t.events.size()) + "\n";
        for (const auto& [name, n] : t.counts_by_name()) out += name + " " + std::to_string(n) + "\n";
        for (const auto& e : t.events) {
            out += t.name(e.name_id) + " " + std::to_string(e.ts.value()) + " " + std::to_string(e.cpu.value());
            for (std::size_t k = 0; k < kMaxFields; ++k) out += " " + std::to_string(e.f[k]);
            out += "\n";
        }
        return out + t.raw;
    } catch (const InputError& e) {
        return std::string("error: ") + e.what();
    }
}

}  // namespace

TEST_CASE("headers reused from an earlier file (fuzz_dat's shortcut) read a file as parsing them again would", "[dat][fuzz]") {
    struct Off {
        ~Off() { reuse_dat_headers(0); }
    } off;
    const std::string dir = std::string(IRQFLOW_SOURCE) + "/tests/fuzz/seeds/dat/";
    for (const char* seed : {"v6.dat", "v7-zstd.dat", "v7-instance.dat", "v7-lost.dat"}) {
        INFO(seed);
        std::string bytes = read_file(dir + seed);
        const std::size_t data = static_cast<std::size_t>(validate_dat(dir + seed).data_offset);
        REQUIRE(data + 200 < bytes.size());
        // the same headers over other pages: a record header and a payload byte changed
        std::string changed = bytes;
        changed[data + 16] = static_cast<char>(changed[data + 16] ^ 0x40);
        changed[data + 150] = static_cast<char>(changed[data + 150] ^ 0x7f);
        const std::string a = scratch(std::string("reuse-a-") + seed), b = scratch(std::string("reuse-b-") + seed);
        write_file(a, bytes);
        write_file(b, changed);
        reuse_dat_headers(0);
        const std::string fresh_a = read_outcome(a), fresh_b = read_outcome(b);
        reuse_dat_headers(4);
        CHECK(read_outcome(a) == fresh_a);  // parsed and kept
        CHECK(read_outcome(b) == fresh_b);  // kept headers, its own pages
        CHECK(read_outcome(a) == fresh_a);
        CHECK(fresh_a != fresh_b);
    }
}

TEST_CASE("headers libtracecmd refused are refused again when reused, naming the file read now", "[dat][fuzz]") {
    struct Off {
        ~Off() { reuse_dat_headers(0); }
    } off;
    const std::string bytes = read_file(std::string(IRQFLOW_SOURCE) + "/tests/fuzz/regressions/dat/libtracecmd-huge-allocation.dat");
    const std::string a = scratch("refused-a.dat"), b = scratch("refused-b.dat");
    write_file(a, bytes);
    write_file(b, bytes);
    reuse_dat_headers(0);
    const std::string fresh_a = read_outcome(a), fresh_b = read_outcome(b);
    // refused for its headers: "cannot parse", or "crashed while parsing" when a sanitizer
    // aborts the probe child on libtracecmd's huge allocation (ASAN_OPTIONS=abort_on_error)
    REQUIRE(fresh_a.rfind("error: ", 0) == 0);
    REQUIRE(fresh_a.find("headers (bytes 0-") != std::string::npos);
    REQUIRE(fresh_a.find("refused-a.dat") != std::string::npos);
    reuse_dat_headers(4);
    CHECK(read_outcome(a) == fresh_a);  // probed, refused, kept
    CHECK(read_outcome(b) == fresh_b);  // the kept refusal, under b's name
    CHECK(read_outcome(b) == fresh_b);
}

TEST_CASE("headers after the CPU data count as headers for reuse, and a file without CPU data is reused whole", "[dat][fuzz]") {
    struct Off {
        ~Off() { reuse_dat_headers(0); }
    } off;
    // The instance seed keeps its buffer option (the buffer's clock, its CPU list) after
    // its CPU data. With that clock name unterminated ("local(" and the bytes after it) the
    // option lists no CPU: the same bytes before the CPU data, and a file with no CPU data.
    const std::string seed = read_file(std::string(IRQFLOW_SOURCE) + "/tests/fuzz/seeds/dat/v7-instance.dat");
    std::string bytes = seed;
    const std::size_t clock = bytes.rfind(std::string("local\0\0\x10\0\0", 10));
    REQUIRE(clock != std::string::npos);
    bytes[clock + 5] = '(';
    const std::string orig = scratch("option-orig.dat"), a = scratch("no-cpu-data-a.dat"), b = scratch("no-cpu-data-b.dat");
    const std::string clock_renamed = scratch("option-clock.dat");
    write_file(orig, seed);
    write_file(a, bytes);
    std::string renamed = seed;  // the same CPU data, a clock named otherwise
    renamed.replace(clock, 5, "LOCAL");
    write_file(clock_renamed, renamed);
    REQUIRE(clock > validate_dat(orig).data_offset);
    REQUIRE(validate_dat(a).cpu_data.empty());
    bytes[bytes.size() - 1] = static_cast<char>(bytes.back() ^ 1);  // other headers
    write_file(b, bytes);
    reuse_dat_headers(0);
    const std::string fresh_orig = read_outcome(orig), fresh_a = read_outcome(a), fresh_b = read_outcome(b);
    const std::string fresh_renamed = read_outcome(clock_renamed);
    REQUIRE(fresh_a.find("trace.dat v7") == 0);
    REQUIRE(fresh_orig != fresh_a);
    REQUIRE(fresh_renamed.find(" LOCAL ") != std::string::npos);
    reuse_dat_headers(4);
    CHECK(read_outcome(orig) == fresh_orig);
    CHECK(read_outcome(clock_renamed) == fresh_renamed);  // not the seed's headers: they differ after its CPU data
    CHECK(read_outcome(a) == fresh_a);
    CHECK(read_outcome(b) == fresh_b);
    CHECK(read_outcome(a) == fresh_a);
    CHECK(read_outcome(orig) == fresh_orig);
}
