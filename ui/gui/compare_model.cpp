#include "compare_model.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/storage/database.hpp"

namespace irqflow::gui {
namespace {

// The first time at or after `from` something matches, else the first of all, else -1.
std::int64_t first_from(const std::vector<std::int64_t>& times, std::int64_t from) {
    if (times.empty()) return -1;
    const auto it = std::lower_bound(times.begin(), times.end(), from);
    return it != times.end() ? *it : times.front();
}

// Times (sorted) of what a row counts in one session (ui/common/compare.hpp, DiffRow::counts).
// `vcpu`: a per-vCPU row's vCPU on this side, or null.
std::vector<std::int64_t> instances(const ui::DiffRow& row, const Session& s, const ui::VcpuRef* vcpu) {
    using replay::RunCount;
    std::vector<std::int64_t> out;
    auto on = [vcpu](VmId vm, VcpuId v) { return !vcpu || (vm.value() == vcpu->vm && v.value() == vcpu->vcpu); };
    auto eois = [&](const std::function<bool(replay::EoiPath)>& keep) {
        for (const auto& ir : s.replay.interrupts)
            if (ir.eoi_ts && ir.eoi_path && on(ir.vm, ir.vcpu) && keep(*ir.eoi_path)) out.push_back(ir.eoi_ts);
    };
    switch (row.counts) {
    case RunCount::Exits: {
        const auto& ev = s.trace.events;
        for (std::size_t i = 0; i < ev.size(); ++i)
            if (ev.kind(i) == EventKind::Exit) {
                const Event e = ev[i];
                if (on(e.vm, e.vcpu) && (row.of.empty() || exit_reason_key(e) == row.of)) out.push_back(e.ts.value());
            }
        break;
    }
    case RunCount::Injections:
        for (const auto& ir : s.replay.interrupts)
            if (ir.inject_ts && on(ir.vm, ir.vcpu) && (row.vector < 0 || ir.vector == row.vector)) out.push_back(ir.inject_ts);
        break;
    case RunCount::Eois: eois([&row](replay::EoiPath p) { return row.of.empty() || replay::to_string(p) == row.of; }); break;
    case RunCount::PvEois: eois([](replay::EoiPath p) { return p == replay::EoiPath::PvEoi; }); break;
    case RunCount::EoiExits: eois([](replay::EoiPath p) { return p != replay::EoiPath::PvEoi; }); break;
    case RunCount::Ipis:
    case RunCount::IpiDestinations:
        for (const auto& ipi : s.replay.ipis) out.push_back(ipi.ts);
        break;
    case RunCount::Findings:
        for (const auto& f : s.replay.findings)
            if (replay::rule_info(f.rule).id == row.of) out.push_back(f.ts.value());
        break;
    default: break;  // guest time, the saved exits and latencies have no events of their own
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A latency row: the injection (of the row's vector) whose latency is nearest `value_us`
// (the row's values are in µs).
std::int64_t nearest_latency(const ui::DiffRow& row, const Session& s, double value_us) {
    const double value = value_us * 1e3;
    const bool to_inject = row.counts == replay::RunCount::AcceptToInject;
    std::int64_t best = -1;
    double best_gap = 0;
    for (const auto& ir : s.replay.interrupts) {
        if (ir.vector != row.vector || !ir.inject_ts) continue;
        std::int64_t ns = -1;
        if (to_inject && ir.accept_ts && ir.inject_ts >= ir.accept_ts) ns = ir.inject_ts - ir.accept_ts;
        if (!to_inject && ir.eoi_ts && ir.eoi_ts >= ir.inject_ts) ns = ir.eoi_ts - ir.inject_ts;
        if (ns < 0) continue;
        const double gap = std::abs(static_cast<double>(ns) - value);
        if (best < 0 || gap < best_gap) best = ir.inject_ts, best_gap = gap;
    }
    return best;
}

}  // namespace

SessionSource source_of(const std::string& given) {
    SessionSource src;
    src.path = given;
    if (const auto stored = storage::stored_session_name(given)) {
        src.path = stored->db;
        src.db_session = stored->session;
    }
    return src;
}

std::vector<ui::DiffRow> diff_rows(const Session& a, const Session& b) {
    return ui::compare(ui::digest(a.title, a.trace, a.replay), ui::digest(b.title, b.trace, b.replay));
}

Example example_of(const ui::DiffRow& row, const Session& a, const Session& b, std::int64_t a_from, std::int64_t b_from) {
    if (row.counts == replay::RunCount::AcceptToInject || row.counts == replay::RunCount::InjectToEoi) return {nearest_latency(row, a, row.a), nearest_latency(row, b, row.b)};
    const ui::VcpuRef* va = row.vcpus ? &row.vcpus->first : nullptr;
    const ui::VcpuRef* vb = row.vcpus ? &row.vcpus->second : nullptr;
    return {first_from(instances(row, a, va), a_from), first_from(instances(row, b, vb), b_from)};
}

}  // namespace irqflow::gui
