#include "panels_model.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <variant>

#include "irqflow/replay/statistics.hpp"

namespace irqflow::gui {

LaneLookup::LaneLookup(const Timeline& tl) {
    for (std::size_t l = 0; l < tl.lanes.size(); ++l) {
        const auto vm = static_cast<std::size_t>(std::max(0, tl.lanes[l].vm.value()));
        const auto vcpu = static_cast<std::size_t>(std::max(0, tl.lanes[l].vcpu.value()));
        if (by_vm_.size() <= vm) by_vm_.resize(vm + 1);
        if (by_vm_[vm].size() <= vcpu) by_vm_[vm].resize(vcpu + 1, -1);
        by_vm_[vm][vcpu] = static_cast<int>(l);
    }
}

int LaneLookup::operator()(VmId vm, VcpuId vcpu) const {
    if (vm.value() < 0 || vcpu.value() < 0 || static_cast<std::size_t>(vm.value()) >= by_vm_.size()) return -1;
    const auto& v = by_vm_[static_cast<std::size_t>(vm.value())];
    return static_cast<std::size_t>(vcpu.value()) < v.size() ? v[static_cast<std::size_t>(vcpu.value())] : -1;
}

LatencyHistogram latency_histogram(const replay::ReplayResult& r, const LaneLookup& lanes, const Filter& f, LatencyStage stage) {
    LatencyHistogram h;
    for (const auto& ir : r.interrupts) {
        if (!f.shows(lanes(ir.vm, ir.vcpu)) || !f.shows_vector(ir.vector)) continue;
        std::int64_t d = -1;
        if (stage == LatencyStage::AcceptToInject && ir.accept_ts && ir.inject_ts) d = ir.inject_ts - ir.accept_ts;
        if (stage == LatencyStage::InjectToEoi && ir.inject_ts && ir.eoi_ts) d = ir.eoi_ts - ir.inject_ts;
        if (d < 0) continue;
        const int k = std::min(LatencyHistogram::kBuckets - 1, d <= 0 ? 0 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(d))) - 1);
        ++h.count[static_cast<std::size_t>(k)];
        ++h.samples;
        h.first = std::min(h.first, k);
        h.last = std::max(h.last, k);
    }
    return h;
}

const replay::InterruptRecord* interrupt_in_service(const replay::ReplayResult& r, VmId vm, VcpuId vcpu, int vector, std::int64_t ts) {
    const replay::InterruptRecord* found = nullptr;  // the latest injection at or before ts not yet EOI'd
    for (const auto& ir : r.interrupts)
        if (ir.vm == vm && ir.vcpu == vcpu && ir.vector == vector && ir.inject_ts <= ts && (!ir.eoi_ts || ir.eoi_ts >= ts) &&
            (!found || ir.inject_ts >= found->inject_ts))
            found = &ir;
    return found;
}

std::vector<StatRow> statistics_rows(const replay::ReplayResult& r) {
    std::vector<StatRow> rows;
    const auto list = replay::statistics();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto& s = list[i];
        if (!(s.outputs & replay::kGui) || s.key == "exits_by_reason") continue;
        const auto v = replay::stat_value(r, i);
        std::string text;
        char b[64];
        if (const auto* n = std::get_if<std::uint64_t>(&v)) {
            text = std::to_string(*n);
        } else if (const auto* x = std::get_if<double>(&v)) {
            std::snprintf(b, sizeof b, "%.1f%%", 100.0 * *x);
            text = b;
        } else if (const auto* t = std::get_if<std::string_view>(&v)) {
            text = std::string(*t);
        } else if (const auto* m = std::get_if<const std::map<std::string, std::uint64_t>*>(&v)) {
            for (const auto& [k, c] : **m) text += (text.empty() ? "" : ", ") + k + " " + std::to_string(c);
            if (text.empty()) text = "-";
        } else {
            continue;  // latency percentiles: the latency tab shows them as histograms
        }
        rows.push_back({std::string(s.key), std::string(s.meaning), std::move(text)});
    }
    return rows;
}

std::vector<FindingGroup> finding_groups(const replay::ReplayResult& r) {
    // A root can come after its follow-ons: an IPI send is decided when its sender enters
    // again, after a receiver showed the consequence. A caused_by naming no root (itself,
    // past the end, another follow-on) is shown as a root.
    const std::size_t n = r.findings.size();
    const auto root_of = [&](std::size_t i) -> std::optional<std::size_t> {
        const auto& c = r.findings[i].caused_by;
        if (!c || *c >= n || *c == i || r.findings[*c].caused_by) return std::nullopt;
        return *c;
    };
    std::vector<FindingGroup> groups;
    std::vector<std::size_t> group_of(n, SIZE_MAX);
    for (std::size_t i = 0; i < n; ++i)
        if (!root_of(i)) {
            group_of[i] = groups.size();
            groups.push_back({i, {}});
        }
    for (std::size_t i = 0; i < n; ++i)
        if (const auto root = root_of(i)) groups[group_of[*root]].follow_ons.push_back(i);
    return groups;
}

