// Reader for trace text as people share it: `trace-cmd report` output in its historic
// layouts and `perf script` output of kvm:* events (the columns: text_header.cpp), as
// pasted into mail and bug trackers — wrapped anywhere in a line by a mail client,
// quoted, annotated, cut at both ends. Lines are assembled into records; each record's
// printed fields are parsed back into the slots the trace.dat reader fills
// (info_parser.cpp). How a line is told to be a continuation, an annotation or the
// start of a record: capture/README.md, "Reading pasted text".
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../own_vcpu.hpp"
#include "info_parser.hpp"
#include "line_file.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "text_header.hpp"
#include "text_lines.hpp"

namespace irqflow {
namespace {

using text::Header;
using text::trim;

bool space(char c) { return c == ' ' || c == '\t'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// Columns a line takes on screen: UTF-8 code points (the text is valid UTF-8 by then).
std::size_t columns(std::string_view s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

// A line that says events were left out: "....", "…", "[...]", "<snip>", "-- cut --".
bool elision(std::string_view body) {
    std::string word;
    std::size_t dots = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c == '.') ++dots;
        else if (body.substr(i, 3) == "\xe2\x80\xa6") { dots += 3; i += 2; }  // …
        else if (c >= 'a' && c <= 'z') word += c;
        else if (c >= 'A' && c <= 'Z') word += static_cast<char>(c - 'A' + 'a');
        else if (!space(c) && c != '[' && c != ']' && c != '<' && c != '>' && c != '(' && c != ')' && c != '-') return false;
    }
    if (word.empty()) return dots >= 3;
    return word == "snip" || word == "snipped" || word == "cut" || word == "skip" || word == "skipped" || word == "trimmed";
}

// "lines 3, 4, 17, …" for a warning: the first few of them.
std::string lines_text(const std::vector<std::uint64_t>& lines, std::uint64_t total) {
    std::string s = total == 1 ? "line " : "lines ";
    for (std::size_t i = 0; i < lines.size(); ++i) s += (i ? ", " : "") + std::to_string(lines[i]);
    if (total > lines.size()) s += ", …";
    return s;
}

// Line numbers of one kind of thing the reader noticed, the first few kept.
struct Noted {
    static constexpr std::size_t kKept = 8;
    std::vector<std::uint64_t> lines;
    std::uint64_t count = 0;
    void add(std::uint64_t line) {
        if (lines.size() < kKept) lines.push_back(line);
        ++count;
    }
};

// One physical line of the input, as the assembler needs it.
struct Line {
    std::string text;         // quoting removed, no-break spaces made spaces, trailing space kept
    std::uint64_t no = 0;     // 1-based
    std::size_t width = 0;    // columns as pasted (quote marks included): what a mail client wrapped
    std::size_t indent = 0;   // leading blanks after the quote marks
    bool soft_break = false;  // ends in a space: format=flowed's mark of a line it broke
    bool quoted = false;      // had "> " in front
    std::string_view body() const { return trim(text); }
};

// The column a text was wrapped at, from all its lines: hardly any a mail client would
// have broken is left unbroken (wider than kMaxMailColumn with a space to break it at:
// one in 50, for a line someone edited after the client wrapped it), and some reach near
// the column. 0 when the text is not wrapped, or not known to be. Comment lines ("#")
// are no one's record and are left out.
class WrapColumn {
public:
    void line(std::string_view s) {
        if (const auto b = trim(s); !b.empty() && b.front() == '#') return;
        const std::size_t w = columns(s);
        ++lines_;
        if (w > kMaxMailColumn) {
            const std::size_t from = s.find_first_not_of(" \t>");
            const std::size_t sp = from == std::string_view::npos ? std::string_view::npos : s.find(' ', from);
            unbroken_ += sp != std::string_view::npos && sp < kMaxMailColumn;
            return;
        }
        widest_ = std::max(widest_, w);
    }
    std::size_t column() const { return unbroken_ > std::max<std::uint64_t>(1, lines_ / 50) || widest_ < kMinMailColumn ? 0 : widest_; }
    // Mail clients wrap at 72–80 columns; some forms and old clients at 60–66.
    static constexpr std::size_t kMinMailColumn = 60, kMaxMailColumn = 80;

private:
    std::size_t widest_ = 0;
    std::uint64_t lines_ = 0, unbroken_ = 0;
};

class TextParser {
public:
    // `wrap_column`: the column the whole text is known to be wrapped at (WrapColumn), or 0.
    // `sink`: hand each event over as it is assembled instead of keeping it in `t` (a
    // live stream: the records' lines kept as runs, other events' text not kept).
    TextParser(const std::string& path, Trace& t, std::size_t wrap_column, const EventSink* sink = nullptr)
        : path_(path), t_(t), sink_(sink), wrap_width_(wrap_column) {}

