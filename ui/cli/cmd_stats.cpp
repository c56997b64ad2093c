#include <iomanip>
#include <iostream>

#include "args.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/summary.hpp"
#include "json.hpp"

namespace irqflow::cli {
namespace {

void print_json(const Trace& t, const TraceSummary& s) {
    std::ostream& o = std::cout;
    {
        JsonObject j(o);
        json_string(j.key("source"), shown_name(t.meta.source));
        json_string(j.key("format"), t.meta.format);
        json_string(j.key("kernel"), t.meta.kernel_release);
        json_string(j.key("clock"), t.meta.clock);
        json_string(j.key("buffer"), t.meta.buffer);
        j.key("host_cpus") << t.meta.host_cpus;
        j.key("records") << s.records;
        j.key("first_ts_ns") << s.first_ts;
        j.key("last_ts_ns") << s.last_ts;
        json_counts(j.key("events"), s.events);
        j.key("lost_events") << s.lost_events;
        j.key("lost_gaps") << s.lost_gaps;
        j.key("lost_gaps_unknown_count") << s.lost_gaps_unknown;
        j.key("unattributed_kvm_events") << s.unattributed;
        json_counts(j.key("exits_by_reason"), s.exits_by_reason);
        j.key("vcpus") << '[';
        for (std::size_t i = 0; i < s.vcpus.size(); ++i) {
            const auto& v = s.vcpus[i];
            if (i) o << ',';
            JsonObject jv(o);
            jv.key("vm") << v.vm.value();
            jv.key("vcpu") << v.vcpu.value();
            jv.key("tid") << v.tid.value();
            jv.key("apic_id") << v.apic.value();
            jv.key("apic_id_from_trace") << (v.apic_from_trace ? "true" : "false");
            jv.key("events") << v.events;
            json_counts(jv.key("by_name"), v.by_name);
            json_counts(jv.key("exits_by_reason"), v.exits_by_reason);
        }
        o << ']';
        j.key("warnings") << '[';
        for (std::size_t i = 0; i < t.meta.warnings.size(); ++i) {
            if (i) o << ',';
            json_string(o, t.meta.warnings[i]);
        }
        o << ']';
    }
    o << '\n';
}

void print_text(const Trace& t, const TraceSummary& s) {
    std::ostream& o = std::cout;
    o << shown_name(t.meta.source) << ": " << t.meta.format;
    if (!t.meta.kernel_release.empty()) o << ", host kernel " << t.meta.kernel_release;
    if (!t.meta.clock.empty()) o << ", clock " << t.meta.clock;
    o << "\n" << s.records << " events over " << std::fixed << std::setprecision(6)
      << static_cast<double>(s.last_ts - s.first_ts) / 1e9 << " s";
    o << "; lost: " << s.lost_events << " events in " << s.lost_gaps << " gaps";
    if (s.lost_gaps_unknown) o << " (" << s.lost_gaps_unknown << " of unknown size)";
    o << "\n";
    for (const auto& w : t.meta.warnings) o << "warning: " << w << "\n";
    o << "\nevents by name:\n";
    for (const auto& [k, v] : s.events) o << std::setw(10) << v << "  " << k << "\n";
    o << "\nexits by reason:\n";
    for (const auto& [k, v] : s.exits_by_reason) o << std::setw(10) << v << "  " << k << "\n";
    o << "\nvCPUs:\n";
    for (const auto& v : s.vcpus) {
        auto exits = v.by_name.count("kvm_exit") ? v.by_name.at("kvm_exit") : 0;
        o << "  vm" << v.vm.value() << "/vcpu" << v.vcpu.value() << "  tid " << v.tid.value() << "  apic " << v.apic.value()
          << (v.apic_from_trace ? "" : " (assumed)") << "  events " << v.events << "  exits " << exits << "\n";
    }
    if (s.unattributed) o << "  " << s.unattributed << " kvm events not attributable to a vCPU\n";
}

}  // namespace

void add_stats(CLI::App& app, Commands& out) {
    struct Options {
        std::string trace;
        bool json = false;
    };
    auto a = std::make_shared<Options>();
    auto* c = app.add_subcommand("stats", "counts per event name and per vCPU, exits per reason, lost events");
    add_trace(*c, a->trace);
    c->add_flag("--json", a->json, "one JSON document");
    c->footer(examples({"irqflow stats samples/pveoi-on.dat", "irqflow stats trace.dat --json | jq .exits_per_reason"}));
    out.emplace_back(c, [a] {
        TraceStream stream(readable_trace(a->trace));  // streamed: memory per vCPU, not per event
        Summarizer summarizer(stream.trace());
        stream.each_event([&](const Event& e) { summarizer.add(e); });
        const TraceSummary s = summarizer.finish();
        if (a->json) print_json(stream.trace(), s);
        else print_text(stream.trace(), s);
        return kExitOk;
    });
}

}  // namespace irqflow::cli
