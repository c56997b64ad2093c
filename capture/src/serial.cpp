#include "irqflow/capture/serial.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>

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
    log.bytes.assign(std::istreambuf_iterator<char>(in), {});
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

UartStream rebuild_uart(const Trace& trace, VmId vm, std::uint16_t port) {
    UartStream u;
    bool dlab = false;
    for (const auto& e : trace.events) {
        if (e.kind != EventKind::Pio || e.vm != vm) continue;
        auto rw = e.get(slot::pio_rw), p = e.get(slot::pio_port), val = e.get(slot::pio_val);
        if (!rw || *rw != 1 || !p || !val) continue;
        if (*p == port + 3) { dlab = (*val & 0x80) != 0; continue; }   // line control register
        if (*p != port || dlab) continue;                                // DLAB: divisor, not data
        auto count = e.get(slot::pio_count).value_or(1);
        if (count != 1) continue;  // rep outsb: the trace shows only the first byte
        u.bytes += static_cast<char>(*val & 0xff);
        u.ts.push_back(e.ts);
    }
    return u;
}

namespace {

std::string hex(unsigned v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%x", v);
    return b;
}

// Maps log bytes to UART bytes: anchor, then walk both, re-synchronising after a
// mismatch by searching the next few log bytes ahead in the UART stream.
std::vector<std::int64_t> match_bytes(const std::string& log, const std::string& uart) {
    std::vector<std::int64_t> map(log.size(), -1);
    std::size_t i = 0, j = 0;  // uart, log
    constexpr std::size_t kProbe = 24;
    auto find_in_uart = [&](std::size_t from_log, std::size_t from_uart) -> std::size_t {
        std::size_t n = std::min(kProbe, log.size() - from_log);
        if (n < 4) return std::string::npos;
        return uart.find(log.data() + from_log, from_uart, n);
    };
    while (j < log.size() && i < uart.size()) {
        if (log[j] == uart[i]) {
            map[j++] = static_cast<std::int64_t>(i++);
            continue;
        }
        std::size_t at = find_in_uart(j, i);
        if (at != std::string::npos) {
            i = at;
            continue;
        }
        ++j;  // this log byte never reached the UART in the traced window
    }
    return map;
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

}  // namespace

void align_serial(const Trace& trace, SerialLog& log, std::uint16_t port) {
    // The VM that wrote the most to this UART is the one whose console this is.
    UartStream best;
    for (const auto& vm : trace.vms) {
        UartStream u = rebuild_uart(trace, vm.id, port);
        if (log.vm == kUnknownVm || u.bytes.size() > best.bytes.size()) {
            best = std::move(u);
            log.vm = vm.id;
        }
    }
    log.uart_bytes = best.bytes.size();
    if (!best.bytes.empty()) {
        auto map = match_bytes(log.bytes, best.bytes);
        for (auto m : map) log.matched_bytes += m >= 0;
        for (auto& l : log.lines) {
            std::size_t end = l.offset;
            while (end < log.bytes.size() && log.bytes[end] != '\n') ++end;
            for (std::size_t k = l.offset; k <= end && k < map.size(); ++k)
                if (map[k] >= 0) {
                    l.host_ts = best.ts[static_cast<std::size_t>(map[k])];
                    l.alignment = SerialAlignment::Pio;
                    break;
                }
        }
        log.method = "exact: matched " + std::to_string(log.matched_bytes) + " of " + std::to_string(log.bytes.size()) +
                     " log bytes against " + std::to_string(log.uart_bytes) + " UART writes (kvm_pio port " +
                     hex(port) + ")";
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