    // No more input for now (a live stream paused): the line held for the next one to
    // decide and the record being assembled are complete as they are, so they go out.
    void idle() {
        if (held_) {
            Line x = std::move(*held_);
            held_.reset();
            settle(x);
        }
        if (r_.active && !r_.awaiting_body) finish();
    }

    void line(std::string_view raw, std::uint64_t lineno) {
        Line y = prepare(raw, lineno);
        if (held_) {
            Line x = std::move(*held_);
            held_.reset();
            if (header_across(x, y)) return;
            settle(x);
        }
        process(y);
    }

    // `unterminated_line`: the number of a last line without a line end, else 0.
    void end(std::uint64_t unterminated_line) {
        if (held_) {
            Line x = std::move(*held_);
            held_.reset();
            settle(x, unterminated_line == x.no ? Cut::LastUnterminated : Cut::Last);
        }
        if (r_.active && r_.awaiting_body) {
            t_.meta.warnings.push_back("the text ends mid-record: line " + std::to_string(r_.line) +
                                       " has a timestamp but no event after it (ignored)");
            r_ = Record{};
        } else if (unterminated_line) {
            // A text cut inside a record mostly still parses (a shorter rip, a missing
            // field): the missing line end is the only sign, so it is reported.
            t_.meta.warnings.push_back("the text may end mid-record: line " + std::to_string(unterminated_line) +
                                       " has no line end, so its event may be cut short");
        }
        finish();
        if (events_ == 0) throw InputError(path_, {}, "no trace events found in this text");
        summarize();
    }

private:
    enum class Cut { No, Last, LastUnterminated };

