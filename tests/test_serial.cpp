// Guest serial logs aligned to host time, on the real samples.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "edit_events.hpp"
#include "helpers.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/serial.hpp"

using namespace irqflow;
using namespace irqflow::test;

TEST_CASE("serial lines align exactly to the UART writes in the trace", "[serial][samples]") {
    for (std::string name : {"pveoi-on", "pveoi-off", "pvipi-off", "hyperv", "xapic"}) {
        INFO(name);
        Trace t = load_trace(sample(name + ".dat"));
        SerialLog log = read_serial_log(sample(name + "-serial.log"));
        REQUIRE(log.lines.size() >= 8);
        align_serial(t, log);
        CHECK(log.matched_bytes == log.bytes.size());
        UartStream u = rebuild_uart(t, log.vm);
        CHECK(u.bytes == log.bytes);  // the log is exactly what the guest wrote
        std::int64_t prev = 0;
        for (const auto& l : log.lines) {
            REQUIRE(l.alignment == SerialAlignment::Pio);
            REQUIRE(l.host_ts);
            REQUIRE(l.host_ts->value() >= prev);
            prev = l.host_ts->value();
            // the line's first byte was written by a kvm_pio at exactly that time
            auto it = std::find(u.ts.begin(), u.ts.end(), *l.host_ts);
            REQUIRE(it != u.ts.end());
            REQUIRE(u.bytes[static_cast<std::size_t>(it - u.ts.begin())] == log.bytes[l.offset]);
        }
    }
}

TEST_CASE("without UART writes printk times with a boot-anchored offset are used and labelled", "[serial][samples]") {
    Trace t = load_trace(sample("pveoi-on.dat"));
    SerialLog exact = read_serial_log(sample("pveoi-on-serial.log"));
    align_serial(t, exact);
    test::edit_events(t, [](auto& v) { std::erase_if(v, [](const Event& e) { return e.kind == EventKind::Pio; }); });
    SerialLog approx = read_serial_log(sample("pveoi-on-serial.log"));
    align_serial(t, approx);
    CHECK(approx.method.rfind("approximate", 0) == 0);
    std::int64_t worst = 0;
    for (std::size_t i = 0; i < approx.lines.size(); ++i) {
        const auto& a = approx.lines[i];
        if (a.printk_s) REQUIRE(a.alignment == SerialAlignment::PrintkOffset);
        else if (a.host_ts) REQUIRE(a.alignment == SerialAlignment::Neighbour);
        if (a.alignment == SerialAlignment::PrintkOffset)
            worst = std::max<std::int64_t>(worst, std::llabs(a.host_ts->value() - exact.lines[i].host_ts->value()));
    }
    // Guest time zero is the first vCPU entry, before firmware runs; the printk clock
    // starts later, so lines land early by the firmware's boot time (measured ~3.7 s
    // under nested TCG; seconds, not minutes).
    INFO("worst printk-offset error " << worst / 1000000 << " ms");
    CHECK(worst < 10'000'000'000);
}

TEST_CASE("CRLF and invalid UTF-8 and binary garbage in a log are tolerated", "[serial]") {
    std::string real = read_file(sample("pveoi-on-serial.log"));
    const std::size_t mid = real.find("plain line 1");
    REQUIRE(mid != std::string::npos);
    std::string junk = std::string("\x00\x01\xff\xfe\xc3(", 6) + "noise\r\n";
    auto path = scratch("garbage-serial.log");
    write_file(path, real.substr(0, mid) + junk + real.substr(mid));
    SerialLog log = read_serial_log(path.string());
    bool replaced = false;
    for (const auto& l : log.lines) replaced = replaced || l.text.find("\xEF\xBF\xBD") != std::string::npos;
    CHECK(replaced);
    Trace t = load_trace(sample("pveoi-on.dat"));
    align_serial(t, log);
    // every real byte still finds its UART write; the junk finds none
    CHECK(log.matched_bytes == real.size());
    for (const auto& l : log.lines)
        if (l.text.find("plain line") != std::string::npos) CHECK(l.alignment == SerialAlignment::Pio);
}

TEST_CASE("divisor-latch writes are not console bytes", "[serial]") {
    // LCR (0x3fb) bit 7 set → 0x3f8 writes set the baud divisor, not data.
    std::string text;
    auto pio = [&text](int n, int port, int val) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      " qemu-kvm-10  [000]   1.%06d: kvm_pio:              pio_write at 0x%x size 1 count 1 val 0x%x\n", n,
                      port, val);
        text += buf;
    };
    text += " qemu-kvm-10  [000]   1.000000: kvm_entry: vcpu 0, rip 0xfff0\n";
    pio(1, 0x3fb, 0x83);
    pio(2, 0x3f8, 0x01);  // divisor low
    pio(3, 0x3fb, 0x03);
    pio(4, 0x3f8, 'o');
    pio(5, 0x3f8, 'k');
    auto path = scratch("dlab.txt");
    write_file(path, text);
    Trace t = load_trace(path.string());
    REQUIRE(t.vms.size() == 1);
    CHECK(rebuild_uart(t, t.vms[0].id).bytes == "ok");
}

