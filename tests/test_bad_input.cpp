// Bad input: never a crash, always an error naming the file and the position, and
// through the CLI a one-line message with exit code 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include "dat/child_wait.hpp"
#include "dat/dat_validate.hpp"
#include "helpers.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/serial.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

// The error a load gives, or "" when it loaded.
std::string load_error(const std::string& path, InputPosition* pos = nullptr) {
    try {
        load_trace(path);
        return {};
    } catch (const InputError& e) {
        if (pos) *pos = e.position();
        return e.what();
    }
}

void cut_at_many_offsets(const std::string& name) {
    const std::string bytes = read_file(sample(name));
    REQUIRE(bytes.size() > 100000);
    const auto full = load_trace(sample(name)).records();
    // every offset in the headers, then a spread through the data
    std::vector<std::size_t> cuts;
    for (std::size_t o = 1; o < 4096; o += 7) cuts.push_back(o);
    for (std::size_t o = 4096; o < bytes.size(); o += bytes.size() / 97) cuts.push_back(o);
    cuts.push_back(bytes.size() - 1);
    auto path = scratch("cut-" + name);
    for (auto at : cuts) {
        INFO(name << " cut at " << at);
        write_file(path, bytes.substr(0, at));
        InputPosition pos;
        std::string err = load_error(path.string(), &pos);
        // A cut file must never pass for the complete trace.
        REQUIRE(!err.empty());
        REQUIRE(err.find(path.string()) == 0);
        REQUIRE(pos.unit == InputPosition::Unit::Byte);
        REQUIRE(pos.at <= at);
    }
    (void)full;
}

}  // namespace

TEST_CASE("a trace.dat cut at any offset is an error with a position", "[badinput][dat]") {
    cut_at_many_offsets("pveoi-on.dat");               // v7, zstd
    cut_at_many_offsets("pveoi-on-midflight-v6.dat");  // v6, uncompressed
    cut_at_many_offsets("instance.dat");               // v7, buffer instance
}

TEST_CASE("empty or random or foreign files are clear errors", "[badinput]") {
    auto empty = scratch("empty.dat");
    write_file(empty, "");
    CHECK(load_error(empty.string()).find("empty file") != std::string::npos);

    std::mt19937 rng(42);
    std::string noise(1 << 16, '\0');
    for (auto& c : noise) c = static_cast<char>(rng());
    auto rnd = scratch("random.bin");
    write_file(rnd, noise);
    CHECK_FALSE(load_error(rnd.string()).empty());

    auto elf = scratch("elf");
    write_file(elf, read_file("/bin/true"));
    CHECK_FALSE(load_error(elf.string()).empty());

    CHECK(load_error("/nonexistent/trace.dat").find("no such file") != std::string::npos);
}

TEST_CASE("a trace.dat with a corrupt header is refused and never crashes", "[badinput][dat]") {
    const std::string bytes = read_file(sample("pveoi-on-midflight-v6.dat"));
    auto path = scratch("corrupt.dat");
    std::mt19937 rng(7);
    int refused = 0;
    for (int i = 0; i < 200; ++i) {
        std::string b = bytes;
        // flip bytes inside the header area (magic excluded)
        for (int k = 0; k < 4; ++k) b[10 + rng() % 4000] = static_cast<char>(rng());
        write_file(path, b);
        std::string err = load_error(path.string());
        refused += !err.empty();
    }
    // Some flips land in format text that still parses; the rest must be refused.
    CHECK(refused > 0);
}

TEST_CASE("the CLI prints one line naming the file and exits 2 on bad input", "[badinput][cli]") {
    auto path = scratch("half.dat");
    const std::string bytes = read_file(sample("pveoi-on.dat"));
    write_file(path, bytes.substr(0, bytes.size() / 2));
    for (const char* cmd : {"stats", "events"}) {
        auto r = run(cli() + " " + cmd + " '" + path.string() + "'", true);
        CHECK(r.status == 2);
        CHECK(r.out.find(path.string()) != std::string::npos);
        CHECK(r.out.find("byte ") != std::string::npos);
        CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    }
    auto text = scratch("garbage.txt");
    write_file(text, " qemu-1 [000] 1.000001: kvm_entry: vcpu 0, rip 0x1\n\x01\x02garbage\n");
    auto r = run(cli() + " stats '" + text.string() + "'", true);
    CHECK(r.status == 2);
    CHECK(r.out.find("line 2") != std::string::npos);
    CHECK(run(cli() + " stats", true).status == 64);
    CHECK(run(cli() + " frobnicate x", true).status == 64);
}

