// Reader for trace text as people share it, sniffed line by line: `trace-cmd report`
// output (with or without the task-pid / CPU / latency-flags columns, 4- or 5-character
// flags, `report -l`'s "0d..1." column, a bare timestamp prefix, lines wrapped by mail
// clients, annotation lines, NBSPs a mail client put for spaces) and `perf script`
// output of kvm:* events (tid or pid/tid column, task names with spaces, the body
// wrapped onto the next line).
// Each event's printed fields are parsed back into the same normalized slots the
// trace.dat reader fills (info_parser.cpp).
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include "info_parser.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"

namespace irqflow {
namespace {

bool space(char c) { return c == ' ' || c == '\t'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || digit(c) || c == '_'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && (space(s.front()) || s.front() == '\r')) s.remove_prefix(1);
    while (!s.empty() && (space(s.back()) || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// The columns in front of "name: info".
struct Header {
    bool has_task = false;
    std::string comm;
    std::int32_t tid = -1;
    std::int32_t cpu = -1;
    std::optional<std::int64_t> ts;
    std::string_view rest;  // "name: info", or empty when the line was wrapped there
};

// "12345.678901" → ns (any number of fraction digits up to 9).
std::optional<std::int64_t> parse_ts(std::string_view s) {
    std::size_t dot = s.find('.');
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
            auto ts = parse_ts(tok.substr(0, tok.size() - 1));
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
    auto ts = parse_ts(s.substr(ts_begin, ts_end - ts_begin));
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

// "… [012] …" with a colon later: the shape of an event header.
bool looks_like_header(std::string_view s) {
    std::size_t open = s.find(" [");
    while (open != std::string_view::npos) {
        std::size_t i = open + 2;
        while (i < s.size() && digit(s[i])) ++i;
        if (i > open + 2 && i < s.size() && s[i] == ']' && s.find(':', i) != std::string_view::npos) return true;
        open = s.find(" [", open + 1);
    }
    return false;
}

class TextParser {
public:
    TextParser(const std::string& path, Trace& t) : path_(path), t_(t) {}

    void line(std::string_view raw, std::uint64_t lineno) {
        std::string_view s = raw;
        if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
        if (!printable_text(s))
            throw InputError(path_, {InputPosition::Unit::Line, lineno}, "binary data or invalid UTF-8 in a text trace");
        if (s.find("\xc2\xa0") != std::string_view::npos) {  // no-break spaces from a mail client or web page
            nbsp_.clear();
            for (std::size_t i = 0; i < s.size(); ++i) {  // one pass: a line may hold thousands
                const bool nbsp = s[i] == '\xc2' && i + 1 < s.size() && s[i + 1] == '\xa0';
                nbsp_ += nbsp ? ' ' : s[i];
                i += nbsp;
            }
            s = nbsp_;
        }
        // Mail quoting: "> " prefixes.
        while (!s.empty() && s.front() == '>') {
            s.remove_prefix(1);
            if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        }
        std::string_view body = trim(s);
        if (body.empty()) { finish(); return; }
        if (body.front() == '#') return;  // comments and annotations
        if (body.substr(0, 5) == "cpus=") {
            std::from_chars(body.data() + 5, body.data() + body.size(), t_.meta.host_cpus);
            return;
        }
        if (lost_line(body, lineno)) return;
        auto h = parse_task_header(s);
        if (!h) h = parse_latency_header(s);
        if (!h) h = parse_ts_header(s);
        if (h) {
            finish();
            header_ = *h;
            header_line_ = lineno;
            bare_ = false;
            if (h->rest.empty()) { awaiting_body_ = true; return; }  // wrapped after "ts:"
            start_event(h->rest, lineno);
            return;
        }
        std::string_view name, info;
        const std::size_t indent = s.find_first_not_of(" \t");  // body is not empty
        const bool indented = indent > 0;
        if (awaiting_body_ && split_event(body, name, info)) {
            awaiting_body_ = false;
            start_event(body, lineno);
            return;
        }
        if (looks_like_header(body))
            throw InputError(path_, {InputPosition::Unit::Line, lineno}, "malformed event line (task [cpu] timestamp: name: …)");
        // An event without task/CPU/timestamp columns ("  kvm_exit: reason …"), unless
        // it is indented deeper than such a line before it (a wrapped continuation).
        const bool deeper = pending_ && bare_ && indent > bare_indent_;
        if (!deeper && split_event(body, name, info) && name.find('_') != std::string_view::npos &&
            (!pending_ || !indented || bare_ || kind_by_name(name))) {
            finish();
            header_ = Header{};
            header_.ts = last_ts_;
            header_line_ = lineno;
            bare_ = true;
            bare_indent_ = indent;
            start_event(body, lineno);
            return;
        }
        // Continuation of a wrapped event: indented, or completing a known event whose
        // printed fields are still incomplete.
        if (pending_ && (indented || !pending_parsed_)) {
            if (!pending_parsed_ && try_extend(body)) return;
            if (indented) { append(body); return; }
        }
        // Anything else is a person's annotation ("Choose Windows DebugEntry").
        finish();
        ++t_annotations;
        if (t_annotations > 50 && t_annotations > 4 * (events_ + 1))
            throw InputError(path_, {InputPosition::Unit::Line, lineno}, "not a trace-cmd report or perf script text (no event lines found)");
    }

    // `unterminated_line`: the number of a last line without a line end, else 0. A
    // text cut inside a record mostly still parses (a shorter rip, a missing field):
    // the missing line end is the only sign, so it is reported, not guessed away.
    void end(std::uint64_t unterminated_line) {
        if (awaiting_body_)
            t_.meta.warnings.push_back("the text ends mid-record: line " + std::to_string(header_line_) +
                                       " has a timestamp but no event after it (ignored)");
        else if (unterminated_line)
            t_.meta.warnings.push_back("the text may end mid-record: line " + std::to_string(unterminated_line) +
                                       " has no line end, so its event may be cut short");
        finish();
        if (events_ == 0) throw InputError(path_, {}, "no trace events found in this text");
    }

    std::uint64_t t_annotations = 0;
    std::uint64_t unparsed = 0;

private:
    bool lost_line(std::string_view body, std::uint64_t lineno) {
        // trace-cmd: "CPU:1 [84 EVENTS DROPPED]" or "CPU:1 [EVENTS DROPPED]"
        if (body.substr(0, 4) != "CPU:" || body.find("EVENTS DROPPED]") == std::string_view::npos) return false;
        finish();
        Event lost;
        lost.kind = EventKind::Lost;
        lost.name_id = t_.intern("lost_events");
        std::int32_t cpu = -1;
        std::from_chars(body.data() + 4, body.data() + body.size(), cpu);
        lost.cpu = HostCpu(cpu);
        std::int64_t n = -1;
        std::size_t open = body.find('[');
        if (open != std::string_view::npos && open + 1 < body.size() && digit(body[open + 1]))
            std::from_chars(body.data() + open + 1, body.data() + body.size(), n);
        lost.set(slot::lost_count, n);
        lost.record = record_;
        lost.ts = TimestampNs(last_ts_);
        lost_pending_.push_back(lost);
        (void)lineno;
        return true;
    }

    void start_event(std::string_view rest, std::uint64_t lineno) {
        std::string_view name, info;
        if (!split_event(rest, name, info))
            throw InputError(path_, {InputPosition::Unit::Line, lineno}, "event line without \"name:\" after the timestamp");
        pending_ = true;
        name_ = std::string(name);
        info_ = std::string(info);
        auto kind = kind_by_name(name_);
        kind_ = kind ? *kind : EventKind::Other;
        pending_parsed_ = kind_ == EventKind::Other || reparse();
    }

    bool reparse() {
        Event e;
        e.kind = kind_;
        if (!parse_info(kind_, info_, e)) return false;
        parsed_ = e;
        return true;
    }

    bool try_extend(std::string_view more) {
        std::string saved = info_;
        info_ += info_.empty() ? "" : " ";
        info_ += more;
        if (reparse()) { pending_parsed_ = true; return true; }
        info_ = saved;
        return false;
    }

    void append(std::string_view more) {
        info_ += ' ';
        info_ += more;
        if (!pending_parsed_) pending_parsed_ = reparse();
    }

    void finish() {
        awaiting_body_ = false;
        if (!pending_) return;
        pending_ = false;
        Event e = kind_ != EventKind::Other && pending_parsed_ ? parsed_ : Event{};
        if (kind_ != EventKind::Other && !pending_parsed_) ++unparsed;
        e.kind = pending_parsed_ ? kind_ : EventKind::Other;
        e.name_id = t_.intern(name_);
        e.tid = Tid(header_.tid);
        e.cpu = HostCpu(header_.cpu);
        std::int64_t ts = header_.ts ? *header_.ts : last_ts_;
        e.ts = TimestampNs(ts);
        last_ts_ = ts;
        for (auto& l : lost_pending_) {
            l.ts = e.ts;
            l.record = record_;
            t_.events.push_back(l);
        }
        lost_pending_.clear();
        e.record = record_++;
        t_.source_lines.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(header_line_, UINT32_MAX)));
        if (e.kind == EventKind::Other) {
            e.raw_off = static_cast<std::uint32_t>(t_.raw.size());
            e.raw_len = static_cast<std::uint32_t>(info_.size());
            t_.raw += info_;
        }
        if (header_.has_task && header_.tid >= 0 && !t_.comms.count(header_.tid)) t_.comms[header_.tid] = header_.comm;
        t_.events.push_back(e);
        ++events_;
    }

    const std::string& path_;
    Trace& t_;
    Header header_;
    std::uint64_t header_line_ = 0;
    bool awaiting_body_ = false;
    bool bare_ = false;             // the current event had no task/CPU/ts columns
    std::size_t bare_indent_ = 0;
    bool pending_ = false;
    bool pending_parsed_ = false;
    std::string name_, info_;
    std::string nbsp_;  // the current line with its NBSPs made spaces
    EventKind kind_ = EventKind::Other;
    Event parsed_;
    std::vector<Event> lost_pending_;
    std::int64_t last_ts_ = 0;
    std::uint64_t record_ = 0;
    std::uint64_t events_ = 0;
};

}  // namespace

Trace read_trace_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, {}, "cannot open file");
    Trace t;
    t.meta.source = path;
    TextParser p(path, t);
    std::string line;
    std::uint64_t lineno = 0;
    bool perf = false;
    bool unterminated = false;  // the last line stops without a line end
    bool cut = false;  // that line could not be read
    while (std::getline(in, line)) {
        ++lineno;
        unterminated = in.eof() && !line.empty();  // (getline clears `line` when it finds nothing more)
        if (!perf && line.find(" kvm:kvm_") != std::string::npos) perf = true;
        try {
            p.line(line, lineno);
        } catch (const InputError&) {
            if (!unterminated) throw;
            cut = true;  // a text cut inside its last line: the cut, not a malformed file
        }
    }
    if (cut) {
        t.meta.warnings.push_back("the text ends mid-record: line " + std::to_string(lineno) +
                                  " has no line end and cannot be read (ignored)");
        unterminated = false;
    }
    p.end(unterminated ? lineno : 0);
    t.meta.format = perf ? "perf script text" : "trace-cmd report text";
    if (p.unparsed) t.meta.warnings.push_back(std::to_string(p.unparsed) + " kvm events in an unknown print format were kept raw");
    if (p.t_annotations) t.meta.warnings.push_back(std::to_string(p.t_annotations) + " non-event lines (annotations) skipped");
    return t;
}

}  // namespace irqflow