TEST_CASE("lines the UART writes miss are placed with an offset fitted on the exact ones", "[serial][samples]") {
    Trace t = load_trace(sample("pveoi-on.dat"));
    SerialLog exact = read_serial_log(sample("pveoi-on-serial.log"));
    align_serial(t, exact);
    // Lose every kvm_pio after the 6th line was written (as a gap or a capture end would).
    const auto cut = exact.lines[5].host_ts->value();
    test::edit_events(t, [cut](auto& v) {
        std::erase_if(v, [cut](const Event& e) { return e.kind == EventKind::Pio && e.ts.value() > cut; });
    });
    SerialLog log = read_serial_log(sample("pveoi-on-serial.log"));
    align_serial(t, log);
    std::int64_t worst = 0;
    int fitted = 0;
    for (std::size_t i = 0; i < log.lines.size(); ++i)
        if (log.lines[i].alignment == SerialAlignment::PrintkOffset) {
            ++fitted;
            worst = std::max<std::int64_t>(worst, std::llabs(log.lines[i].host_ts->value() - exact.lines[i].host_ts->value()));
        }
    INFO("fitted lines " << fitted << ", worst error " << worst / 1000 << " us");
    CHECK(fitted >= 3);
    CHECK(worst < 50'000'000);  // within 50 ms of the exact UART time
    CHECK(log.method.find("fitted") != std::string::npos);
}

TEST_CASE("a trace.dat or perf.data given as the serial log is refused, naming the file", "[serial][badinput]") {
    for (const std::string& f : {sample("pveoi-on.dat"), sample("pveoi-on-midflight-v6.dat")}) {
        INFO(f);
        try {
            read_serial_log(f);
            FAIL("accepted a trace.dat as a console log");
        } catch (const irqflow::InputError& e) {
            CHECK(std::string(e.what()) == f + ": byte 0: binary data, not a text console log (this is a trace.dat)");
        }
    }
    auto perf = scratch("perf.data");
    write_file(perf, std::string("PERFILE2") + std::string(100, '\0'));
    CHECK_THROWS_AS(read_serial_log(perf.string()), irqflow::InputError);
    // mostly NUL bytes after 27 good ones: refused, naming the first NUL (it said byte 0)
    auto late = scratch("nul-at-27.log");
    write_file(late, std::string("a console line, 27 bytes...") + std::string(64, '\0'));
    try {
        read_serial_log(late.string());
        FAIL("accepted NUL bytes as a console log");
    } catch (const irqflow::InputError& e) {
        CHECK(std::string(e.what()) == late.string() + ": byte 27: binary data (NUL bytes, the first one here), not a text console log");
    }
    // a stray NUL from firmware in a real console log is not binary
    auto stray = scratch("stray-nul.log");
    const char text[] = "SeaBIOS\0 (version 1.16)\n";
    std::string log(text, sizeof text - 1);
    for (int i = 0; i < 20; ++i) log += "[    0.000000] Linux version 6.1.0 (a line of a real boot log)\n";
    write_file(stray, log);
    CHECK(read_serial_log(stray.string()).lines.size() == 21);
}

TEST_CASE("a log that is not this guest's console is placed nowhere, and says why", "[serial][samples][badinput]") {
    auto placed = [](const SerialLog& log) {
        return std::count_if(log.lines.begin(), log.lines.end(), [](const SerialLine& l) { return l.host_ts.has_value(); });
    };
    // random bytes share single bytes and short words with any console, never 8-byte runs
    std::string noise(1 << 20, '\0');
    std::uint64_t x = 88172645463325252ull;
    for (auto& c : noise) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = static_cast<char>(x);
    }
    auto rnd = scratch("random-serial.log");
    write_file(rnd, noise);
    const Trace on = load_trace(sample("pveoi-on.dat"));
    SerialLog r = read_serial_log(rnd.string());
    align_serial(on, r);
    CHECK(r.method.rfind("none: the log does not match", 0) == 0);
    CHECK(r.matched_bytes == 0);
    CHECK(placed(r) == 0);
    // another boot of the same kernel and workload shares most text but no printk stamp
    for (const char* other : {"pit", "xapic", "lossy"}) {
        INFO(other);
        SerialLog o = read_serial_log(sample(std::string(other) + "-serial.log"));
        align_serial(on, o);
        CHECK(o.method.find("none of its 6 printk stamps") != std::string::npos);
        CHECK(placed(o) == 0);
    }
    // a lossy capture keeping 92 of its 572 bytes still recognises its own log by them
    const Trace lossy = load_trace(sample("lossy.dat"));
    SerialLog own = read_serial_log(sample("lossy-serial.log"));
    align_serial(lossy, own);
    CHECK(own.method.rfind("exact: ", 0) == 0);
    SerialLog foreign = read_serial_log(sample("pveoi-on-serial.log"));
    align_serial(lossy, foreign);
    CHECK(placed(foreign) == 0);
    CHECK(foreign.method.find("another VM's or another boot's console?") != std::string::npos);  // its stamps say so
}

TEST_CASE("a console log a lossy trace cannot place blames the trace's gaps, not another console", "[serial][samples][cli]") {
    // lossy's report text as if half its UART writes had been lost too (every second
    // one gone: no 8-byte run left), and pveoi-on's, which lost nothing, cut the same way
    for (const auto& [name, cause] : {std::pair{std::string("lossy"), std::string("(the trace lost events in 168 gaps: the guest's writes during them are not in it)")},
                                     std::pair{std::string("pveoi-on"), std::string("(another VM's or another boot's console?)")}}) {
        INFO(name);
        std::istringstream in(run("trace-cmd report '" + sample(name + ".dat") + "'").out);
        std::string text, line;
        for (int n = 0; std::getline(in, line);)
            if (line.find("pio_write at 0x3f8") == std::string::npos || n++ % 2 == 0) text += line + "\n";
        const auto cut = scratch(name + "-half-uart.txt");
        write_file(cut, text);
        const auto r = run(cli() + " check '" + cut.string() + "' --serial '" + sample(name + "-serial.log") + "'", true);
        CHECK(r.out.find("irqflow: serial " + sample(name + "-serial.log") + ": none: the log does not match") != std::string::npos);
        CHECK(r.out.find(cause) != std::string::npos);
    }
}