TEST_CASE("checking the headers first finds what loading would, and loading after it reads the same", "[badinput][dat]") {
    const std::string whole = read_file(sample("pveoi-on.dat"));
    for (std::size_t cut : {std::size_t{100}, std::size_t{1000}, whole.size() / 2}) {
        auto p = scratch("check-" + std::to_string(cut) + ".dat");
        write_file(p, whole.substr(0, cut));
        std::string from_check, from_load;
        try {
            check_trace_headers(p.string());
        } catch (const InputError& e) {
            from_check = e.what();
        }
        try {
            load_trace(p.string());
        } catch (const InputError& e) {
            from_load = e.what();
        }
        INFO("cut at " << cut);
        CHECK(!from_check.empty());
        CHECK(from_check == from_load);
    }
    check_trace_headers(sample("pveoi-on.dat"));  // a good file passes
    LoadOptions checked;
    checked.headers_checked = true;
    CHECK(load_trace(sample("pveoi-on.dat"), checked).events.size() == load_trace(sample("pveoi-on.dat")).events.size());
    CHECK_THROWS_AS(check_trace_headers(scratch("does-not-exist.dat").string()), InputError);
}

TEST_CASE("numbers out of range in text are errors or absent values, never overflow", "[badinput][text]") {
    // seconds whose nanoseconds do not fit in 64 bits: a malformed header, with its line
    auto ts = scratch("ts-overflow.txt");
    write_file(ts, " qemu-kvm-1  [000]   99999999999999.000001: kvm_entry: vcpu 0, rip 0x10\n");
    try {
        load_trace(ts.string());
        FAIL("no error");
    } catch (const InputError& e) {
        CHECK(e.position().at == 1);
    }
    // a field at INT64_MIN parses; one below it does not (the event is kept raw, with a warning)
    auto neg = scratch("int64-min.txt");
    write_file(neg, " qemu-kvm-1  [000]   1.000001: kvm_eoi: apicid 0 vector -9223372036854775808\n"
                    " qemu-kvm-1  [000]   1.000002: kvm_eoi: apicid 0 vector -9223372036854775809\n");
    const Trace t = load_trace(neg.string());
    REQUIRE(t.events.size() == 2);
    CHECK(t.events[0].get(slot::eoi_vector) == INT64_MIN);
    CHECK(t.events[1].kind == EventKind::Other);
    CHECK(std::count_if(t.meta.warnings.begin(), t.meta.warnings.end(),
                        [](const std::string& w) { return w.find("1 kvm events in an unknown print format") == 0; }) == 1);
}

TEST_CASE("a text cut right after a timestamp says so instead of dropping the record silently", "[badinput][text]") {
    auto cut = scratch("cut.txt");
    write_file(cut, " qemu-kvm-1  [000]   1.000001: kvm_entry: vcpu 0, rip 0x10\n qemu-kvm-1  [000]   1.000002:");
    const Trace t = load_trace(cut.string());
    CHECK(t.records() == 1);
    REQUIRE(t.meta.warnings.size() == 1);
    CHECK(t.meta.warnings[0].find("ends mid-record: line 2") != std::string::npos);
    auto r = run(cli() + " check '" + cut.string() + "'");
    CHECK(r.out.find("warning: the text ends mid-record") != std::string::npos);
}

TEST_CASE("a serial log's odd printk stamps are plain lines, not a crash", "[badinput][serial]") {
    auto log = scratch("odd-printk.log");
    write_file(log, "[.] a\n[1.] b\n[.5] c\n[1.2.3] d\n[99999999999.000000] e\n[    3.505352] f\n");
    auto r = run(cli() + " events --kind serial --serial '" + log.string() + "' '" + sample("pit.dat") + "'");
    CHECK(r.status == 0);
    const SerialLog s = read_serial_log(log.string());
    REQUIRE(s.lines.size() == 6);
    for (int i = 0; i < 5; ++i) CHECK_FALSE(s.lines[static_cast<std::size_t>(i)].printk_s);
    CHECK(s.lines[5].printk_s == Approx(3.505352));
}

TEST_CASE("a latency-format trace.dat is refused with a reason, not read by libtracecmd's iterator", "[badinput][dat]") {
    // What trace-cmd writes for a latency tracer: the v6 headers, then "latency  " and
    // the tracer's printed text instead of the flyrecord section.
    const std::string v6 = read_file(sample("pveoi-on-midflight-v6.dat"));
    const std::size_t fly = v6.find(std::string("flyrecord\0", 10));
    REQUIRE(fly != std::string::npos);
    auto lat = scratch("latency.dat");
    write_file(lat, v6.substr(0, fly) + std::string("latency  \0", 10) +
                        "# tracer: irqsoff\n  qemu-system-x86-1234  0d..1    0us : kvm_entry: vcpu 0, rip 0x10\n");
    REQUIRE(run("trace-cmd report '" + lat.string() + "' >/dev/null 2>&1").status == 0);  // a file trace-cmd reads
    InputPosition pos;
    CHECK(load_error(lat.string(), &pos).find("latency-format trace.dat") != std::string::npos);
    CHECK(pos.at == fly);
    for (const char* cmd : {"check", "stats", "predict"}) {
        auto r = run(cli() + " " + cmd + " '" + lat.string() + "'", true);
        CHECK(r.status == 2);
        CHECK(r.out.find("latency-format") != std::string::npos);
    }
}

