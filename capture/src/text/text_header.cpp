#include "text_header.hpp"

#include <charconv>
#include <cstdint>

namespace irqflow::text {
namespace {

bool space(char c) { return c == ' ' || c == '\t'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '_'; }

// "12345.678901" → ns (any number of fraction digits up to 9). With `counter` set, a
// whole number is taken too, as the count it is: report prints a counter clock's
// times (x86-tsc, counter) that way; *counter then says which it was.
std::optional<std::int64_t> parse_ts(std::string_view s, bool* counter = nullptr) {
    std::size_t dot = s.find('.');
    if (dot == std::string_view::npos && counter && !s.empty() && s.size() <= 18) {
        std::int64_t n = 0;
        auto r = std::from_chars(s.data(), s.data() + s.size(), n);
        if (r.ec != std::errc() || r.ptr != s.data() + s.size() || n < 0) return std::nullopt;
        *counter = true;
        return n;
    }
    if (dot == std::string_view::npos || dot == 0) return std::nullopt;
    std::int64_t sec = 0;
    auto r = std::from_chars(s.data(), s.data() + dot, sec);
    if (r.ec != std::errc() || r.ptr != s.data() + dot) return std::nullopt;
    if (sec < 0 || sec > INT64_MAX / 1000000000 - 1) return std::nullopt;  // ns since boot must fit in 64 bits
    std::string_view frac = s.substr(dot + 1);
    if (frac.empty() || frac.size() > 9) return std::nullopt;
    std::int64_t f = 0;
    for (char c : frac) {
        if (!digit(c)) return std::nullopt;
        f = f * 10 + (c - '0');
    }
    for (std::size_t i = frac.size(); i < 9; ++i) f *= 10;
    return sec * 1000000000 + f;
}

// The task column: "comm-123" (trace-cmd, ftrace), "comm 123" or "comm 123/125"
// (perf script: tid, or pid/tid). The comm may hold spaces and dashes ("CPU 0/KVM").
bool parse_task(std::string_view task, Header& h) {
    std::size_t e = task.size();
    std::size_t b = e;
    while (b > 0 && digit(task[b - 1])) --b;
    if (b == e || b == 0) return false;
    std::from_chars(task.data() + b, task.data() + e, h.tid);
    std::size_t comm_end = b - 1;
    if (task[b - 1] == '/') {  // perf's pid/tid: the tid is the thread
        std::size_t p = b - 1;
        while (p > 0 && digit(task[p - 1])) --p;
        if (p == b - 1 || p == 0 || task[p - 1] != ' ') return false;
        comm_end = p - 1;
    } else if (task[b - 1] != '-' && task[b - 1] != ' ') {
        return false;
    }
    h.comm = std::string(trim(task.substr(0, comm_end)));
    return true;
}

}  // namespace

std::string_view trim(std::string_view s) {
    while (!s.empty() && (space(s.front()) || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (space(s.back()) || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// "comm-123 [001] d..1 280.971116: rest" (trace-cmd, ftrace) or
// "comm 123 [001] 280.971116: rest" (perf script).
std::optional<Header> parse_task_header(std::string_view line) {
    std::size_t open = line.find(" [");
    while (open != std::string_view::npos) {
        std::size_t close = line.find(']', open);
        if (close != std::string_view::npos && close > open + 2) {
            bool ok = true;
            for (std::size_t i = open + 2; i < close; ++i) ok = ok && digit(line[i]);
            if (ok) break;
        }
        open = line.find(" [", open + 1);
    }
    if (open == std::string_view::npos) return std::nullopt;
    std::size_t close = line.find(']', open);
    Header h;
    h.has_task = true;
    std::from_chars(line.data() + open + 2, line.data() + close, h.cpu);
    // task: trailing number after '-' or ' '; perf may add "(tgid)" forms we don't use.
    if (!parse_task(trim(line.substr(0, open)), h)) return std::nullopt;
    // after "]": optional latency flags column, then "seconds.fraction:"
    std::string_view rest = line.substr(close + 1);
    for (int col = 0; col < 2; ++col) {
        rest = trim(rest);
        std::size_t end = 0;
        while (end < rest.size() && !space(rest[end])) ++end;
        std::string_view tok = rest.substr(0, end);
        if (!tok.empty() && tok.back() == ':') {
            auto ts = parse_ts(tok.substr(0, tok.size() - 1), &h.counter);
            if (!ts) return std::nullopt;
            h.ts = ts;
            h.rest = trim(rest.substr(end));
            return h;
        }
        if (col == 1 || tok.size() < 4 || tok.size() > 5) return std::nullopt;  // flags are 4 or 5 chars
        rest = rest.substr(end);
    }
    return std::nullopt;
}

// "  1234.567890: name: info" — a timestamp and nothing else in front (ftrace's
// trace file with the task and CPU columns switched off, some hand-trimmed reports).
std::optional<Header> parse_ts_header(std::string_view line) {
    std::string_view s = trim(line);
    std::size_t end = 0;
    while (end < s.size() && !space(s[end])) ++end;
    std::string_view tok = s.substr(0, end);
    if (tok.size() < 3 || tok.back() != ':' || !digit(tok.front())) return std::nullopt;
    auto ts = parse_ts(tok.substr(0, tok.size() - 1));
    if (!ts) return std::nullopt;
    Header h;
    h.ts = ts;
    h.rest = trim(s.substr(end));
    return h;
}

// `trace-cmd report -l`: "qemu-sys-218     0d..1.   120.402509: name: info" — the CPU
// number glued to the latency flags (4 to 6 of them, never starting with a digit),
// no brackets.
std::optional<Header> parse_latency_header(std::string_view line) {
    std::string_view s = trim(line);
    std::size_t ts_end = s.find(": ");
    if (ts_end == std::string_view::npos) ts_end = s.size() - 1;
    if (ts_end == 0 || s[ts_end] != ':') return std::nullopt;
    std::size_t ts_begin = ts_end;
    while (ts_begin > 0 && !space(s[ts_begin - 1])) --ts_begin;
    bool counter = false;
    auto ts = parse_ts(s.substr(ts_begin, ts_end - ts_begin), &counter);
    if (!ts || ts_begin == 0) return std::nullopt;
    std::string_view before = trim(s.substr(0, ts_begin));
    std::size_t col = before.size();
    while (col > 0 && !space(before[col - 1])) --col;
    std::string_view cpuflags = before.substr(col);
    std::size_t d = 0;
    while (d < cpuflags.size() && digit(cpuflags[d])) ++d;
    const std::size_t flags = cpuflags.size() - d;
    if (d == 0 || flags < 4 || flags > 6 || col == 0) return std::nullopt;
    Header h;
    if (!parse_task(trim(before.substr(0, col)), h)) return std::nullopt;
    h.has_task = true;
    h.counter = counter;
    std::from_chars(cpuflags.data(), cpuflags.data() + d, h.cpu);
    h.ts = ts;
    h.rest = trim(s.substr(ts_end + 1));
    return h;
}

// "name: info" / "system:name: info"; false for anything else.
bool split_event(std::string_view rest, std::string_view& name, std::string_view& info) {
    std::size_t i = 0;
    while (i < rest.size() && ident(rest[i])) ++i;
    if (i == 0 || i >= rest.size() || rest[i] != ':') return false;
    name = rest.substr(0, i);
    std::size_t j = i + 1;
    if (j < rest.size() && ident(rest[j])) {  // perf: "kvm:kvm_exit:"
        std::size_t k = j;
        while (k < rest.size() && ident(rest[k])) ++k;
        if (k < rest.size() && rest[k] == ':') {
            name = rest.substr(j, k - j);
            j = k + 1;
        } else {
            return false;
        }
    }
    if (j < rest.size() && !space(rest[j])) return false;
    info = trim(rest.substr(j));
    return true;
}

// Text a person could have written: no control characters, valid UTF-8.
bool printable_text(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 && c != '\t' && c != '\r') return false;
        if (c == 0x7f) return false;
        if (c < 0x80) continue;
        int more = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
        if (more < 0 || c == 0xc0 || c == 0xc1) return false;
        for (int k = 0; k < more; ++k)
            if (++i >= s.size() || (static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) return false;
    }
    return true;
}

namespace {
// Where " [012]" ends in s, or npos.
std::size_t cpu_column_end(std::string_view s) {
    for (std::size_t open = s.find(" ["); open != std::string_view::npos; open = s.find(" [", open + 1)) {
        std::size_t i = open + 2;
        while (i < s.size() && digit(s[i])) ++i;
        if (i > open + 2 && i < s.size() && s[i] == ']') return i;
    }
    return std::string_view::npos;
}
}  // namespace

bool looks_like_header(std::string_view s) {
    const std::size_t close = cpu_column_end(s);
    return close != std::string_view::npos && s.find(':', close) != std::string_view::npos;
}

bool has_cpu_column(std::string_view s) { return cpu_column_end(s) != std::string_view::npos; }

std::optional<Header> parse_header(std::string_view line) {
    if (auto h = parse_task_header(line)) return h;
    if (auto h = parse_latency_header(line)) return h;
    return parse_ts_header(line);
}

}  // namespace irqflow::text