    Line prepare(std::string_view s, std::uint64_t lineno) const {
        if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
        if (!text::printable_text(s))
            throw InputError(path_, {InputPosition::Unit::Line, lineno}, "binary data or invalid UTF-8 in a text trace");
        Line y;
        y.no = lineno;
        y.width = columns(s);
        y.text.reserve(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {  // no-break spaces from a mail client or web page
            const bool nbsp = s[i] == '\xc2' && i + 1 < s.size() && s[i + 1] == '\xa0';
            y.text += nbsp ? ' ' : s[i];
            i += nbsp;
        }
        std::size_t q = 0;  // mail quoting: "> " prefixes
        while (q < y.text.size() && y.text[q] == '>') {
            ++q;
            if (q < y.text.size() && y.text[q] == ' ') ++q;
        }
        y.text.erase(0, q);
        y.quoted = q > 0;
        y.soft_break = !y.text.empty() && space(y.text.back());
        y.indent = std::min(y.text.find_first_not_of(" \t"), y.text.size());
        return y;
    }

    void process(const Line& y) {
        const std::string_view body = y.body();
        if (body.empty()) { finish(); return; }  // a record never continues across a blank line
        if (body.front() == '#') return;         // comments and annotations
        if (elision(body)) {
            finish();
            elisions_.add(y.no);
            return;
        }
        if (body.substr(0, 5) == "cpus=") {
            std::from_chars(body.data() + 5, body.data() + body.size(), t_.meta.host_cpus);
            return;
        }
        if (lost_line(body)) return;
        if (auto h = text::parse_header(y.text)) {
            finish();
            start_header(*h, y);
            return;
        }
        if (r_.active && r_.awaiting_body && body_of_header(y)) return;
        if (r_.active && r_.known && !r_.awaiting_body && extend(y)) return;
        if (bare_event(y)) return;
        if (r_.active && !r_.known && !r_.awaiting_body && y.indent > 0) {  // an indented continuation of an event irqflow does not parse
            append(y);
            return;
        }
        held_ = y;  // the next line says what it is
    }

    // A header broken across two lines ("<...>-3441924 [004] ...." / "1907374.582979: kvm_…"):
    // x, held, and y joined read as a header that y alone does not.
    bool header_across(const Line& x, const Line& y) {
        const std::string_view xb = x.body(), yb = y.body();
        if (xb.empty() || yb.empty() || yb.front() == '#') return false;
        const auto alone = text::parse_header(y.text);
        if (alone && alone->has_task) return false;
        const std::string left(trim(x.text));
        for (const char* sep : {" ", ""}) {
            if (!*sep && x.soft_break) continue;  // the break was at a space
            const std::string joined = left + sep + std::string(yb);
            auto h = text::parse_header(joined);
            if (!h || (alone && !h->has_task)) continue;
            finish();
            ++joined_lines_;
            start_header(*h, y, x.no);
            return true;
        }
        return false;
    }

    // A held line that no header took: the continuation of an event irqflow does not
    // parse, a cut line, or a person's annotation.
    void settle(const Line& x, Cut cut = Cut::No) {
        const std::string_view body = x.body();
        if (r_.active && !r_.known && !r_.awaiting_body && continues_unparsed(x)) {
            append(x);
            return;
        }
        if (!text::has_cpu_column(body)) {
            annotation(x);
            return;
        }
        // The start of an event line. Stopping before its timestamp, it is cut (the text
        // ends there, or its continuation went missing); with a timestamp and an event
        // after a column that does not read, it is corrupt — unless only its task column
        // is missing on the text's first event line: the excerpt was cut there.
        const bool corrupt = text::looks_like_header(body) && cut != Cut::LastUnterminated &&
                             !(events_ == 0 && !r_.active && task_cut_off(body));
        if (corrupt) throw InputError(path_, {InputPosition::Unit::Line, x.no}, "malformed event line (task [cpu] timestamp: name: …)");
        cut_lines_.add(x.no);
    }

    // "61822   [012] d..2. 15331.402100: kvm_inj_virq: …": all but the task column reads.
    static bool task_cut_off(std::string_view body) {
        const std::size_t open = body.find(" [");
        return open != std::string_view::npos && text::parse_task_header("cut-0" + std::string(body.substr(open))).has_value();
    }

    void annotation(const Line& x) {
        annotations_.add(x.no);
        if (annotations_.count > 50 && annotations_.count > 4 * (events_ + 1))
            throw InputError(path_, {InputPosition::Unit::Line, x.no}, "not a trace-cmd report or perf script text (no event lines found)");
    }

    bool lost_line(std::string_view body) {
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
        lost.ts = TimestampNs(last_ts_);
        lost_pending_.push_back(lost);
        return true;
    }

    // --- the record being assembled ---

    void start_header(const Header& h, const Line& y, std::uint64_t first_line = 0) {
        r_ = Record{};
        r_.active = true;
        r_.has_task = h.has_task;
        r_.comm = h.comm;
        r_.tid = h.tid;
        r_.cpu = h.cpu;
        r_.ts = h.ts;
        if (h.ts) ++(h.counter ? counter_ts_ : decimal_ts_);
        r_.line = first_line ? first_line : y.no;
        note_last(y);
        const std::string_view rest = trim(h.rest);
        std::string_view name, info;
        if (text::split_event(rest, name, info) && !(info.empty() && system_only(name))) {
            start_event(name, info);
            return;
        }
        r_.awaiting_body = true;  // wrapped after "ts:", or inside the event's name
        r_.partial = std::string(rest);
    }

    // "kvm:" alone: perf's system prefix, its event name on the next line.
    static bool system_only(std::string_view name) { return name.find('_') == std::string_view::npos; }

    // The line after a header that stopped before or inside its event's name.
    bool body_of_header(const Line& y) {
        const std::string body(y.body());
        for (const char* sep : {"", " "}) {
            if (r_.partial.empty() && *sep) break;
            if (!*sep && y.indent > 0 && !r_.partial.empty()) continue;  // an indented line starts a word
            const std::string joined = r_.partial + sep + body;
            std::string_view name, info;
            if (!text::split_event(joined, name, info) || (info.empty() && system_only(name))) continue;
            if (!r_.partial.empty()) ++joined_lines_;
            r_.awaiting_body = false;
            note_last(y);
            start_event(name, info);
            return true;
        }
        return false;
    }

    void start_event(std::string_view name, std::string_view info) {
        r_.name = std::string(name);
        r_.info = std::string(info);
        const auto kind = kind_by_name(r_.name);
        r_.kind = kind ? *kind : EventKind::Other;
        r_.known = kind.has_value();
        if (r_.known) {
            r_.parsed = Event{};
            r_.parsed.kind = r_.kind;
            r_.parse = parse_info(r_.kind, r_.info, r_.parsed);
        }
    }

    // An event with no task/CPU/timestamp columns ("  kvm_exit: reason …"), unless it
    // is indented deeper than such a line before it (a wrapped continuation). A name
    // irqflow does not know counts only once the text has shown that layout with one it
    // does: before, "exit_int_info: L1 will" is a sentence.
    bool bare_event(const Line& y) {
        std::string_view name, info;
        const std::string_view body = y.body();
        if (!text::split_event(body, name, info) || name.find('_') == std::string_view::npos) return false;
        const bool known = kind_by_name(name).has_value();
        if (!known && !bare_layout_) return false;
        if (r_.active && r_.bare && y.indent > r_.bare_indent) return false;
        if (r_.active && !r_.bare && y.indent > 0 && !known) return false;
        bare_layout_ = bare_layout_ || known;
        finish();
        r_ = Record{};
        r_.active = true;
        r_.bare = true;
        r_.bare_indent = y.indent;
        r_.line = y.no;
        note_last(y);
        start_event(name, info);
        return true;
    }

    // The next line continues a record irqflow parses when joining it reads more of
    // the record's print format: fields it lacked, or the rest of a value broken
    // mid-token at the wrap column. A line that is an event of its own never does.
    bool extend(const Line& y) {
        const std::string_view body = y.body();
        std::string_view n, i;
        if (text::split_event(body, n, i) && kind_by_name(n)) return false;
        const bool was_full = r_.parse.match == InfoMatch::Full;
        std::optional<std::pair<std::string, InfoParse>> best;
        Event best_event;
        for (const char* sep : {" ", ""}) {
            if (!*sep && r_.last_soft) continue;  // format=flowed: the break was at a space
            const std::string joined = r_.info.empty() ? std::string(body) : r_.info + sep + std::string(body);
            Event e;
            e.kind = r_.kind;
            const InfoParse p = parse_info(r_.kind, joined, e);
            if (p.match == InfoMatch::None) continue;
            const bool reads_more = !was_full || p.match == InfoMatch::Prefix || p.fields > r_.parse.fields;
            if (!reads_more && !(!*sep && hard_wrapped(r_.last_width))) continue;
            if (best && !(p.match > best->second.match || (p.match == best->second.match && p.fields > best->second.fields))) continue;
            best = {joined, p};
            best_event = e;
        }
        if (!best) return false;
        const bool proof = !was_full || best->second.fields > r_.parse.fields;
        if (proof && r_.last_width <= kMaxWrapWidth) wrap_width_ = std::max(wrap_width_, r_.last_width);
        r_.info = std::move(best->first);
        r_.parse = best->second;
        r_.parsed = best_event;
        note_last(y);
        ++joined_lines_;
        return true;
    }

    // A line broken mid-token was broken at the wrap column itself, which is no narrower
    // than mail clients wrap (a reply's quote marks may move it from line to line).
    static bool hard_wrapped(std::size_t width) { return width >= kMinWrapWidth; }

    // For an event irqflow does not parse (nothing to validate a join with), a flush-left
    // line continues it when its line was broken: format=flowed's trailing space; or, in
    // a text wrapped at a known column, a line that reached the column, or one that reads
    // like printed fields rather than prose (a reply's quote marks break a broken line
    // once more, leaving a short piece between the record and the rest of it).
    bool continues_unparsed(const Line& x) const {
        const std::string_view body = x.body();
        std::string_view n, i;
        if (text::split_event(body, n, i) && kind_by_name(n)) return false;
        if (r_.last_soft) return true;
        if (!wrap_width_) return false;
        return (r_.last_width >= kMinWrapWidth && r_.last_width <= wrap_width_ + kQuoteSlack) || reads_like_fields(body);
    }

    // "prev_state=R ==> next_comm=CPU 1/KVM next_pid=3441924", "80000000 idx 0 rax 8000000a":
    // a third of the words or more hold a digit, '=', '_' or ':' — prose's rarely do.
    static bool reads_like_fields(std::string_view body) {
        int words = 0, fields = 0;
        for (std::size_t i = 0; i < body.size();) {
            while (i < body.size() && space(body[i])) ++i;
            if (i == body.size()) break;
            bool field = false;
            for (; i < body.size() && !space(body[i]); ++i) field = field || digit(body[i]) || body[i] == '=' || body[i] == '_' || body[i] == ':';
            ++words;
            fields += field;
        }
        return words > 0 && 3 * fields >= words;
    }

    void append(const Line& y) {
        if (!r_.info.empty()) {
            if (!r_.last_soft && hard_wrapped(r_.last_width)) r_.breaks.push_back(r_.info.size());  // maybe mid-token
            r_.info += ' ';
        }
        r_.info += y.body();
        note_last(y);
        ++joined_lines_;
    }

    // The width a further line is judged by. A reply's client breaks a quoted line that
    // the quote marks made too wide, the piece going on unquoted: with it, the line is
    // as wide as the quoted sender's was.
    void note_last(const Line& y) {
        const bool rest_of_quoted = r_.last_quoted && !y.quoted;
        r_.last_width = rest_of_quoted ? r_.last_width + 1 + y.width : y.width;
        r_.last_soft = y.soft_break;
        r_.last_quoted = y.quoted;
    }

    void finish() {
        if (!r_.active) return;
        Record r = std::move(r_);
        r_ = Record{};
        if (r.awaiting_body) {
            no_event_.add(r.line);
            return;
        }
        Event e;
        if (r.known && r.parse.match == InfoMatch::Full) {
            e = r.parsed;
            auto& v = variants_[{r.kind, r.parse.pattern}];
            v.add(r.line);
        } else if (r.known && r.parse.match == InfoMatch::Prefix) {
            e = r.parsed;  // kept with the fields it has, and reported
            cut_short_.push_back({r.line, r.kind, std::string(r.parse.missing)});
        } else if (r.known) {
            unparsed_.add(r.line);
        }
        e.kind = r.known && r.parse.match != InfoMatch::None ? r.kind : EventKind::Other;
        if (e.kind == EventKind::Other && names_own_vcpu(r.name))
            if (const auto v = own_vcpu_in_joined_info(r.info, r.breaks)) e.set(slot::other_vcpu_id, v->vcpu);
        e.name_id = t_.intern(r.name);
        e.tid = Tid(r.tid);
        e.cpu = HostCpu(r.cpu);
        const std::int64_t ts = r.ts ? *r.ts : last_ts_;
        e.ts = TimestampNs(ts);
        last_ts_ = ts;
        for (auto& l : lost_pending_) {
            l.ts = e.ts;
            l.record = record_;
            if (sink_) (*sink_)(l);
            else t_.events.push_back(l);
        }
        lost_pending_.clear();
        e.record = record_++;
        if (r.has_task && r.tid >= 0 && !t_.comms.count(r.tid)) t_.comms[r.tid] = r.comm;
        ++events_;
        if (sink_) {
            t_.line_runs.note(e.record, r.line);
            (*sink_)(e);
            return;
        }
        t_.source_lines.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(r.line, UINT32_MAX)));
        if (e.kind == EventKind::Other) {
            e.raw_off = static_cast<std::uint32_t>(t_.raw.size());
            e.raw_len = static_cast<std::uint32_t>(r.info.size());
            t_.raw += r.info;
        }
        t_.events.push_back(e);
    }

