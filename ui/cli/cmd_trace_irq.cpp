// irqflow trace-irq TRACE --vector V: one vector's interrupts followed end to end —
// each accept → inject → EOI with the time each stage took, and each IPI of the vector
// from its sender to what it became on every destination (ui/common/irq_chains.hpp).
#include <cstdio>
#include <iostream>

#include "args.hpp"
#include "event_format.hpp"
#include "irq_chains.hpp"
#include "json.hpp"
#include "percentile.hpp"
#include "pipeline.hpp"
#include "time_text.hpp"

namespace irqflow::cli {
namespace {

using namespace irqflow::replay;

struct TraceIrqOptions {
    std::string trace, serial, range;
    int vector = -1, vcpu = -1;
    bool json = false;
    ReplayOptions replay;
};

std::string us(std::int64_t ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f µs", static_cast<double>(ns) / 1e3);
    return b;
}

std::string vcpu_name(VmId vm, VcpuId v) {
    return (vm == kUnknownVm ? std::string("-") : "vm" + std::to_string(vm.value())) + "/" +
           (v == kUnknownVcpu ? std::string("-") : "vcpu" + std::to_string(v.value()));
}

std::string hex(int v) {
    char b[8];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

// "record 1234" in a trace.dat, "line 57" in text (what a pasted report's reader finds)
std::string where(const Trace& t, std::uint64_t record) {
    if (const auto line = t.line_of(record)) return "line " + std::to_string(*line);
    return "record " + std::to_string(record);
}

// The stages after `from` (the send, or the accept): "+7.9 µs accept (record 12) +12.3 µs inject …"
std::string stages_text(const Trace& t, const InterruptRecord& i, std::optional<std::int64_t> sent) {
    std::string o;
    std::int64_t last = sent.value_or(0);
    bool have_last = sent.has_value();
    if (i.accept_ts != 0) {
        o += (have_last ? "+" + us(i.accept_ts - last) + " " : std::string()) + "accept (" + where(t, i.accept_record) + ")";
        last = i.accept_ts;
        have_last = true;
    } else {
        o += "accept not seen";
    }
    o += " " + (have_last ? "+" + us(i.inject_ts - last) + " " : std::string()) + "inject (" + where(t, i.inject_record) + ")";
    if (i.eoi_ts != 0)
        o += " +" + us(i.eoi_ts - i.inject_ts) + " EOI (" + where(t, i.eoi_record) + (i.eoi_path ? std::string(", ") + to_string(*i.eoi_path) : "") + ")";
    else
        o += ", no EOI in the trace";
    if (i.nesting_depth > 1) o += " [nested, depth " + std::to_string(i.nesting_depth) + "]";
    return o;
}

// A destination with no interrupt of its own: where the trace lost it.
std::string undelivered_text(const Trace& t, const ui::IpiDestination& d) {
    if (!d.accept_record) return "no accept and no interrupt of its own before the next IPI to it or the trace's end";
    return "accept (" + where(t, *d.accept_record) + ")" + ", then no injection of its own: merged into one already pending, or not injected before the trace's end";
}

// Per-stage samples over what is shown, for the summary.
struct Samples {
    std::vector<std::int64_t> send_to_accept, accept_to_inject, inject_to_eoi;
    void add(const InterruptRecord& i, std::optional<std::int64_t> sent) {
        if (sent && i.accept_ts != 0) send_to_accept.push_back(i.accept_ts - *sent);
        if (i.accept_ts != 0) accept_to_inject.push_back(i.inject_ts - i.accept_ts);
        if (i.eoi_ts != 0) inject_to_eoi.push_back(i.eoi_ts - i.inject_ts);
    }
};

// One row of the summary: `what` padded by the columns it takes ("→" is 3 bytes, 1 column).
std::string summary_row(const std::string& what, std::vector<std::int64_t> v) {
    if (v.empty()) return "";
    std::sort(v.begin(), v.end());
    std::size_t columns = 0;
    for (const unsigned char ch : what) columns += (ch & 0xc0) != 0x80;
    char b[128];
    std::snprintf(b, sizeof b, "%8zu %10.1f %10.1f %10.1f %10.1f\n", v.size(), static_cast<double>(ui::percentile(v, 0.5)) / 1e3,
                  static_cast<double>(ui::percentile(v, 0.9)) / 1e3, static_cast<double>(ui::percentile(v, 0.99)) / 1e3,
                  static_cast<double>(v.back()) / 1e3);
    return "  " + what + std::string(columns < 16 ? 16 - columns : 0, ' ') + " " + b;
}

Json stage_json(const Trace& t, std::uint64_t record, std::int64_t ts) {
    Json j = {{"record", record}, {"ts_ns", ts}};
    if (const auto line = t.line_of(record)) j["line"] = *line;
    return j;
}

Json interrupt_json(const Trace& t, const InterruptRecord& i, std::optional<std::int64_t> sent) {
    Json j;
    j["vcpu"] = i.vcpu == kUnknownVcpu ? Json(nullptr) : Json(i.vcpu.value());
    j["accept"] = i.accept_ts ? stage_json(t, i.accept_record, i.accept_ts) : Json(nullptr);
    j["inject"] = stage_json(t, i.inject_record, i.inject_ts);
    j["eoi"] = i.eoi_ts ? stage_json(t, i.eoi_record, i.eoi_ts) : Json(nullptr);
    j["eoi_path"] = i.eoi_path ? Json(to_string(*i.eoi_path)) : Json(nullptr);
    j["nesting_depth"] = i.nesting_depth;
    Json l = Json::object();
    if (sent && i.accept_ts) l["send_to_accept_ns"] = i.accept_ts - *sent;
    if (i.accept_ts) l["accept_to_inject_ns"] = i.inject_ts - i.accept_ts;
    if (i.eoi_ts) l["inject_to_eoi_ns"] = i.eoi_ts - i.inject_ts;
    j["latency"] = l;
    return j;
}

int run(const TraceIrqOptions& a) {
    ReplayOptions o = a.replay;
    o.collect_details = true;
    const pipeline::Checked checked = pipeline::check({readable_trace(a.trace), a.serial, {}}, o, pipeline::Hold::Whole);
    const Trace& t = checked.trace;
    const ReplayResult& r = checked.result;
    if (a.vcpu >= 0) check_vcpu(t, shown_name(a.trace), a.vcpu);
    ui::IrqChainFilter f;
    f.vector = a.vector;
    if (a.vcpu >= 0) f.vcpu = VcpuId(a.vcpu);
    const std::int64_t start = t.events.empty() ? 0 : t.events.ts(0).value();
    if (!a.range.empty() && !(f.span = ui::parse_time_range(a.range, start)))
        throw UsageError("--range " + a.range + ": A:B with A < B, each " + ui::kTimeSyntax);
    const auto chains = ui::irq_chains(t, r, f);
    // a destination shown: every one without --vcpu; with it, the vCPU's own, and all of an IPI it sent
    const auto shown_here = [&](const ui::IrqChain& c, VcpuId v) { return a.vcpu < 0 || v.value() == a.vcpu || c.ipi->sender.value() == a.vcpu; };

    if (a.json) {
        for (const auto& c : chains) {
            Json j;
            j["start_ts_ns"] = c.start_ts;
            j["vector"] = a.vector;
            if (c.ipi) {
                const auto& p = *c.ipi;
                j["ipi"] = {{"record", p.record}, {"ts_ns", p.ts}, {"vm", p.vm == kUnknownVm ? Json(nullptr) : Json(p.vm.value())},
                            {"sender", p.sender == kUnknownVcpu ? Json(nullptr) : Json(p.sender.value())}, {"via", to_string(p.kind)}};
                if (const auto line = t.line_of(p.record)) j["ipi"]["line"] = *line;
                Json ds = Json::array();
                for (const auto& d : c.destinations) {
                    Json x = d.irq ? interrupt_json(t, *d.irq, p.ts) : Json::object();
                    x["apic_id"] = d.apic;
                    if (!d.irq) x["vcpu"] = d.vcpu == kUnknownVcpu ? Json(nullptr) : Json(d.vcpu.value());
                    x["delivered"] = d.irq != nullptr;
                    if (!d.irq) x["accept"] = d.accept_record ? Json{{"record", *d.accept_record}} : Json(nullptr);
                    ds.push_back(x);
                }
                j["destinations"] = ds;
            } else {
                j["ipi"] = nullptr;
                j["vm"] = c.irq->vm == kUnknownVm ? Json(nullptr) : Json(c.irq->vm.value());
                j["interrupt"] = interrupt_json(t, *c.irq, std::nullopt);
            }
            std::cout << j.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
        }
        return kExitOk;
    }

    Samples s;
    std::size_t ipis = 0, interrupts = 0, undelivered = 0;
    for (const auto& c : chains) {
        if (c.ipi) {
            ++ipis;
            for (const auto& d : c.destinations) {
                if (!shown_here(c, d.vcpu)) continue;
                if (d.irq) {
                    ++interrupts;
                    s.add(*d.irq, c.ipi->ts);
                } else {
                    ++undelivered;
                }
            }
        } else {
            ++interrupts;
            s.add(*c.irq, std::nullopt);
        }
    }
    std::cout << shown_name(a.trace) << ": vector " << hex(a.vector) << (a.vcpu >= 0 ? " on vCPU " + std::to_string(a.vcpu) : "")
              << (a.range.empty() ? "" : " in " + a.range) << ": " << interrupts << " interrupt" << (interrupts == 1 ? "" : "s") << ", "
              << ipis << " IPI" << (ipis == 1 ? "" : "s");
    if (undelivered) std::cout << " (" << undelivered << " destination" << (undelivered == 1 ? "" : "s") << " with no interrupt of its own)";
    std::cout << "\n";
    if (chains.empty()) {
        std::cout << "no interrupt of this vector" << (a.vcpu >= 0 ? " on this vCPU" : "") << (a.range.empty() ? "" : " in this span")
                  << " (irqflow check lists the vectors it saw)\n";
        return kExitOk;
    }
    std::cout << "\nlatency (µs)              n        p50        p90        p99        max\n"
              << summary_row("IPI → accept", s.send_to_accept) << summary_row("accept → inject", s.accept_to_inject)
              << summary_row("inject → EOI", s.inject_to_eoi) << "\n";
    for (const auto& c : chains) {
        if (c.ipi) {
            const auto& p = *c.ipi;
            std::cout << ts_text(TimestampNs(p.ts)) << " " << vcpu_name(p.vm, p.sender) << " sends IPI " << hex(a.vector) << " ("
                      << to_string(p.kind) << ", " << where(t, p.record) << ") to " << c.destinations.size() << " vCPU"
                      << (c.destinations.size() == 1 ? "" : "s") << "\n";
            for (const auto& d : c.destinations) {
                if (!shown_here(c, d.vcpu)) continue;
                std::cout << "    " << (d.vcpu == kUnknownVcpu ? "APIC " + std::to_string(d.apic) + " (no vCPU)" : "vcpu" + std::to_string(d.vcpu.value()))
                          << ": " << (d.irq ? stages_text(t, *d.irq, p.ts) : undelivered_text(t, d))
                          << "\n";
            }
        } else {
            const auto& i = *c.irq;
            std::cout << ts_text(TimestampNs(c.start_ts)) << " " << vcpu_name(i.vm, i.vcpu) << " " << hex(a.vector) << ": " << stages_text(t, i, std::nullopt)
                      << "\n";
        }
    }
    std::cout.flush();
    return std::cout ? kExitOk : kExitBadInput;
}

}  // namespace

void add_trace_irq(CLI::App& app, Commands& out) {
    auto a = std::make_shared<TraceIrqOptions>();
    auto* c = app.add_subcommand("trace-irq", "follow one vector's interrupts: each accept → inject → EOI, each IPI to its destinations");
    add_trace(*c, a->trace);
    c->add_option_function<std::string>(
           "--vector", [a](const std::string& v) { a->vector = parse_vector(v); }, "the vector to follow (0xec or 236)")
        ->type_name("V")
        ->required();
    add_vcpu(*c, a->vcpu);
    c->add_option("--range", a->range, std::string("only chains starting in this span: A:B, each ") + ui::kTimeSyntax)->type_name("A:B");
    add_serial(*c, a->serial);
    add_semantics(*c, a->replay.semantics);
    c->add_flag("--json", a->json, "one JSON object per chain (an IPI with its destinations, or an interrupt)");
    c->footer("\nTimes: each stage's \"+N µs\" is the time since the stage before it (for an IPI's destination, the\n"
              "accept's since the send). An interrupt with no accept in the trace starts at its injection.\n"
              "Exit: 0 printed, 2 bad input, 64 usage.\n" +
              examples({"irqflow trace-irq samples/pveoi-on.dat --vector 0xfd --vcpu 1",
                        "irqflow trace-irq samples/pveoi-on.dat --vector 0xec --range +8s:+8.02s",
                        "irqflow trace-irq bug-report.txt --vector 0x22 --json"}));
    out.emplace_back(c, [a] { return run(*a); });
}

}  // namespace irqflow::cli