TEST_CASE("a helper child that never finishes is killed at its deadline, one that ends is reaped", "[badinput][dat]") {
    using namespace std::chrono;
    const pid_t stuck = fork();
    REQUIRE(stuck >= 0);
    if (stuck == 0) {
        for (;;) pause();  // what a deadlocked header parse looks like from outside
    }
    const auto t0 = steady_clock::now();
    const ChildResult r = wait_child(stuck, milliseconds(200));
    CHECK(r.timed_out);
    CHECK(WIFSIGNALED(r.status));
    CHECK(steady_clock::now() - t0 < seconds(5));
    CHECK(kill(stuck, 0) != 0);  // reaped: no such process any more

    const pid_t quick = fork();
    REQUIRE(quick >= 0);
    if (quick == 0) _exit(3);
    const ChildResult q = wait_child(quick, seconds(30));
    CHECK_FALSE(q.timed_out);
    CHECK(WIFEXITED(q.status));
    CHECK(WEXITSTATUS(q.status) == 3);
}

TEST_CASE("a compressed chunk's sizes are checked against the file before anything is allocated for them", "[badinput][dat]") {
    const std::string v7 = read_file(sample("pveoi-on.dat"));  // zstd
    const DatLayout layout = validate_dat(sample("pveoi-on.dat"));
    REQUIRE(layout.compressed);
    const auto d = std::find_if(layout.cpu_data.begin(), layout.cpu_data.end(), [](const CpuData& c) { return c.size > 16; });
    REQUIRE(d != layout.cpu_data.end());
    auto patch = [&](std::size_t at, std::uint32_t v) {
        std::string b = v7;
        std::memcpy(b.data() + at, &v, 4);
        return b;
    };
    auto p = scratch("chunk-size.dat");
    // compressed size of the first chunk: 4 GB claimed in a file of a few hundred KB
    write_file(p, patch(d->offset + 4, 0xfffffff0u));
    InputPosition pos;
    CHECK(load_error(p.string(), &pos).find("runs past its CPU data region") != std::string::npos);
    CHECK(pos.at == d->offset + 4);
    // uncompressed size that disagrees with what the zstd frame says it holds
    std::uint32_t usize = 0;
    std::memcpy(&usize, v7.data() + d->offset + 8, 4);
    write_file(p, patch(d->offset + 8, usize / 2));
    CHECK(load_error(p.string()).find("compressed chunk") != std::string::npos);
}

// Found by fuzz_dat: a page whose time extend put records past 2^63 ns read as negative
// times, and a replay rule's subtraction of two of them overflowed.
TEST_CASE("a record time beyond the signed range of nanoseconds is refused at its page", "[badinput][dat]") {
    InputPosition pos;
    const std::string dat = std::string(IRQFLOW_SOURCE) + "/tests/fuzz/regressions/dat/record-time-beyond-int64.dat";
    CHECK(load_error(dat, &pos).find("beyond any clock's range") != std::string::npos);
    CHECK(pos.at == 57344);  // the page that holds it
}

// Found by fuzz_dat: a 30 KB file whose zstd frame does not state its size, behind a chunk
// that claims 256 MB, had 256 MB allocated and zeroed before the data was found corrupt.
TEST_CASE("a compressed chunk is inflated only as far as its data goes", "[badinput][dat]") {
    const std::string bomb = std::string(IRQFLOW_SOURCE) + "/tests/fuzz/regressions/dat/zstd-chunk-256m-unstated.dat";
    InputPosition pos;
    CHECK(load_error(bomb, &pos).find("corrupt compressed chunk") != std::string::npos);
    CHECK(pos.at == 28676);
    if (kSanitized) return;  // ASan reserves terabytes of address space: no limit fits it
    const auto r = run("ulimit -v 131072; " + cli() + " events '" + bomb + "'", true);  // 128 MB for irqflow
    CHECK(r.status == 2);
    CHECK(r.out.find("byte 28676: corrupt compressed chunk") != std::string::npos);
}

