#include "irqflow/capture/serial.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "../sniff.hpp"
#include "irqflow/capture/error.hpp"

namespace irqflow {

const char* to_string(SerialAlignment a) {
    switch (a) {
    case SerialAlignment::Pio: return "pio";
    case SerialAlignment::PrintkOffset: return "printk-offset";
    case SerialAlignment::Neighbour: return "neighbour";
    case SerialAlignment::None: break;
    }
    return "none";
}

namespace {

// Printable rendering: control bytes dropped (tabs kept), invalid UTF-8 → U+FFFD.
std::string clean_text(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c >= 0x20 || c == '\t') out += static_cast<char>(c);
            ++i;
            continue;
        }
        int more = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
        bool ok = more > 0 && c != 0xc0 && c != 0xc1 && i + static_cast<std::size_t>(more) < s.size() + 1;
        for (int k = 1; ok && k <= more; ++k)
            ok = i + static_cast<std::size_t>(k) < s.size() && (static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) & 0xc0) == 0x80;
        if (ok) {
            out.append(s.substr(i, static_cast<std::size_t>(more) + 1));
            i += static_cast<std::size_t>(more) + 1;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

constexpr double kMaxPrintkSeconds = 1e9;

// "[    3.505352] rest" → 3.505352
std::optional<double> printk_time(std::string_view s) {
    if (s.size() < 3 || s[0] != '[') return std::nullopt;
    std::size_t close = s.find(']');
    if (close == std::string_view::npos || close > 20) return std::nullopt;
    std::string num(s.substr(1, close - 1));
    num.erase(0, num.find_first_not_of(' '));
    // digits, one dot, digits; and an uptime a kernel can have (below 10^9 s), so
    // host-time arithmetic on it cannot overflow
    const std::size_t dot = num.find('.');
    if (dot == 0 || dot == std::string::npos || dot + 1 == num.size() || num.find('.', dot + 1) != std::string::npos) return std::nullopt;
    for (char c : num)
        if (!(c == '.' || (c >= '0' && c <= '9'))) return std::nullopt;
    double v = 0;
    const auto r = std::from_chars(num.data(), num.data() + num.size(), v);
    if (r.ec != std::errc() || r.ptr != num.data() + num.size() || v >= kMaxPrintkSeconds) return std::nullopt;
    return v;
}

}  // namespace

SerialLog read_serial_log(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, {}, "cannot open serial log");
    SerialLog log;
    log.source = path;
    // A console log is text. A trace.dat or perf.data given by mistake (or anything
    // more than 1 % NUL bytes) is refused: aligning it would place garbage lines. A stray
    // NUL from firmware on a real console is fine. The first 64 KiB decide, before the
    // rest is read, so a huge binary file costs nothing to refuse.
    std::string head = read_head(in);
    const bool dat = has_dat_magic(head), perf = has_perf_magic(head);
    if (dat || perf)
        throw InputError(path, {InputPosition::Unit::Byte, 0},
                         std::string("binary data, not a text console log") + (dat ? " (this is a trace.dat)" : " (this is a perf.data)"));
    if (static_cast<std::size_t>(std::count(head.begin(), head.end(), '\0')) * 100 > head.size())
        throw InputError(path, {InputPosition::Unit::Byte, head.find('\0')}, "binary data (NUL bytes, the first one here), not a text console log");
    log.bytes = std::move(head);
    log.bytes.append(std::istreambuf_iterator<char>(in), {});
    std::size_t start = 0;
    std::uint64_t lineno = 0;
    while (start < log.bytes.size()) {
        std::size_t nl = log.bytes.find('\n', start);
        std::size_t end = nl == std::string::npos ? log.bytes.size() : nl;
        std::string_view raw(log.bytes.data() + start, end - start);
        while (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
        SerialLine l;
        l.line = ++lineno;
        l.offset = start;
        l.text = clean_text(raw);
        l.printk_s = printk_time(l.text);
        log.lines.push_back(std::move(l));
        start = end + 1;
    }
    return log;
}

