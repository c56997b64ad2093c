#include "info_parser.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/symbols.hpp"

namespace irqflow {
namespace {

struct Sym {
    std::string name;
    std::int64_t value;
};
struct SymTable {
    const char* id;
    std::vector<Sym> syms;
};

std::vector<Sym> syms(symbols::Table t, std::string_view prefix = {}) {
    std::vector<Sym> v;
    for (const auto& s : t) v.push_back({std::string(prefix) + std::string(s.name), s.value});
    return v;
}

const std::vector<SymTable>& symbol_tables() {
    static const std::vector<SymTable> t = {
        {"dm", syms(symbols::kDeliveryModes)},
        {"tm", syms(symbols::kTriggerModes)},
        {"destmode", syms(symbols::kDestinationModes)},
        {"level", {{"de-assert", 0}, {"assert", 1}}},
        {"shorthand", syms(symbols::kShorthands)},
        {"rw", syms(symbols::kReadWrite)},
        {"softirq", {{"IRQ", 0}, {"Soft/INTn", 1}}},
        {"setclr", {{"cleared", 0}, {"set", 1}}},
        {"waitpoll", {{"poll", 0}, {"wait", 1}}},
        {"valid", {{"invalid", 0}, {"valid", 1}}},
        {"irqchip", {{"PIC master", 0}, {"PIC slave", 1}, {"IOAPIC", 2}}},
        {"fastslow", {{"slow", 0}, {"fast", 1}}},
        {"mmiotype", syms(symbols::kMmioTypes)},
        {"earlylate", {{"early", 0}, {"late", 1}}},
        {"excp", syms(symbols::kExceptions)},  // "#GP" → 13
        {"apicreg", syms(symbols::kApicRegisters, "APIC_")},
    };
    return t;
}

const SymTable* find_table(std::string_view id) {
    for (const auto& t : symbol_tables())
        if (id == t.id) return &t;
    return nullptr;
}

// A pattern is literal text with {slot:conv} holes. conv is u (decimal), d (signed
// decimal), x (hex, optional 0x), exit (exit reason; also sets isa), a symbol table
// id (falls back to a printed number), flag:TEXT (slot = 1 when TEXT is here; absent
// otherwise), opt:TEXT (TEXT may be here; nothing recorded) or rest (whatever follows:
// fields irqflow does not use, printed differently by each kernel). Slot "_" discards.
struct Token {
    enum Type { Literal, Hole } type = Literal;
    std::string text;     // literal, or flag/opt text
    int slot = -1;        // -1: discard
    std::string_view field;  // the kernel's name of the field (for "the record lacks …")
    std::string conv;
    const SymTable* table = nullptr;
};
struct Pattern {
    std::vector<Token> tokens;
    std::uint16_t slots = 0;  // every slot a hole of it can fill
};

Pattern compile(EventKind kind, std::string_view src) {
    Pattern p;
    std::size_t i = 0;
    while (i < src.size()) {
        if (src[i] != '{') {
            std::size_t j = src.find('{', i);
            if (j == std::string_view::npos) j = src.size();
            Token lit;
            lit.type = Token::Literal;
            lit.text = std::string(src.substr(i, j - i));
            p.tokens.push_back(std::move(lit));
            i = j;
            continue;
        }
        std::size_t close = src.find('}', i);
        std::string_view body = src.substr(i + 1, close - i - 1);
        std::size_t colon = body.find(':');
        Token t;
        t.type = Token::Hole;
        std::string_view name = body.substr(0, colon);
        std::string_view conv = body.substr(colon + 1);
        t.slot = name == "_" ? -1 : field_slot(kind, name);
        if (t.slot >= 0) t.field = kind_info(kind).fields[static_cast<std::size_t>(t.slot)];
        if (conv.substr(0, 5) == "flag:" || conv.substr(0, 4) == "opt:") {
            std::size_t c2 = conv.find(':');
            t.text = std::string(conv.substr(c2 + 1));
            conv = conv.substr(0, c2);
        }
        t.conv = std::string(conv);
        t.table = find_table(t.conv);
        if (t.slot >= 0) p.slots = static_cast<std::uint16_t>(p.slots | (1u << t.slot));
        if (t.conv == "exit") p.slots = static_cast<std::uint16_t>(p.slots | (1u << slot::exit_isa));
        p.tokens.push_back(std::move(t));
        i = close + 1;
    }
    return p;
}

// Parses a number at s[pos]; base 16 accepts an optional 0x.
bool number(std::string_view s, std::size_t& pos, int base, bool allow_sign, std::int64_t& out) {
    std::size_t p = pos;
    bool neg = false;
    if (allow_sign && p < s.size() && s[p] == '-') { neg = true; ++p; }
    if (base == 16 && s.substr(p, 2) == "0x") p += 2;
    std::uint64_t v = 0;
    auto r = std::from_chars(s.data() + p, s.data() + s.size(), v, base);
    if (r.ec != std::errc() || r.ptr == s.data() + p) return false;
    if (neg && v > static_cast<std::uint64_t>(INT64_MAX) + 1) return false;  // below INT64_MIN
    pos = static_cast<std::size_t>(r.ptr - s.data());
    // unsigned values above INT64_MAX (kernel addresses) keep their bit pattern
    out = neg ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
    return true;
}

// The start of a number with no digit yet ("-", "0x", "-0x"): a text cut there.
bool number_start(std::string_view rest, int base, bool allow_sign) {
    if (allow_sign && !rest.empty() && rest.front() == '-') rest.remove_prefix(1);
    return rest.empty() || (base == 16 && (rest == "0" || rest == "0x"));
}

bool proper_prefix(std::string_view text, std::string_view of) { return text.size() < of.size() && of.compare(0, text.size(), text) == 0; }

// trace-cmd prints `CAN'T FIND FIELD "name"` where a print format names a field the
// event's format lacks (a report made with another kernel's formats). parse_info turns
// each into this marker: the hole it stands in is matched and its slot left absent.
constexpr char kMissing = '\x01';

struct Matched {
    InfoMatch match = InfoMatch::None;
    std::string_view missing;
};

// Whether the holes from token i on may all be empty (optional text, flags, the rest).
bool may_end_here(const Pattern& p, std::size_t i) {
    for (; i < p.tokens.size(); ++i) {
        const auto& t = p.tokens[i];
        if (t.type == Token::Literal || (t.conv != "flag" && t.conv != "opt" && t.conv != "rest")) return false;
    }
    return true;
}

// The name of the first field from token i on, for a text that stops before it.
std::string_view next_field(const Pattern& p, std::size_t i) {
    for (; i < p.tokens.size(); ++i)
        if (p.tokens[i].type == Token::Hole && !p.tokens[i].field.empty()) return p.tokens[i].field;
    return {};
}

Matched match(const Pattern& p, std::string_view s, Event& out) {
    Event e = out;
    std::size_t pos = 0;
    const auto prefix = [&](std::size_t token) {
        out = e;
        return Matched{InfoMatch::Prefix, next_field(p, token)};
    };
    for (std::size_t i = 0; i < p.tokens.size(); ++i) {
        const auto& t = p.tokens[i];
        const std::string_view rest = s.substr(pos);
        if (t.type == Token::Literal) {
            if (rest.substr(0, t.text.size()) != t.text) {
                // "rip 0x" before a missing value: the marker replaced the "0x" too
                const std::size_t n = t.text.size();
                if (n >= 2 && t.text.compare(n - 2, 2, "0x") == 0 && rest.substr(0, n - 2) == std::string_view(t.text).substr(0, n - 2) &&
                    n - 2 < rest.size() && rest[n - 2] == kMissing) {
                    pos += n - 2;
                    continue;
                }
                if (proper_prefix(rest, t.text)) return prefix(i);
                return {};
            }
            pos += t.text.size();
            continue;
        }
        if (t.conv == "rest") {
            pos = s.size();
            continue;
        }
        if (t.conv == "flag" || t.conv == "opt") {
            if (rest.substr(0, t.text.size()) == t.text) {
                pos += t.text.size();
                if (t.conv == "flag" && t.slot >= 0) e.set(t.slot, 1);
            } else if (!rest.empty() && proper_prefix(rest, t.text)) {
                return prefix(i);
            }
            continue;
        }
        if (rest.empty()) return prefix(i);
        if (rest.front() == kMissing) {
            ++pos;
            continue;
        }
        std::int64_t v = 0;
        bool read = false;  // a value was read (else: none here)
        if (t.conv == "u" || t.conv == "d" || t.conv == "x") {
            const int base = t.conv == "x" ? 16 : 10;
            read = number(s, pos, base, t.conv != "u", v);
            if (!read && number_start(rest, base, t.conv != "u")) return prefix(i);
        } else if (t.conv == "exit") {
            if (auto m = match_exit_reason(rest)) {
                v = m->code;
                pos += m->length;
                e.set(slot::exit_isa, m->isa);
                if (s.substr(pos, 15) == " FAILED_VMENTRY") { pos += 15; v |= 0x80000000LL; }
                read = true;
            } else if (rest.find(' ') == std::string_view::npos && exit_reason_prefix(rest)) {
                return prefix(i);
            } else {
                read = number(s, pos, 16, false, v);
            }
        } else if (t.table) {
            const Sym* best = nullptr;
            bool cut = false;
            for (const auto& sym : t.table->syms) {
                const std::size_t n = sym.name.size();
                if (rest.substr(0, n) == sym.name && (!best || n > best->name.size())) best = &sym;
                cut = cut || proper_prefix(rest, sym.name);
            }
            if (best) {
                v = best->value;
                pos += best->name.size();
                read = true;
            } else if (cut) {
                return prefix(i);
            } else {  // __print_symbolic prints unknown values in hex
                read = number(s, pos, 16, false, v);
            }
        }
        if (!read) return {};
        // A value the text ends in, with more of the format to come, may be cut short
        // ("rip 0xffffffffc07"): the line it continues on decides.
        if (pos == s.size() && !may_end_here(p, i + 1)) return prefix(i);
        if (t.slot >= 0) e.set(t.slot, v);
    }
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
    if (pos != s.size()) return {};
    out = e;
    return {InfoMatch::Full, {}};
}

struct KindPatterns {
    EventKind kind;
    std::vector<const char*> sources;
};

// Newest kernel format first; then trace-cmd plugin output; then older kernels.
const std::vector<KindPatterns>& sources() {
    using K = EventKind;
    static const std::vector<KindPatterns> s = {
        {K::Entry, {"vcpu {vcpu_id:u}, rip 0x{rip:x}{_:opt:[immediate exit]}", "vcpu {vcpu_id:u} rip 0x{rip:x}", "vcpu {vcpu_id:u}"}},
        {K::Exit,
         {"vcpu {vcpu_id:u} reason {exit_reason:exit} rip 0x{guest_rip:x} info1 0x{info1:x} info2 0x{info2:x} intr_info 0x{intr_info:x} error_code 0x{error_code:x}",
          "reason {exit_reason:exit} rip 0x{guest_rip:x} info1 0x{info1:x} info2 0x{info2:x} intr_info 0x{intr_info:x} error_code 0x{error_code:x}",
          "vcpu {vcpu_id:u} reason {exit_reason:exit} rip 0x{guest_rip:x} info {info1:x} {info2:x}",
          "reason {exit_reason:exit} rip 0x{guest_rip:x} info {info1:x} {info2:x}",
          "reason {exit_reason:exit} rip 0x{guest_rip:x}"}},
        {K::ApicAcceptIrq, {"apicid {apicid:x} vec {vec:u} ({dm:dm}|{tm:tm}){coalesced:flag: (coalesced)}"}},
        {K::InjVirq, {"{soft:softirq} 0x{vector:x}{reinjected:flag: [reinjected]}", "irq {vector:u}"}},
        {K::Eoi, {"apicid {apicid:x} vector {vector:d}"}},
        {K::PvEoi, {"apicid {apicid:x} vector {vector:d}"}},
        {K::ApicIpi, {"dst {dest_id:x} vec {vec:u} ({dm:dm}|{dest_mode:destmode}|{level:level}|{tm:tm}|{shorthand:shorthand})"}},
        {K::Apic, {"apic_{rw:rw} {reg:apicreg} = 0x{val:x}"}},
        {K::Msr, {"msr_{write:rw} {ecx:x} = 0x{data:x}{exception:flag: (#GP)}"}},
        {K::Hypercall, {"nr 0x{nr:x} a0 0x{a0:x} a1 0x{a1:x} a2 0x{a2:x} a3 0x{a3:x}"}},
        {K::Pio, {"pio_{rw:rw} at 0x{port:x} size {size:u} count {count:u} val 0x{val:x}{_:opt: (...)}",
                  "pio_{rw:rw} at 0x{port:x} size {size:u} count {count:u}"}},
        {K::IoapicSetIrq, {"pin {pin:u} dst {dst:x} vec {vec:u} ({dm:dm}|{dest_mode:destmode}|{tm:tm}{masked:flag:|masked}){coalesced:flag: (coalesced)}"}},
        {K::MsiSetIrq, {"dst {dst:x} vec {vec:u} ({dm:dm}|{dest_mode:destmode}|{tm:tm}{rh:flag:|rh})"}},
        {K::SetIrq, {"gsi {gsi:u} level {level:d} source {irq_source_id:d}"}},
        {K::PicSetIrq, {"chip {chip:u} pin {pin:u} ({tm:tm}{masked:flag:|masked}){coalesced:flag: (coalesced)}"}},
        {K::ApicvAcceptIrq, {"apicid {apicid:x} vec {vec:u} ({dm:dm}|{tm:tm})"}},
        {K::ApicvInhibitChanged, {"{set:setclr} reason={reason:u}, inhibits=0x{inhibits:x}"}},
        {K::HvSendIpi, {"vector {vector:x} processor_mask 0x{processor_mask:x}"}},
        {K::HvSendIpiEx, {"vector {vector:x} format {format:x} valid_bank_mask 0x{valid_bank_mask:x}"}},
        {K::HvSynicSetIrq, {"vcpu_id {vcpu_id:d} sint {sint:u} vector {vector:d} ret {ret:d}"}},
        {K::HvSynicSendEoi, {"vcpu_id {vcpu_id:d} vector {vector:d}"}},
        {K::VcpuWakeup, {"{waited:waitpoll} time {ns:d} ns, polling {valid:valid}"}},
        {K::WaitLapicExpire, {"vcpu {vcpu_id:u}: delta {delta:d} ({_:earlylate})"}},
        {K::AckIrq, {"irqchip {irqchip:irqchip} pin {pin:u}"}},
        {K::HvHypercall,
         {"code 0x{code:x} {fast:fastslow} var_cnt 0x{var_cnt:x} rep_cnt 0x{rep_cnt:x} idx 0x{rep_idx:x} in 0x{ingpa:x} out 0x{outgpa:x}",
          "code 0x{code:x} {fast:fastslow} cnt 0x{rep_cnt:x} idx 0x{rep_idx:x} in 0x{ingpa:x} out 0x{outgpa:x}"}},
        {K::Mmio, {"mmio {type:mmiotype} len {len:u} gpa 0x{gpa:x} val 0x{val:x}"}},
        {K::InjException,
         {"{exception:excp} ({error_code:x}){reinjected:flag: [reinjected]}", "{exception:excp}{reinjected:flag: [reinjected]}"}},
        {K::NestedVmenter,
         {"rip: 0x{rip:x} vm{_:opt:cb}{_:opt:cs}: 0x{vmcb:x} nested_rip: 0x{nested_rip:x} int_ctl: 0x{int_ctl:x} event_inj: 0x{event_inj:x}{_:rest}",
          "rip: 0x{rip:x} vmcb: 0x{vmcb:x} nrip: 0x{nested_rip:x} int_ctl: 0x{int_ctl:x} event_inj: 0x{event_inj:x}{_:rest}"}},
        {K::NestedVmexit,
         {"vcpu {vcpu_id:u} reason {exit_reason:exit} rip 0x{guest_rip:x} info1 0x{info1:x} info2 0x{info2:x} intr_info 0x{intr_info:x} error_code 0x{error_code:x}{_:rest}",
          "rip: 0x{guest_rip:x} reason: {exit_reason:exit} ext_inf1: 0x{info1:x} ext_inf2: 0x{info2:x} ext_int: 0x{intr_info:x} ext_int_err: 0x{error_code:x}"}},
        {K::NestedVmexitInject,
         {"reason: {exit_code:exit} ext_inf1: 0x{exit_info1:x} ext_inf2: 0x{exit_info2:x} ext_int: 0x{exit_int_info:x} ext_int_err: 0x{exit_int_info_err:x}",
          "reason {exit_code:exit} info1 {exit_info1:x} info2 {exit_info2:x} int_info {exit_int_info:x} int_info_err {exit_int_info_err:x}"}},
        {K::NestedIntrVmexit, {"rip: 0x{rip:x}"}},
        {K::PageFault,
         {"vcpu {vcpu_id:u} rip 0x{guest_rip:x} address 0x{fault_address:x} error_code 0x{error_code:x}",
          "address {fault_address:x} error_code {error_code:x}"}},
    };
    return s;
}

const std::array<std::vector<Pattern>, static_cast<std::size_t>(EventKind::Count_)>& compiled() {
    static const auto c = [] {
        std::array<std::vector<Pattern>, static_cast<std::size_t>(EventKind::Count_)> out;
        for (const auto& kp : sources())
            for (const char* src : kp.sources) out[static_cast<std::size_t>(kp.kind)].push_back(compile(kp.kind, src));
        return out;
    }();
    return c;
}

// kvm_userspace_exit prints "reason NAME (N)": N is the reason, or -errno when NAME is
// "restart" (-EINTR) or "error". libtraceevent evaluates the errno test wrongly and
// prints "KVM_EXIT_UNKNOWN (0)" for errno -4, so a printed reason says nothing about
// errno: only the reason is taken from such lines.
InfoMatch parse_userspace_exit(std::string_view s, Event& e) {
    if (s.substr(0, 7) != "reason ") return proper_prefix(s, "reason ") ? InfoMatch::Prefix : InfoMatch::None;
    std::size_t open = s.rfind(" (");
    if (open == std::string_view::npos || open < 7) return InfoMatch::Prefix;  // "reason KVM_EXIT_MMIO" and the rest to come
    std::string_view name = s.substr(7, open - 7);
    std::size_t pos = open + 2;
    std::int64_t n = 0;
    if (!number(s, pos, 10, true, n)) return number_start(s.substr(pos), 10, true) ? InfoMatch::Prefix : InfoMatch::None;
    if (pos == s.size()) return InfoMatch::Prefix;  // "(1" of "(17)"
    if (s.substr(pos) != ")") return InfoMatch::None;
    if (name == "restart" || name == "error") {
        e.set(1, -n);
    } else {
        e.set(0, n);
    }
    return InfoMatch::Full;
}

int count_fields(const Event& e) { return std::popcount(static_cast<unsigned>(e.present)); }

}  // namespace

InfoParse parse_info(EventKind kind, std::string_view info, Event& e) {
    while (!info.empty() && (info.back() == ' ' || info.back() == '\t' || info.back() == '\r')) info.remove_suffix(1);
    while (!info.empty() && (info.front() == ' ' || info.front() == '\t')) info.remove_prefix(1);
    if (kind == EventKind::UserspaceExit) {
        Event x = e;
        const InfoMatch m = parse_userspace_exit(info, x);
        if (m == InfoMatch::None) return {};
        e = x;
        return {m, 0, count_fields(e), m == InfoMatch::Prefix ? std::string_view("exit_reason") : std::string_view()};
    }
    std::string marked;
    if (info.find("CAN'T FIND FIELD \"") != std::string_view::npos) {
        marked.assign(info);
        for (std::size_t i = 0; (i = marked.find("CAN'T FIND FIELD \"", i)) != std::string::npos;) {
            std::size_t end = marked.find('"', i + 18);
            end = end == std::string::npos ? marked.size() : end + 1;
            const std::size_t from = i >= 2 && marked.compare(i - 2, 2, "0x") == 0 ? i - 2 : i;
            marked.replace(from, end - from, 1, kMissing);
            i = from + 1;
        }
        info = marked;
    }
    InfoParse best;
    Event best_event;
    const auto& patterns = compiled()[static_cast<std::size_t>(kind)];
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        Event x = e;
        const Matched m = match(patterns[i], info, x);
        if (m.match == InfoMatch::Full) {
            e = x;
            return {InfoMatch::Full, static_cast<int>(i), count_fields(e), {}};
        }
        if (m.match == InfoMatch::Prefix && best.match == InfoMatch::None) {
            best = {InfoMatch::Prefix, static_cast<int>(i), count_fields(x), m.missing};
            best_event = x;
        }
    }
    if (best.match == InfoMatch::Prefix) e = best_event;
    return best;
}

std::uint16_t pattern_slots(EventKind kind, int pattern) {
    const auto& patterns = compiled()[static_cast<std::size_t>(kind)];
    if (pattern < 0 || static_cast<std::size_t>(pattern) >= patterns.size()) return 0;
    return patterns[static_cast<std::size_t>(pattern)].slots;
}

}  // namespace irqflow