    // What the reader tolerated, for the summary: every line it did not read as (part
    // of) an event is named, so nothing is dropped silently.
    void summarize() {
        auto& w = t_.meta.warnings;
        if (!cut_short_.empty()) {
            std::string s = std::to_string(cut_short_.size()) + (cut_short_.size() == 1 ? " record is" : " records are") +
                            " cut short and kept with the fields before the cut:";
            for (std::size_t i = 0; i < cut_short_.size() && i < Noted::kKept; ++i) {
                const auto& c = cut_short_[i];
                s += (i ? "," : "") + std::string(" line ") + std::to_string(c.line) + " (" + std::string(kind_info(c.kind).name) +
                     (c.missing.empty() ? "" : ", from " + c.missing + " on") + ")";
            }
            w.push_back(s + (cut_short_.size() > Noted::kKept ? ", …" : ""));
        }
        for (const auto& [key, noted] : variants_) {  // records of a kind printing fewer fields than the others
            const auto [kind, pattern] = key;
            const std::uint16_t mine = pattern_slots(kind, pattern);
            std::uint16_t richest = mine;
            for (const auto& [other, n] : variants_)
                if (other.first == kind && (pattern_slots(kind, other.second) & mine) == mine) richest |= pattern_slots(kind, other.second);
            if (richest == mine) continue;
            std::string lacks;
            const auto& info = kind_info(kind);
            for (std::size_t s = 0; s < info.nfields; ++s)
                if ((richest >> s) & 1u && !((mine >> s) & 1u)) lacks += (lacks.empty() ? "" : ", ") + std::string(info.fields[s]);
            w.push_back(std::to_string(noted.count) + " " + std::string(info.name) + " record" + (noted.count == 1 ? "" : "s") + " (" +
                        lines_text(noted.lines, noted.count) + ") lack " + lacks + ", which the text's other " + std::string(info.name) +
                        " records print: cut short or wrapped, kept with the fields they have");
        }
        if (unparsed_.count)
            w.push_back(std::to_string(unparsed_.count) + " kvm events in an unknown print format were kept raw (" +
                        lines_text(unparsed_.lines, unparsed_.count) + ")");
        if (no_event_.count)
            w.push_back(std::to_string(no_event_.count) + " timestamp" + (no_event_.count == 1 ? "" : "s") +
                        " with no event after it, ignored (" + lines_text(no_event_.lines, no_event_.count) + ")");
        if (cut_lines_.count)
            w.push_back(std::to_string(cut_lines_.count) + " event line" + (cut_lines_.count == 1 ? "" : "s") +
                        " cut short at the text's start or end, ignored (" + lines_text(cut_lines_.lines, cut_lines_.count) + ")");
        if (elisions_.count)
            w.push_back(std::to_string(elisions_.count) + " elision mark" + (elisions_.count == 1 ? "" : "s") + " (" +
                        lines_text(elisions_.lines, elisions_.count) +
                        "): events were left out there; the replay reads what is shown as consecutive");
        if (annotations_.count)
            w.push_back(std::to_string(annotations_.count) + " non-event lines (annotations) skipped (" +
                        lines_text(annotations_.lines, annotations_.count) + ")");
        if (counter_ts_ && !decimal_ts_) {
            // trace-cmd prints x86-tsc and counter times as whole numbers; only the TSC
            // has a use here (a guest's trace aligned to its host: capture/README.md)
            if (t_.meta.clock.empty()) t_.meta.clock = "x86-tsc";
            t_.meta.notes.push_back("timestamps are whole numbers: read as the cycles of the x86-tsc trace clock");
        } else if (counter_ts_) {
            w.push_back(std::to_string(counter_ts_) + " timestamps are whole numbers and " + std::to_string(decimal_ts_) +
                        " are seconds: two clocks in one text, its times are not comparable");
        }
        if (joined_lines_)
            t_.meta.notes.push_back(std::to_string(joined_lines_) + " wrapped line" + (joined_lines_ == 1 ? "" : "s") +
                                    " joined to the record before " + (joined_lines_ == 1 ? "it" : "them") +
                                    (wrap_width_ ? " (the text is wrapped at about " + std::to_string(wrap_width_) + " columns)" : ""));
    }

