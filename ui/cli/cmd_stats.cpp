#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "args.hpp"
#include "guest_report.hpp"
#include "pipeline.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/summary.hpp"
#include "json.hpp"

namespace irqflow::cli {
namespace {

Json json_exit_times(const std::map<std::string, ExitTime>& times) {
    Json j = Json::object();
    for (const auto& [reason, t] : times)
        j[reason] = {{"samples", t.samples}, {"total_ns", t.total_ns}, {"min_ns", t.min_ns}, {"max_ns", t.max_ns},
                     {"avg_ns", static_cast<std::int64_t>(t.mean_ns + 0.5)}, {"stderr_percent", t.stderr_percent()}};
    return j;
}

// perf kvm stat report's main view: per exit reason the exits timed (an entry followed),
// their share of them and of the host time, min / max / mean host time and the mean's
// relative standard error; most frequent first.
void print_exit_table(std::ostream& o, const std::map<std::string, ExitTime>& times, std::uint64_t exits) {
    std::vector<std::pair<std::string, ExitTime>> rows(times.begin(), times.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.samples > b.second.samples; });
    std::uint64_t samples = 0;
    std::int64_t total = 0;
    std::size_t width = 7;  // "VM-EXIT"
    for (const auto& [r, t] : rows) {
        samples += t.samples;
        total += t.total_ns;
        width = std::max(width, r.size());
    }
    const auto us = [](double ns) { return ns / 1e3; };
    char line[256];
    std::snprintf(line, sizeof line, "%*s %10s %9s %9s %11s %11s %16s\n", static_cast<int>(width), "VM-EXIT", "Samples", "Samples%", "Time%",
                  "Min Time", "Max Time", "Avg time");
    o << line << "\n";
    for (const auto& [r, t] : rows) {
        std::snprintf(line, sizeof line, "%*s %10llu %8.2f%% %8.2f%% %9.2fus %9.2fus %9.2fus ( +-%7.2f%% )\n", static_cast<int>(width),
                      r.c_str(), static_cast<unsigned long long>(t.samples), 100.0 * static_cast<double>(t.samples) / static_cast<double>(samples),
                      total ? 100.0 * static_cast<double>(t.total_ns) / static_cast<double>(total) : 0.0, us(static_cast<double>(t.min_ns)),
                      us(static_cast<double>(t.max_ns)), us(t.mean_ns), t.stderr_percent());
        o << line;
    }
    std::snprintf(line, sizeof line, "\nTotal Samples:%llu, Total events handled time:%.2fus.\n", static_cast<unsigned long long>(samples),
                  us(static_cast<double>(total)));
    o << line;
    if (exits > samples)
        o << "(" << exits - samples << (exits - samples == 1 ? " exit" : " exits")
          << " not timed: no entry of the vCPU followed before the trace ended or a lost-event gap began)\n";
}

void print_json(const Trace& t, const TraceSummary& s, const GuestReport* guest) {
    Json j;
    j["source"] = shown_name(t.meta.source);
    j["format"] = t.meta.format;
    j["kernel"] = t.meta.kernel_release;
    j["clock"] = t.meta.clock;
    j["buffer"] = t.meta.buffer;
    j["host_cpus"] = t.meta.host_cpus;
    j["records"] = s.records;
    j["first_ts_ns"] = s.first_ts;
    j["last_ts_ns"] = s.last_ts;
    j["events"] = json_counts(s.events);
    j["lost_events"] = s.lost_events;
    j["lost_gaps"] = s.lost_gaps;
    j["lost_gaps_unknown_count"] = s.lost_gaps_unknown;
    j["unattributed_kvm_events"] = s.unattributed;
    j["exits_by_reason"] = json_counts(s.exits_by_reason);
    j["exit_time_by_reason"] = json_exit_times(s.exit_time_by_reason);
    Json vcpus = Json::array();
    for (const auto& v : s.vcpus)
        vcpus.push_back({{"vm", json_id(v.vm, kUnknownVm)},
                         {"vcpu", json_id(v.vcpu, kUnknownVcpu)},
                         {"tid", v.tid.value()},
                         {"apic_id", v.apic.value()},
                         {"apic_id_from_trace", v.apic_from_trace},
                         {"events", v.events},
                         {"by_name", json_counts(v.by_name)},
                         {"exits_by_reason", json_counts(v.exits_by_reason)},
                         {"exit_time_by_reason", json_exit_times(v.exit_time_by_reason)}});
    j["vcpus"] = std::move(vcpus);
    j["warnings"] = t.meta.warnings;
    j["notes"] = t.meta.notes;
    if (guest) j["guest"] = guest_report_json(*guest);
    std::cout << json_text(j) << '\n';
}

std::uint64_t total(const std::map<std::string, std::uint64_t>& m) {
    std::uint64_t n = 0;
    for (const auto& [k, v] : m) n += v;
    return n;
}

// `stats --vcpu N`: that vCPU's exits, as `perf kvm stat report --vcpu N` shows them.
void print_vcpu_text(const Trace& t, const TraceSummary& s, int vcpu) {
    std::ostream& o = std::cout;
    for (const auto& v : s.vcpus)
        if (v.vcpu.value() == vcpu) {
            o << shown_name(t.meta.source) << ": vm" << v.vm.value() << "/vcpu" << v.vcpu.value() << " (tid " << v.tid.value() << "), "
              << v.events << " events\n\nVM exits of this vCPU, time in the host (exit to its next entry):\n\n";
            print_exit_table(o, v.exit_time_by_reason, total(v.exits_by_reason));
        }
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
    for (const auto& n : t.meta.notes) o << "note: " << n << "\n";
    o << "\nevents by name:\n";
    for (const auto& [k, v] : s.events) o << std::setw(10) << v << "  " << k << "\n";
    o << "\nVM exits, time in the host (exit to the vCPU's next entry), as perf kvm stat report shows them:\n\n";
    print_exit_table(o, s.exit_time_by_reason, total(s.exits_by_reason));
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
        std::string trace, guest;
        bool json = false;
        int vcpu = -1;
    };
    auto a = std::make_shared<Options>();
    auto* c = app.add_subcommand("stats",
                                 "counts per event name and per vCPU, lost events, and VM exits per reason with their time in the "
                                 "host (perf kvm stat report's view)");
    add_trace(*c, a->trace);
    add_vcpu(*c, a->vcpu)->description("only this vCPU's exit table (perf kvm stat report --vcpu N), decimal; --json always has every vCPU under \"vcpus\"");
    c->add_flag("--json", a->json, "one JSON document (times in ns)");
    add_guest(*c, a->guest)->description("the guest's own trace of the same run: each vector's delivery stage by stage across both sides "
                                         "(accept, injection, the guest's handler, its run, the EOI)");
    c->footer(examples({"irqflow stats samples/pveoi-on.dat", "irqflow stats samples/pveoi-on.dat --vcpu 1",
                        "irqflow stats trace.dat --json | jq .exit_time_by_reason",
                        "irqflow stats samples/hostguest.dat --guest samples/hostguest-guest.dat"}));
    out.emplace_back(c, [a] {
        if (!a->guest.empty()) {  // the host's events held and replayed with the guest's (pipeline::check)
            const pipeline::Checked k = pipeline::check({readable_trace(a->trace), {}, {}, readable_trace(a->guest)}, {});
            if (a->vcpu >= 0) check_vcpu(k.trace, a->trace, a->vcpu);
            Summarizer summarizer(k.trace);
            k.trace.events.for_each([&](const Event& e) { summarizer.add(e); });
            const TraceSummary s = summarizer.finish();
            const GuestReport g{a->guest, k.guest_clock, *k.result.guest};
            if (a->json) return print_json(k.trace, s, &g), kExitOk;
            if (a->vcpu >= 0) print_vcpu_text(k.trace, s, a->vcpu);
            else print_text(k.trace, s);
            std::printf("\nguest %s: %s\n", a->guest.c_str(), g.clock.detail.c_str());
            print_guest_latency(g.match);
            return kExitOk;
        }
        TraceStream stream(readable_trace(a->trace));  // streamed: memory per vCPU, not per event
        if (a->vcpu >= 0) check_vcpu(stream.trace(), a->trace, a->vcpu);
        Summarizer summarizer(stream.trace());
        stream.each_event([&](const Event& e) { summarizer.add(e); });
        const TraceSummary s = summarizer.finish();
        if (a->json) print_json(stream.trace(), s, nullptr);
        else if (a->vcpu >= 0) print_vcpu_text(stream.trace(), s, a->vcpu);
        else print_text(stream.trace(), s);
        return kExitOk;
    });
}

}  // namespace irqflow::cli