namespace {

// Every VM's UART stream in one pass over the events (a pass per VM cost VMs × events),
// indexed by VM id.
std::vector<UartStream> rebuild_uarts(const Trace& trace, std::uint16_t port) {
    std::vector<UartStream> out(trace.vms.size());
    std::vector<bool> dlab(trace.vms.size());
    const EventStore& events = trace.events;
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (events.kind(i) != EventKind::Pio) continue;  // decode only the port I/O
        const Event e = events[i];
        if (e.vm.value() < 0 || static_cast<std::size_t>(e.vm.value()) >= out.size()) continue;
        const auto vm = static_cast<std::size_t>(e.vm.value());
        auto rw = e.get(slot::pio_rw), p = e.get(slot::pio_port), val = e.get(slot::pio_val);
        if (!rw || *rw != 1 || !p || !val) continue;
        if (*p == port + 3) { dlab[vm] = (*val & 0x80) != 0; continue; }  // line control register
        if (*p != port || dlab[vm]) continue;                               // DLAB: divisor, not data
        auto count = e.get(slot::pio_count).value_or(1);
        if (count != 1) continue;  // rep outsb: the trace shows only the first byte
        out[vm].bytes += static_cast<char>(*val & 0xff);
        out[vm].ts.push_back(e.ts);
    }
    return out;
}

}  // namespace

UartStream rebuild_uart(const Trace& trace, VmId vm, std::uint16_t port) {
    auto all = rebuild_uarts(trace, port);
    const bool known = vm.value() >= 0 && static_cast<std::size_t>(vm.value()) < all.size();
    return known ? std::move(all[static_cast<std::size_t>(vm.value())]) : UartStream{};
}