    // Mail clients wrap at 72–80 columns; a line proven broken wider than this is
    // not the wrap column.
    static constexpr std::size_t kMaxWrapWidth = 160;
    // The narrowest column a line broken by a mail client ends at: a value joined
    // mid-token needs a line this wide.
    static constexpr std::size_t kMinWrapWidth = WrapColumn::kMinMailColumn;
    // Columns a line may exceed the widest broken line by and still be broken: quote
    // marks of a reply.
    static constexpr std::size_t kQuoteSlack = 8;

    struct Record {
        bool active = false;
        bool has_task = false;
        std::string comm;
        std::int32_t tid = -1, cpu = -1;
        std::optional<std::int64_t> ts;
        std::uint64_t line = 0;       // the line it starts on
        bool awaiting_body = false;   // a header with no "name:" yet
        std::string partial;          // the header's rest cut inside the name ("kvm_inj_v", "kvm:")
        bool bare = false;            // no task/CPU/timestamp columns
        std::size_t bare_indent = 0;
        std::string name, info;
        std::vector<std::size_t> breaks;  // where info joins a line that may have been broken mid-token
        EventKind kind = EventKind::Other;
        bool known = false;           // a kind irqflow parses
        InfoParse parse;
        Event parsed;
        std::size_t last_width = 0;   // of its last physical line
        bool last_soft = false;
        bool last_quoted = false;
    };
    struct CutShort {
        std::uint64_t line;
        EventKind kind;
        std::string missing;
    };

