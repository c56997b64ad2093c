// irqflow explain TRACE FINDING: one finding of `check` with its whole evidence chain —
// the diagnosis and its alternatives, then every record it rests on (and the vCPU's own
// records in the diagnosis window), each with its input line and the model's state of
// that vCPU before and after it (replay/README.md, "Diagnosis").
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "args.hpp"
#include "event_format.hpp"
#include "finding_format.hpp"
#include "irqflow/replay/replay.hpp"
#include "pipeline.hpp"

namespace irqflow::cli {
namespace {

using namespace irqflow::replay;

struct ExplainOptions {
    std::string trace, serial, finding;
    ReplayOptions replay;
};

// How many of the vCPU's own records in the diagnosis window are listed at each end.
constexpr std::size_t kWindowEnds = 12;

std::string set_text(const VectorSet& s) {
    std::string o;
    for (int v = 0; v < 256; ++v)
        if (s.test(v)) {
            char b[8];
            std::snprintf(b, sizeof b, "0x%02x", v);
            o += (o.empty() ? "" : ",") + std::string(b);
        }
    return "{" + o + "}";
}

// "IRR {0xec} ISR {} TPR 0x00 PPR 0x00 PV-EOI armed", or what changed: "ISR {} → {0xec}".
std::string state_text(const VcpuState& s) {
    char b[64];
    std::snprintf(b, sizeof b, " TPR 0x%02x PPR 0x%02x", s.tpr, s.ppr());
    std::string o = "IRR " + set_text(s.irr) + " ISR " + set_text(s.isr) + b;
    if (s.pv_eoi_enabled) o += s.pv_eoi_armed ? " PV-EOI armed" : " PV-EOI not armed";
    if (!s.synced) o += " (state not known)";
    return o;
}

std::string change_text(const VcpuState& a, const VcpuState& b) {
    std::string o;
    const auto field = [&o](const char* name, const std::string& x, const std::string& y) {
        if (x != y) o += (o.empty() ? "" : "  ") + std::string(name) + " " + x + " → " + y;
    };
    field("IRR", set_text(a.irr), set_text(b.irr));
    field("ISR", set_text(a.isr), set_text(b.isr));
    char x[8], y[8];
    std::snprintf(x, sizeof x, "0x%02x", a.tpr);
    std::snprintf(y, sizeof y, "0x%02x", b.tpr);
    field("TPR", x, y);
    field("PV-EOI", a.pv_eoi_armed ? "armed" : "not armed", b.pv_eoi_armed ? "armed" : "not armed");
    field("known", a.synced ? "yes" : "no", b.synced ? "yes" : "no");
    return o.empty() ? "no change" : o;
}

const VcpuState* state_of(const std::vector<VcpuState>& states, VmId vm, VcpuId vcpu) {
    for (const auto& s : states)
        if (s.vm == vm && s.vcpu == vcpu) return &s;
    return nullptr;
}

// FINDING as given: "3" is the third root finding `check` prints, "@1234" the finding at
// record 1234 (its root when it is a follow-on is shown too).
std::size_t pick(const ReplayResult& r, const std::string& given, const std::string& shown) {
    std::vector<std::size_t> roots;
    for (std::size_t i = 0; i < r.findings.size(); ++i)
        if (!r.findings[i].caused_by) roots.push_back(i);
    const std::string what = given.rfind('@', 0) == 0 ? given.substr(1) : given;
    std::size_t used = 0;
    unsigned long long n = 0;
    try {
        n = std::stoull(what, &used, 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (what.empty() || used != what.size())
        throw UsageError("FINDING " + given + ": not a number N (the Nth finding check prints) or @RECORD");
    if (r.findings.empty()) throw UsageError("FINDING " + given + ": " + shown + " gives no findings");
    if (given[0] == '@') {
        for (std::size_t i = 0; i < r.findings.size(); ++i)
            if (r.findings[i].record == n) return i;
        std::string at;
        for (std::size_t i = 0; i < r.findings.size() && i < 8; ++i) at += (at.empty() ? "" : ", ") + std::to_string(r.findings[i].record);
        throw UsageError("FINDING " + given + ": no finding at record " + what + "; findings are at records " + at +
                         (r.findings.size() > 8 ? ", …" : ""));
    }
    if (n < 1 || n > roots.size())
        throw UsageError("FINDING " + given + ": " + shown + " gives " + std::to_string(roots.size()) + " root finding" +
                         (roots.size() == 1 ? "" : "s") + " (1.." + std::to_string(roots.size()) + ")");
    return roots[n - 1];
}

void print_finding(const ReplayResult& r, std::size_t i, const Trace& t) {
    const Finding& f = r.findings[i];
    std::cout << rule_info(f.rule).id << " vm" << f.vm.value() << "/"
              << (f.vcpu == kUnknownVcpu ? std::string("-") : "vcpu" + std::to_string(f.vcpu.value())) << " at "
              << finding_place(f, t) << ": expected " << f.expected << "; observed " << f.observed << "\n";
    if (f.caused_by) std::cout << "a follow-on of the root finding at " << record_name(t, r.findings[*f.caused_by].record) << "\n";
    if (!f.resync.empty()) std::cout << "the model then adopted what the trace showed: " << f.resync << "\n";
}

int run(const ExplainOptions& a) {
    const pipeline::Checked checked = pipeline::check({readable_trace(a.trace), a.serial, {}}, a.replay, pipeline::Hold::Whole);
    const Trace& t = checked.trace;
    const ReplayResult& r = checked.result;
    const std::size_t which = pick(r, a.finding, shown_name(a.trace));
    const Finding& f = r.findings[which];
    const Finding& root = f.caused_by ? r.findings[*f.caused_by] : f;

    print_finding(r, which, t);
    std::set<std::uint64_t> records = {f.record};
    for (const auto& [rec, what] : f.chain) records.insert(rec);
    VmId vm = f.vm;
    VcpuId vcpu = f.vcpu;
    if (root.diagnosis) {
        const auto& d = *root.diagnosis;
        std::cout << "\ndiagnosis: " << replay::sentence(d.top, record_namer(t)) << "\n";
        for (const auto& x : d.alternatives) std::cout << "  or: " << replay::sentence(x, record_namer(t)) << "\n";
        records.insert(d.top.from);
        records.insert(d.top.to);
        records.insert(d.top.evidence.begin(), d.top.evidence.end());
        if (d.top.vcpu != kUnknownVcpu) {  // the vCPU the cause is about, not always the finding's
            vm = d.top.vm;
            vcpu = d.top.vcpu;
        }
        // the vCPU's own records in the window, the ends of a long one
        std::vector<std::uint64_t> own;
        for (const auto& e : t.events)
            if (e.record > d.top.from && e.record < d.top.to && e.vm == vm && e.vcpu == vcpu) own.push_back(e.record);
        for (std::size_t k = 0; k < own.size(); ++k)
            if (k < kWindowEnds || k + kWindowEnds >= own.size()) records.insert(own[k]);
    } else {
        std::cout << "\nno diagnosis: " << (f.caused_by ? "its root's" : "this rule's") << " evidence is listed below\n";
    }

    std::cout << "\nevidence: each record, with the model's state of vm" << vm.value() << "/vcpu"
              << (vcpu == kUnknownVcpu ? std::string("-") : std::to_string(vcpu.value())) << " where it changes (→)\n";
    Replayer replayer(t);
    std::uint64_t previous = 0;
    bool first = true;
    std::string shown_state;  // the vCPU's state as the last lines printed it
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        if (!records.count(e.record)) continue;
        if (!first && e.record > previous + 1) {
            std::size_t skipped = 0;  // the records between the two shown
            for (std::size_t j = i; j-- > 0 && t.events[j].record > previous;) ++skipped;
            if (skipped) std::cout << "  … " << skipped << " record" << (skipped == 1 ? "" : "s") << " not shown\n";
        }
        first = false;
        previous = e.record;
        replayer.step_until(i);
        const auto before = replayer.states();
        replayer.step_until(i + 1);
        const auto after = replayer.states();
        std::ostringstream line;
        print_event_text(line, t, e);
        std::string text = line.str();
        if (!text.empty() && text.back() == '\n') text.pop_back();
        std::cout << "  " << text;
        if (const auto at = t.line_of(e.record)) std::cout << "   (line " << *at << ")";
        if (e.record == f.record) std::cout << "   ← the finding";
        std::cout << "\n";
        const VcpuState* b = state_of(before, vm, vcpu);
        const VcpuState* c = state_of(after, vm, vcpu);
        // the state before, unless it is what the last record shown left; then what changed
        if (b && c) {
            if (const std::string now = state_text(*b); now != shown_state) std::cout << "      " << now << "\n";
            const std::string change = change_text(*b, *c);
            if (change != "no change") std::cout << "      → " << change << "\n";
            shown_state = state_text(*c);
        } else if (c) {
            std::cout << "      → " << state_text(*c) << " (first seen)\n";
            shown_state = state_text(*c);
        }
    }
    std::size_t follow_ons = 0;
    for (const auto& g : r.findings) follow_ons += g.caused_by && &r.findings[*g.caused_by] == &root;
    if (follow_ons) std::cout << "\n" << follow_ons << " follow-on finding" << (follow_ons == 1 ? "" : "s") << " of this root (irqflow check lists them)\n";
    return kExitOk;
}

}  // namespace

void add_explain(CLI::App& app, Commands& out) {
    auto a = std::make_shared<ExplainOptions>();
    auto* c = app.add_subcommand("explain",
                                 "one finding of check with its evidence: each record, its line, the model before and after it");
    add_trace(*c, a->trace);
    c->add_option("FINDING", a->finding, "N: the Nth finding check prints (1 = the first); @RECORD: the finding at that record")
        ->required();
    add_serial(*c, a->serial);
    add_semantics(*c, a->replay.semantics);
    c->footer("\nExit: 0 explained, 2 bad input, 64 no such finding.\n" +
              examples({"irqflow explain bug-report.txt 1", "irqflow explain trace.dat @22149 --semantics 2012"}));
    out.emplace_back(c, [a] { return run(*a); });
}

}  // namespace irqflow::cli