namespace {

std::string hex(unsigned v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%x", v);
    return b;
}

// A stretch of the log found byte for byte in the UART stream.
struct Run {
    std::size_t log = 0, uart = 0, len = 0;
};

// Shorter common stretches are chance (a random file shares single bytes and short
// words with any console); a lossy capture still keeps most words of 8+ bytes.
constexpr std::size_t kMinRun = 8;

std::uint64_t gram(const char* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// Common stretches of at least kMinRun bytes, in order in both: from the current log
// byte, the next UART occurrences of its 8 bytes (an index, so the walk is linear, not
// a search of the UART stream per byte) are extended as far as they match and the
// longest of the first few is taken; with none, the log byte never reached the UART
// in the traced window (capture start or end, lost events).
std::vector<Run> match_runs(const std::string& log, const std::string& uart) {
    static_assert(kMinRun == sizeof(std::uint64_t));
    std::vector<Run> out;
    if (uart.size() < kMinRun || log.size() < kMinRun) return out;
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> at;
    for (std::size_t p = 0; p + kMinRun <= uart.size(); ++p) at[gram(uart.data() + p)].push_back(p);
    constexpr std::size_t kCandidates = 4;
    std::size_t i = 0, j = 0;  // uart, log
    while (j + kMinRun <= log.size() && i + kMinRun <= uart.size()) {
        auto it = at.find(gram(log.data() + j));
        Run best;
        if (it != at.end()) {
            auto p = std::lower_bound(it->second.begin(), it->second.end(), i);
            for (std::size_t k = 0; k < kCandidates && p != it->second.end(); ++k, ++p) {
                std::size_t len = kMinRun;
                while (j + len < log.size() && *p + len < uart.size() && log[j + len] == uart[*p + len]) ++len;
                if (len > best.len) best = {j, *p, len};
            }
        }
        if (best.len == 0) {
            ++j;
            continue;
        }
        // A run that skips UART bytes loses to one a little later in the log that goes
        // on where the UART stream stands (garbage in the log followed by the next line).
        if (best.uart != i) {
            const std::uint64_t here = gram(uart.data() + i);
            std::size_t k = j + 1;
            while (k < j + best.len && k + kMinRun <= log.size() && gram(log.data() + k) != here) ++k;
            if (k < j + best.len && k + kMinRun <= log.size()) {
                j = k;
                continue;
            }
        }
        out.push_back(best);
        j += best.len;
        i = best.uart + best.len;
    }
    return out;
}

// Positions of the ']' closing a printk stamp ("12.345678]") other than 0.000000 in the
// UART stream: the stamp of a later line is unique to one boot. The '[' and padding
// are not required: a lossy capture may keep only the end of a stamp.
std::vector<std::size_t> boot_stamps(const std::string& uart) {
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::vector<std::size_t> out;
    for (std::size_t close = uart.find(']', 8); close != std::string::npos; close = uart.find(']', close + 1)) {
        if (uart[close - 7] != '.' || !digit(uart[close - 8])) continue;
        bool ok = true, nonzero = false;
        for (std::size_t k = close - 8; k < close; ++k) {
            if (k == close - 7) continue;
            ok = ok && digit(uart[k]);
            nonzero = nonzero || (uart[k] != '0');
        }
        if (ok && nonzero) out.push_back(close);
    }
    return out;
}

std::optional<TimestampNs> boot_anchor(const Trace& trace, VmId vm) {
    // Guest time zero ≈ the first entry of its first vCPU — only when the trace saw the
    // VM start (first entry at the reset vector 0xfff0).
    for (const auto& e : trace.events)
        if (e.kind == EventKind::Entry && e.vm == vm) {
            auto rip = e.get(slot::entry_rip);
            if (rip && *rip == 0xfff0) return e.ts;
            return std::nullopt;
        }
    return std::nullopt;
}

// Why a log may not match the UART writes: another boot's console when the printk
// stamps say so; else, when the trace lost events, its gaps (the writes made during
// them are not in it); else another console.
std::string mismatch_cause(const Trace& trace, bool stamps_disagree) {
    if (stamps_disagree) return " (another VM's or another boot's console?)";
    std::size_t gaps = 0;
    for (std::size_t i = 0; i < trace.events.size(); ++i) gaps += trace.events.kind(i) == EventKind::Lost;
    if (gaps == 0) return " (another VM's or another boot's console?)";
    return " (the trace lost events in " + std::to_string(gaps) + " gap" + (gaps == 1 ? "" : "s") +
           ": the guest's writes during them are not in it)";
}

}  // namespace

void align_serial(const Trace& trace, SerialLog& log, std::uint16_t port) {
    // The VM that wrote the most to this UART is the one whose console this is.
    UartStream best;
    std::vector<UartStream> streams = rebuild_uarts(trace, port);
    for (const auto& vm : trace.vms) {
        UartStream& u = streams[static_cast<std::size_t>(vm.id.value())];
        if (log.vm == kUnknownVm || u.bytes.size() > best.bytes.size()) {
            best = std::move(u);
            log.vm = vm.id;
        }
    }
    log.uart_bytes = best.bytes.size();
    const std::vector<Run> runs = match_runs(log.bytes, best.bytes);
    // Is this log that VM's console at all? Runs must cover at least half of the UART
    // bytes from the first to the last of them, and when the guest stamped lines with
    // printk times, at least one run must carry a stamp (its last digits and the ']').
    // Another boot of the same kernel and workload shares the text but not the stamps;
    // a random file shares nothing of 8 bytes.
    std::size_t covered = 0, span = 0, stamps = 0, stamps_matched = 0;
    if (!runs.empty()) {
        const std::size_t from = runs.front().uart, to = runs.back().uart + runs.back().len;
        span = to - from;
        for (const auto& r : runs) covered += r.len;
        auto run = runs.begin();
        for (std::size_t close : boot_stamps(best.bytes)) {  // all of them: a lossy stream may have runs between stamps only
            ++stamps;
            while (run != runs.end() && run->uart + run->len <= close) ++run;
            stamps_matched += run != runs.end() && run->uart + 4 <= close;
        }
    }
    const bool is_console = covered >= kMinRun && covered * 2 >= span && (stamps == 0 || stamps_matched > 0);
    if (!best.bytes.empty() && !is_console) {
        log.method = "none: the log does not match the guest's UART writes (kvm_pio port " + hex(port) + "): " +
                     std::to_string(covered) + " of " + std::to_string(best.bytes.size()) + " written bytes found in runs of " +
                     std::to_string(kMinRun) + "+" +
                     (runs.empty() ? std::string() : ", " + std::to_string(span) + " in their stretch") +
                     (stamps && !stamps_matched ? ", none of its " + std::to_string(stamps) + " printk stamps" : std::string()) +
                     mismatch_cause(trace, stamps && !stamps_matched);
    } else if (!best.bytes.empty()) {
        log.matched_bytes = covered;
        auto run = runs.begin();
        std::size_t found = 0;
        for (auto& l : log.lines) {
            // the first byte of the line (or of its first part) that a run covers
            const std::size_t nl = log.bytes.find('\n', l.offset);
            const std::size_t end = nl == std::string::npos ? log.bytes.size() : nl;
            while (run != runs.end() && run->log + run->len <= l.offset) ++run;
            if (run == runs.end() || run->log >= end) continue;
            const std::size_t first = std::max(run->log, static_cast<std::size_t>(l.offset));
            l.host_ts = best.ts[run->uart + (first - run->log)];
            l.alignment = SerialAlignment::Pio;
            ++found;
        }
        log.method = "exact: " + std::to_string(found) + " of " + std::to_string(log.lines.size()) +
                     " lines found in the guest's UART writes (kvm_pio port " + hex(port) + "): " + std::to_string(covered) +
                     " of " + std::to_string(log.bytes.size()) + " log bytes in " + std::to_string(runs.size()) +
                     " runs against " + std::to_string(log.uart_bytes) + " bytes written";
        // Lines the UART writes do not cover (capture window, lost events): fit the
        // guest-printk → host offset on the exact lines and place them with it.
        std::vector<std::int64_t> offsets;
        for (const auto& l : log.lines)
            if (l.alignment == SerialAlignment::Pio && l.printk_s)
                offsets.push_back(l.host_ts->value() - static_cast<std::int64_t>(*l.printk_s * 1e9));
        if (!offsets.empty()) {
            std::nth_element(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(offsets.size() / 2), offsets.end());
            const std::int64_t fit = offsets[offsets.size() / 2];
            std::size_t placed = 0;
            for (auto& l : log.lines)
                if (l.alignment == SerialAlignment::None && l.printk_s) {
                    l.host_ts = TimestampNs(fit + static_cast<std::int64_t>(*l.printk_s * 1e9));
                    l.alignment = SerialAlignment::PrintkOffset;
                    ++placed;
                }
            if (placed)
                log.method += "; " + std::to_string(placed) + " lines outside them placed by printk time with an offset fitted on " +
                              std::to_string(offsets.size()) + " exact lines";
        }
    } else if (auto zero = log.vm != kUnknownVm ? boot_anchor(trace, log.vm) : std::nullopt) {
        for (auto& l : log.lines)
            if (l.printk_s) {
                l.host_ts = TimestampNs(zero->value() + static_cast<std::int64_t>(*l.printk_s * 1e9));
                l.alignment = SerialAlignment::PrintkOffset;
            }
        log.method = "approximate: no UART writes in the trace; printk time + offset anchored at the VM's first vCPU "
                     "entry (early by the firmware's boot time)";
    } else {
        log.method = "none: no UART writes in the trace and the trace does not start at the guest's boot";
    }
    // Lines without a time of their own follow the previous placed line.
    std::optional<TimestampNs> prev;
    for (auto& l : log.lines) {
        if (l.host_ts) { prev = l.host_ts; continue; }
        if (prev) { l.host_ts = prev; l.alignment = SerialAlignment::Neighbour; }
    }
}

}  // namespace irqflow