    const std::string& path_;
    Trace& t_;
    const EventSink* sink_;
    Record r_;
    std::optional<Line> held_;  // a line the next one decides (a header broken in two, or an annotation)
    std::vector<Event> lost_pending_;
    std::int64_t last_ts_ = 0;
    std::uint64_t record_ = 0;
    std::uint64_t events_ = 0;
    bool bare_layout_ = false;    // a known event without task/CPU/timestamp columns was seen
    std::size_t wrap_width_ = 0;  // the column the text is wrapped at: known, or the widest line proven broken, or 0
    std::uint64_t joined_lines_ = 0;
    std::uint64_t counter_ts_ = 0, decimal_ts_ = 0;  // event timestamps read as whole numbers / as seconds
    std::map<std::pair<EventKind, int>, Noted> variants_;  // (kind, print format) → records read by it
    std::vector<CutShort> cut_short_;
    Noted unparsed_, no_event_, cut_lines_, elisions_, annotations_;
};

}  // namespace

struct TextLines::Parser : TextParser {
    using TextParser::TextParser;
};

TextLines::TextLines(const std::string& shown, Trace& t, const EventSink& sink)
    : shown_(shown), sink_(sink), parser_(std::make_unique<Parser>(shown_, t, 0, &sink_)) {
    t.meta.source = shown;
    t.meta.format = "trace-cmd report text";
}
TextLines::~TextLines() = default;