// The diagnosis window on the timeline: markers at its ends, the view a little wider.
DiagnosisWindow diagnosis_window(const replay::Explanation& x) {
    const std::int64_t a = x.from_ts.value(), b = std::max(x.to_ts.value(), a + 1);
    const std::int64_t margin = std::max<std::int64_t>((b - a) / 4, 20'000);  // at least 20 µs each side
    return {a - margin, b + margin, a, b};
}

std::optional<int> event_vector(const Event& e) {
    std::optional<std::int64_t> v;
    switch (e.kind) {
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq: v = e.get(slot::accept_vec); break;
    case EventKind::InjVirq: v = e.get(slot::inj_vector); break;
    case EventKind::Eoi:
    case EventKind::PvEoi: v = e.get(slot::eoi_vector); break;
    case EventKind::ApicIpi: v = e.get(slot::ipi_vec); break;
    default: break;
    }
    if (!v) return std::nullopt;
    return static_cast<int>(*v);
}

EventRows events_in_view(const Trace& trace, const LaneLookup& lanes, const Filter& f, const ViewRange& v, std::size_t limit) {
    const auto& ev = trace.events;
    EventRows rows;
    rows.first = static_cast<std::size_t>(
        std::lower_bound(ev.begin(), ev.end(), v.t0, [](const Event& e, std::int64_t t) { return e.ts.value() < t; }) - ev.begin());
    rows.last = static_cast<std::size_t>(
        std::upper_bound(ev.begin(), ev.end(), v.t1, [](std::int64_t t, const Event& e) { return t < e.ts.value(); }) - ev.begin());
    rows.last = std::max(rows.first, rows.last);
    rows.in_view = rows.last - rows.first;
    const bool every_lane = std::all_of(f.lane_shown.begin(), f.lane_shown.end(), [](bool b) { return b; });
    rows.filtered = !every_lane || f.vector >= 0;
    if (!rows.filtered) return rows;
    if (rows.in_view > limit) {
        rows.too_many = true;
        return rows;
    }
    for (std::size_t i = rows.first; i < rows.last; ++i) {
        const Event& e = ev[i];
        if (!every_lane && !f.shows(lanes(e.vm, e.vcpu))) continue;
        if (f.vector >= 0 && event_vector(e) != f.vector) continue;
        rows.picked.push_back(i);
    }
    return rows;
}

std::string vector_list(const replay::VectorSet& v) {
    std::string out;
    for (int vec = 255; vec >= 0; --vec)
        if (v.test(vec)) {
            char b[8];
            std::snprintf(b, sizeof b, "%s0x%02x", out.empty() ? "" : " ", vec);
            out += b;
        }
    return out.empty() ? "none" : out;
}

StatRow lost_events_row(const Timeline& tl) {
    StatRow row{"lost_events", "events the ring buffer dropped, the gaps they left (hatched in the lanes) and their total length", "none"};
    if (tl.gaps.empty()) return row;
    std::int64_t lost = 0, ns = 0;
    std::size_t unknown = 0;
    for (const auto& g : tl.gaps) {
        if (g.lost >= 0) lost += g.lost;
        else ++unknown;
        ns += g.end - g.start;
    }
    char b[160];
    std::snprintf(b, sizeof b, "%lld in %zu gap%s%s, %.1f ms", static_cast<long long>(lost), tl.gaps.size(), tl.gaps.size() == 1 ? "" : "s",
                  unknown ? (" (" + std::to_string(unknown) + " of unknown size)").c_str() : "", static_cast<double>(ns) / 1e6);
    row.value = b;
    return row;
}

StatRow unsynced_row(const Timeline& tl) {
    StatRow row{"unsynced", "stretches where a vCPU's APIC state was not proven, so its events were not checked (amber under the lane)",
                "none"};
    std::size_t spans = 0;
    std::int64_t ns = 0, lane_ns = 0;
    for (const auto& lane : tl.lanes) {
        spans += lane.unsynced.size();
        for (const auto& sp : lane.unsynced) ns += sp.end - sp.start;
        lane_ns += tl.t1 - tl.t0;
    }
    if (!spans) return row;
    char b[160];
    std::snprintf(b, sizeof b, "%zu stretch%s, %.3f s of vCPU time (%.1f %%)", spans, spans == 1 ? "" : "es", static_cast<double>(ns) / 1e9,
                  lane_ns ? 100.0 * static_cast<double>(ns) / static_cast<double>(lane_ns) : 0.0);
    row.value = b;
    return row;
}

}  // namespace irqflow::gui
