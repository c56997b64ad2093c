#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "args.hpp"
#include "event_format.hpp"
#include "time_text.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/serial.hpp"

namespace irqflow::cli {
namespace {

struct EventsOptions {
    std::string trace, serial, guest, kind, range, grep;
    int vcpu = -1, vector = -1;
    bool json = false;
};

std::string joined(const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
    return out;
}

// A --vcpu or --kind the trace cannot have is a mistake to say, not an empty output.
void validate(const EventsOptions& a, const Trace& t, const GuestTrace* guest) {
    if (a.vcpu >= 0) check_vcpu(t, a.trace, a.vcpu);
    if (guest && (a.kind == "guest" || std::find(guest->names.begin(), guest->names.end(), a.kind) != guest->names.end())) return;
    if (!a.kind.empty() && a.kind != "serial") {
        std::set<std::string> known;  // in this trace, or a kind irqflow decodes
        for (std::size_t i = 0; i < t.name_count(); ++i) known.insert(t.name(static_cast<std::uint16_t>(i)));
        for (const auto& k : all_kinds()) known.insert(std::string(k.name));
        if (!known.count(a.kind) && !known.count("kvm_" + a.kind)) {
            std::set<std::string> here;  // the events it holds (the name table also lists formats never used)
            for (const auto& e : t.events) here.insert(t.name(e.name_id));
            throw UsageError("--kind " + a.kind + ": no such event; " + a.trace + " has " + joined(here));
        }
    }
}

int run(const EventsOptions& a) {
    LoadOptions lo;
    lo.other_event_info = true;  // every event printed with its fields, as trace-cmd report does
    Trace t = load_trace(readable_trace(a.trace), lo);
    // what the reader skipped or joined, on stderr: stdout stays the events
    for (const auto& w : t.meta.warnings) std::cerr << "irqflow: warning: " << w << "\n";
    for (const auto& n : t.meta.notes) std::cerr << "irqflow: note: " << n << "\n";
    std::optional<SerialLog> serial;
    if (!a.serial.empty()) {
        serial = read_serial_log(a.serial);
        align_serial(t, *serial);
        std::cerr << "irqflow: serial " << a.serial << ": " << serial->method << "\n";
    }
    std::optional<GuestTrace> guest;
    VmId guest_vm = kUnknownVm;
    if (!a.guest.empty()) {
        guest = load_guest_trace(readable_trace(a.guest));
        for (const auto& n : guest->meta.notes) std::cerr << "irqflow: note: " << a.guest << ": " << n << "\n";
        const GuestClock clock = align_guest_clock(t, *guest);
        std::cerr << "irqflow: guest " << a.guest << ": " << clock.detail << "\n";
        if (clock.method == GuestClock::Method::None)
            throw InputError(a.guest, {}, "its events cannot be put on the host trace's clock: " + clock.detail);
        guest_vm = clock.vm;
    }
    validate(a, t, guest ? &*guest : nullptr);
    // "kvm_exit" or its short form "exit"
    auto kind_matches = [&](const Event& e) {
        if (a.kind.empty()) return true;
        const std::string& n = t.name(e.name_id);
        return n == a.kind || n == "kvm_" + a.kind;
    };
    const std::int64_t start = t.events.empty() ? 0 : t.events.ts(0).value();
    std::optional<std::pair<std::int64_t, std::int64_t>> span;
    if (!a.range.empty() && !(span = ui::parse_time_range(a.range, start)))
        throw UsageError("--range " + a.range + ": A:B with A < B, each " + ui::kTimeSyntax);
    std::ios::sync_with_stdio(false);
    std::ostream& o = std::cout;
    std::size_t s = 0;
    auto flush_serial_until = [&](std::int64_t ts) {
        if (!serial || (!a.kind.empty() && a.kind != "serial") || a.vcpu >= 0 || a.vector >= 0) return;
        while (s < serial->lines.size() && (!serial->lines[s].host_ts || serial->lines[s].host_ts->value() <= ts)) {
            const auto& l = serial->lines[s];
            if ((span && (!l.host_ts || l.host_ts->value() < span->first)) || (!a.grep.empty() && l.text.find(a.grep) == std::string::npos)) {
                ++s;
                continue;
            }
            if (a.json) print_serial_json(o, serial->lines[s], serial->vm);
            else print_serial_text(o, serial->lines[s], serial->vm);
            ++s;
        }
    };
    std::ostringstream line;  // --grep matches the event's text line, in either output
    std::size_t gi = 0;
    // the guest's events up to ts (aligned ones only: the rest have no host time)
    auto flush_guest_until = [&](std::int64_t ts) {
        if (!guest) return;
        for (; gi < guest->events.size() && guest->events[gi].aligned && guest->events[gi].ts.value() <= ts; ++gi) {
            const GuestEvent& g = guest->events[gi];
            if (span && g.ts.value() < span->first) continue;
            if (a.vcpu >= 0 && g.vcpu.value() != a.vcpu) continue;
            if (!a.kind.empty() && a.kind != guest->names[g.name_id] && a.kind != "guest") continue;
            if (a.vector >= 0 && g.vector.value() != a.vector) continue;
            line.str({});
            print_guest_text(line, *guest, g, guest_vm);
            if (!a.grep.empty() && line.view().find(a.grep) == std::string_view::npos) continue;
            if (a.json) print_guest_json(o, *guest, g, guest_vm);
            else o << line.view();
        }
    };
    for (const auto& e : t.events) {
        if (span && (e.ts.value() < span->first || e.ts.value() > span->second)) continue;
        flush_serial_until(e.ts.value());
        flush_guest_until(e.ts.value());
        if (a.vcpu >= 0 && e.vcpu.value() != a.vcpu) continue;
        if (!kind_matches(e)) continue;
        if (a.vector >= 0 && event_vector(e) != a.vector) continue;
        if (!a.grep.empty()) {
            line.str({});
            print_event_text(line, t, e);
            if (line.view().find(a.grep) == std::string_view::npos) continue;
            if (!a.json) {
                o << line.view();
                continue;
            }
        }
        if (a.json) print_event_json(o, t, e);
        else print_event_text(o, t, e);
    }
    flush_serial_until(span ? span->second : INT64_MAX);
    flush_guest_until(span ? span->second : INT64_MAX);
    o.flush();
    return o ? kExitOk : kExitBadInput;
}

}  // namespace

void add_events(CLI::App& app, Commands& out) {
    auto a = std::make_shared<EventsOptions>();
    auto* c = app.add_subcommand("events", "print the normalized event stream, one event per line (or JSON object)");
    add_trace(*c, a->trace);
    add_serial(*c, a->serial);
    add_guest(*c, a->guest);
    add_vcpu(*c, a->vcpu);
    c->add_option("--kind", a->kind, "only this event: its tracepoint name (kvm_exit) or short form (exit); serial: the console lines; "
                                     "guest: the --guest trace's events (or one of them by name: local_timer_entry)")
        ->type_name("NAME");
    c->add_option_function<std::string>(
           "--vector", [a](const std::string& v) { a->vector = parse_vector(v); },
           "only events about this vector (0xec or 236): its accepts, injections, EOIs and ICR IPIs")
        ->type_name("V");
    c->add_option("--range", a->range, std::string("only events in this span: A:B, each ") + ui::kTimeSyntax)->type_name("A:B");
    c->add_option("--grep", a->grep, "only events whose printed line contains TEXT (e.g. EXIT_MSR, ecx=0x830, rip=0xffff)")
        ->type_name("TEXT");
    c->add_flag("--json", a->json, "one JSON object per line");
    c->footer(examples({"irqflow events samples/pveoi-on.dat --vcpu 1 --kind inj_virq",
                        "irqflow events samples/pveoi-on.dat --vector 0xec --range +8s:+8.02s",
                        "irqflow events trace.dat --serial console.log --kind serial",
                        "irqflow events samples/hostguest.dat --guest samples/hostguest-guest.dat --vcpu 2 --range +20s:+20.01s",
                        "trace-cmd report -i trace.dat > t.txt && irqflow events t.txt --json"}));
    out.emplace_back(c, [a] { return run(*a); });
}

}  // namespace irqflow::cli