void TextLines::line(std::string_view text, std::uint64_t lineno, bool unterminated) {
    if (text.find(" kvm:kvm_") != std::string_view::npos) perf_ = true;
    try {
        parser_->line(text, lineno);
    } catch (const InputError&) {
        if (!unterminated) throw;
        cut_ = lineno;  // cut inside its last line: the cut, not a malformed stream
    }
}
void TextLines::idle() { parser_->idle(); }
void TextLines::end(std::uint64_t unterminated_line, Trace& t) {
    if (perf_) t.meta.format = "perf script text";
    if (cut_) {
        t.meta.warnings.push_back("the text ends mid-record: line " + std::to_string(cut_) + " has no line end and cannot be read (ignored)");
        unterminated_line = 0;
    }
    parser_->end(unterminated_line);
}

Trace read_trace_text(const std::string& path) {
    LineFile in(path);  // a line at a time, each at most 1 MiB: never the file as one piece
    Trace t;
    t.meta.source = path;
    WrapColumn wrap;  // a first pass: the column a mail client wrapped the text at, if it did
    std::string line;
    while (in.next(line)) wrap.line(line);
    in.rewind();
    TextParser p(path, t, wrap.column());
    std::uint64_t lineno = 0;
    bool perf = false;
    bool unterminated = false;  // the last line stops without a line end
    bool cut = false;  // that line could not be read
    while (in.next(line)) {
        lineno = in.lineno();
        unterminated = in.unterminated();
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
    return t;
}

}  // namespace irqflow