TEST_CASE("a text cut anywhere inside its last line says its last event may be cut short", "[badinput][text]") {
    const std::string whole = run("trace-cmd report '" + sample("pit.dat") + "' 2>/dev/null | head -400").out;
    REQUIRE(whole.size() > 10000);
    auto path = scratch("cut-mid-line.txt");
    int cuts = 0;
    for (std::size_t at = whole.size() / 2; at < whole.size(); at += 997) {
        if (whole[at - 1] == '\n') continue;  // a cut at a line end is a complete text
        write_file(path, whole.substr(0, at));
        const Trace t = load_trace(path.string());
        INFO("cut at " << at << ": ..." << whole.substr(at - 40, 40));
        const bool said = std::any_of(t.meta.warnings.begin(), t.meta.warnings.end(),
                                      [](const std::string& w) { return w.find("mid-record") != std::string::npos; });
        CHECK(said);
        ++cuts;
    }
    CHECK(cuts > 5);
    write_file(path, whole);  // the whole text ends with its line end: nothing to say
    const Trace t = load_trace(path.string());
    CHECK(std::none_of(t.meta.warnings.begin(), t.meta.warnings.end(),
                       [](const std::string& w) { return w.find("mid-record") != std::string::npos; }));
}

// ASan reserves terabytes of address space: an address-space limit only fits the plain
// build. The CLI is built with this file's flags; GCC's ASan is a shared library, clang's
// is linked in, so the compiler says it (kSanitized, helpers.hpp) rather than ldd.

TEST_CASE("a file that is no trace is refused from its first bytes in constant memory: 2 GB of zeros, a NUL at byte 27, one endless line", "[badinput][cli]") {
    const std::string limit = kSanitized ? "" : "ulimit -v 524288; ";  // 512 MB of address space for irqflow
    auto refused = [&](const std::string& cmd, const std::filesystem::path& p) {
        return run("bash -c \"" + limit + "exec " + cli() + " " + cmd + " '" + p.string() + "'\"", true);
    };
    // a sparse 2 GB file (no disk used): it used to be read whole before it was sniffed
    const auto sparse = scratch("sparse-2g.bin");
    std::filesystem::remove(sparse);
    write_file(sparse, "");
    std::filesystem::resize_file(sparse, std::uintmax_t{2} << 30);
    for (const char* cmd : {"stats", "check", "events"}) {
        INFO(cmd);
        const auto r = refused(cmd, sparse);
        CHECK(r.status == 2);
        CHECK(r.out == "irqflow: " + sparse.string() + ": byte 0: binary data (a NUL byte): neither a trace.dat (no tracing magic at byte 0) nor report text\n");
    }
    std::filesystem::remove(sparse);
    // report text with a NUL at byte 27: that byte is named
    const auto nul = scratch("nul-at-27.txt");
    std::string text = " qemu-1 [000] 1.000001: kvm";  // 27 bytes (offsets 0..26), then the NUL
    REQUIRE(text.size() == 27);
    text += '\0';
    text += "_entry: vcpu 0, rip 0x1\n";
    write_file(nul, text);
    CHECK(refused("stats", nul).out.find(": byte 27: binary data") != std::string::npos);
    // 3 MiB without a line end and without a NUL: refused at its first MiB, not read whole
    const auto line = scratch("one-long-line.txt");
    write_file(line, std::string(std::size_t{3} << 20, 'a'));
    const auto r = refused("stats", line);
    CHECK(r.status == 2);
    CHECK(r.out.find("line 1: a line longer than 1 MiB (from byte 0): not trace text") != std::string::npos);
}

TEST_CASE("a FIFO nobody writes to says, on a terminal, that it waits for data, and off a terminal it stays quiet", "[badinput][cli]") {
    if (run("command -v script").status != 0) {
        WARN("script (util-linux) not installed: terminal test skipped");
        return;
    }
    const auto report = scratch("fifo-report.txt");
    write_file(report, run("trace-cmd report '" + sample("pveoi-on-midflight-v6.dat") + "' 2>/dev/null | head -3000").out);
    const auto fifo = scratch("wait.fifo");
    std::filesystem::remove(fifo);
    REQUIRE(run("mkfifo '" + fifo.string() + "'").status == 0);
    // the writer gives up after 30 s: an irqflow that never opened the FIFO fails the test
    // instead of leaving a writer blocked in open() and the test waiting for its output
    const std::string writer = "(sleep 4; timeout 30 dd status=none if='" + report.string() + "' of='" + fifo.string() + "') & ";
    // script gives irqflow a terminal: the notice comes after 3 s, then the answer
    const auto on_tty = run(writer + "script -qfec \"" + cli() + " stats '" + fifo.string() + "'\" /dev/null", true);
    INFO(on_tty.out);
    const auto notice = on_tty.out.find(fifo.string() + ": waiting for data (nothing came for 3 s)");
    CHECK(notice != std::string::npos);
    CHECK(on_tty.out.find("events over") > notice);
    // a pipe to a log: no such line
    const auto off_tty = run(writer + cli() + " stats '" + fifo.string() + "' 2>&1", true);
    CHECK(off_tty.status == 0);
    CHECK(off_tty.out.find("waiting for data") == std::string::npos);
    CHECK(off_tty.out.find("events over") != std::string::npos);
}
