#include "timeline_model.hpp"

#include <algorithm>
#include <bit>
#include <iterator>
#include <map>

#include "irqflow/capture/exit_reasons.hpp"
#include "palette.hpp"

namespace irqflow::gui {

std::uint32_t vector_color(int vector) {
    // Spread the 256 vectors over the hue circle (golden-ratio steps), bright and opaque.
    const float h = static_cast<float>((vector * 0.61803398875) - static_cast<int>(vector * 0.61803398875));
    const float s = 0.65f, v = 0.95f;
    const int i = static_cast<int>(h * 6);
    const float f = h * 6 - static_cast<float>(i), p = v * (1 - s), q = v * (1 - f * s), t = v * (1 - (1 - f) * s);
    float r = v, g = t, b = p;
    switch (i % 6) {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q; break;
    }
    auto c = [](float x) { return static_cast<std::uint32_t>(x * 255.0f + 0.5f); };
    return 0xff000000u | (c(b) << 16) | (c(g) << 8) | c(r);
}

std::uint32_t state_color(VcpuState s) {
    switch (s) {
    case VcpuState::Guest: return 0xff50b450;   // green
    case VcpuState::Host: return 0xff3c78dc;    // orange
    case VcpuState::Halted: return 0xff5a5a5a;  // grey
    }
    return 0xffffffff;
}

namespace {

// The exit reasons most traces have, SVM's then VMX's, in the order they take the
// palette's colours (palette.hpp): a reason keeps its colour across traces that share
// the reasons before it in this list. Reasons not listed follow, by name.
constexpr const char* kCommonExitReasons[] = {
    "EXIT_MSR", "EXIT_HLT", "EXIT_IOIO", "EXIT_INTR", "EXIT_VINTR", "EXIT_NPF", "EXIT_CPUID", "EXIT_VMMCALL", "EXIT_WRITE_CR4",
    "EXIT_PAUSE", "EXIT_AVIC_INCOMPLETE_IPI", "EXIT_AVIC_UNACCELERATED_ACCESS", "EXIT_WBINVD", "EXIT_CR0_SEL_WRITE",
    "EXTERNAL_INTERRUPT", "MSR_WRITE", "MSR_READ", "HLT", "IO_INSTRUCTION", "EPT_VIOLATION", "EPT_MISCONFIG", "PREEMPTION_TIMER",
    "INTERRUPT_WINDOW", "APIC_WRITE", "APIC_ACCESS", "EOI_INDUCED", "VMCALL", "CPUID", "PAUSE_INSTRUCTION", "CR_ACCESS",
};

// Each reason in use gets a colour of its own, the palette's in kCommonExitReasons order.
std::map<std::string, std::uint32_t> exit_reason_colours(const std::map<std::string, int>& reasons) {
    std::vector<std::string> order;
    for (const char* r : kCommonExitReasons)
        if (reasons.count(r)) order.push_back(r);
    for (const auto& [r, index] : reasons)
        if (std::find(order.begin(), order.end(), r) == order.end()) order.push_back(r);
    std::vector<std::uint32_t> avoid(std::begin(kExitDensity), std::end(kExitDensity));  // the zoomed-out shades
    avoid.push_back(kBackground);
    const auto colours = distinct_colours(order.size(), avoid);
    std::map<std::string, std::uint32_t> out;
    for (std::size_t i = 0; i < order.size(); ++i) out[order[i]] = colours[i];
    return out;
}

}  // namespace

void StateGrid::build(const std::vector<Band>& bands, std::int64_t t0, std::int64_t t1) {
    // ~32 bands a step (at most 1 Mi steps, 24 MB): a column is drawn from the grid when
    // it spans 8 steps or more, so only where it covers ~256 bands.
    grid_ = TimeGrid(t0, t1, std::clamp<std::size_t>(std::bit_ceil(bands.size() / 32 + 1), 1, std::size_t{1} << 20));
    before_.assign(grid_.steps + 1, {});
    std::array<std::int64_t, 3> whole{};  // bands that end at or before the grid point
    std::size_t i = 0;
    for (std::size_t g = 0; g <= grid_.steps; ++g) {
        const std::int64_t at = grid_.at(g);
        for (; i < bands.size() && bands[i].end <= at; ++i) whole[static_cast<std::size_t>(bands[i].state)] += bands[i].end - bands[i].start;
        before_[g] = whole;
        if (i < bands.size() && bands[i].start < at) before_[g][static_cast<std::size_t>(bands[i].state)] += at - bands[i].start;
    }
}

Timeline build_timeline(const Trace& trace, const replay::ReplayResult& replay, const SerialLog* serial) {
    Timeline tl;
    std::map<std::pair<std::int32_t, std::int32_t>, int> lane_of;
    std::map<std::string, int> reason_index;  // each exit reason seen, in order of appearance
    for (const auto& vm : trace.vms)
        for (const auto& v : vm.vcpus) {
            lane_of[{vm.id.value(), v.id.value()}] = static_cast<int>(tl.lanes.size());
            Lane lane;
            lane.vm = vm.id;
            lane.vcpu = v.id;
            tl.lanes.push_back(std::move(lane));
        }
    if (!trace.events.empty()) {
        tl.t0 = trace.events.front().ts.value();
        tl.t1 = std::max(tl.t0 + 1, trace.events.back().ts.value());
    }
    auto lane = [&](VmId vm, VcpuId v) {
        auto it = lane_of.find({vm.value(), v.value()});
        return it == lane_of.end() ? -1 : it->second;
    };
    std::vector<std::pair<std::int64_t, VcpuState>> open(tl.lanes.size(), {-1, VcpuState::Host});
    std::vector<std::int64_t> last_on_cpu;  // per host CPU: its last event's time, where a drop may start
    trace.events.for_each([&](const Event& e) {
        // lost events: from the CPU's previous event to the marker (capture/README.md)
        const auto cpu = static_cast<std::size_t>(e.cpu.value());
        const bool known_cpu = e.cpu.value() >= 0 && e.cpu.value() < (1 << 16);
        if (e.kind == EventKind::Lost) {
            const std::int64_t from = known_cpu && cpu < last_on_cpu.size() && last_on_cpu[cpu] >= 0 ? last_on_cpu[cpu] : tl.t0;
            tl.gaps.push_back({from, e.ts.value(), e.cpu.value(), e.get(slot::lost_count).value_or(-1)});
        } else if (known_cpu) {
            if (cpu >= last_on_cpu.size()) last_on_cpu.resize(cpu + 1, -1);
            last_on_cpu[cpu] = e.ts.value();
        }
        const int l = lane(e.vm, e.vcpu);
        if (l >= 0 && e.kind == EventKind::NestedVmenter) {  // L1 → L2 injections
            const auto inj = e.get(slot::nvmenter_event_inj).value_or(0);
            if (event_word::valid(inj))
                tl.lanes[static_cast<std::size_t>(l)].markers.push_back({Marker::NestedInjection, e.ts.value(), event_word::vector(inj)});
        }
        if (l < 0 || (e.kind != EventKind::Entry && e.kind != EventKind::Exit)) return;
        auto& L = tl.lanes[static_cast<std::size_t>(l)];
        auto& o = open[static_cast<std::size_t>(l)];
        if (o.first >= 0) L.bands.push_back({o.first, e.ts.value(), o.second});
        if (e.kind == EventKind::Entry) {
            o = {e.ts.value(), VcpuState::Guest};
        } else {
            o = {e.ts.value(), exit_class(e) == ExitClass::Hlt ? VcpuState::Halted : VcpuState::Host};
            const std::string key = exit_reason_key(e);
            const auto index = reason_index.try_emplace(key, static_cast<int>(reason_index.size())).first->second;
            L.exits.push_back({e.ts.value(), static_cast<std::uint32_t>(index)});  // its colour once every reason is known
            ++L.exits_by_reason[key];
        }
    });
    for (std::size_t l = 0; l < open.size(); ++l)
        if (open[l].first >= 0) tl.lanes[l].bands.push_back({open[l].first, tl.t1, open[l].second});
    tl.exit_colors = exit_reason_colours(reason_index);  // the renderer's and the key's one table
    std::vector<std::uint32_t> colour_of(reason_index.size());
    for (const auto& [key, index] : reason_index) colour_of[static_cast<std::size_t>(index)] = tl.exit_colors.at(key);
    for (auto& L : tl.lanes)
        for (auto& x : L.exits) x.color = colour_of[x.color];
    for (const auto& ir : replay.interrupts) {
        const int l = lane(ir.vm, ir.vcpu);
        if (l < 0) continue;
        auto& L = tl.lanes[static_cast<std::size_t>(l)];
        const bool pv = ir.eoi_path == replay::EoiPath::PvEoi;
        L.isr.push_back({ir.inject_ts, ir.eoi_ts ? ir.eoi_ts : tl.t1, ir.vector, std::max(1, ir.nesting_depth), pv});
        L.markers.push_back({Marker::Injection, ir.inject_ts, ir.vector});
        if (ir.eoi_ts) L.markers.push_back({pv ? Marker::PvEoi : Marker::RealEoi, ir.eoi_ts, ir.vector});
    }
    for (auto& L : tl.lanes) {
        std::sort(L.markers.begin(), L.markers.end(), [](const Marker& a, const Marker& b) { return a.ts < b.ts; });
        std::array<std::int64_t, 3> sum{};
        L.state_time.reserve(L.bands.size() / Lane::kStateBlock + 1);
        for (std::size_t i = 0; i < L.bands.size(); ++i) {
            if (i % Lane::kStateBlock == 0) L.state_time.push_back(sum);
            sum[static_cast<std::size_t>(L.bands[i].state)] += L.bands[i].end - L.bands[i].start;
        }
        if (L.bands.size() % Lane::kStateBlock == 0) L.state_time.push_back(sum);
        std::sort(L.isr.begin(), L.isr.end(), [](const IsrBar& a, const IsrBar& b) { return a.start < b.start; });
        for (const auto& bar : L.isr) L.isr_by_depth[static_cast<std::size_t>(std::clamp(bar.depth, 1, 3) - 1)].push_back(bar);
    }
    for (const auto& p : replay.ipis) {
        const int from = lane(p.vm, p.sender);
        for (auto apic : p.received)
            for (const auto& vm : trace.vms)
                if (vm.id == p.vm)
                    for (const auto& v : vm.vcpus)
                        if (v.apic.value() == apic) tl.arrows.push_back({p.ts, from, lane(vm.id, v.id), p.vector, p.kind == replay::IpiKind::PvIpiHypercall});
    }
    std::sort(tl.arrows.begin(), tl.arrows.end(), [](const Arrow& a, const Arrow& b) { return a.ts < b.ts; });
    tl.arrow_index.build(tl.arrows, [](const Arrow& a) { return a.ts; }, tl.t0, tl.t1);
    for (auto& L : tl.lanes) {
        L.band_index.build(L.bands, [](const Band& b) { return b.start; }, tl.t0, tl.t1);
        L.state_grid.build(L.bands, tl.t0, tl.t1);
        L.exit_index.build(L.exits, [](const ExitTick& x) { return x.ts; }, tl.t0, tl.t1);
        L.marker_index.build(L.markers, [](const Marker& m) { return m.ts; }, tl.t0, tl.t1);
        for (std::size_t d = 0; d < 3; ++d) L.isr_index[d].build(L.isr_by_depth[d], [](const IsrBar& b) { return b.start; }, tl.t0, tl.t1);
    }
    for (const auto& u : replay.unsynced)
        if (const int l = lane(u.vm, u.vcpu); l >= 0) tl.lanes[static_cast<std::size_t>(l)].unsynced.push_back({u.start, u.end});
    for (auto& L : tl.lanes)
        std::sort(L.unsynced.begin(), L.unsynced.end(), [](const Lane::Span& a, const Lane::Span& b) { return a.start < b.start; });
    for (const auto& f : replay.findings) tl.findings.push_back({f.ts.value(), lane(f.vm, f.vcpu), std::string(replay::rule_info(f.rule).id)});
    if (serial)
        for (const auto& l : serial->lines)
            if (l.host_ts) tl.serial.push_back({l.host_ts->value(), l.text});
    // aligned host times need not rise line by line: drawing and hovering search by time
    std::stable_sort(tl.serial.begin(), tl.serial.end(), [](const SerialMark& a, const SerialMark& b) { return a.ts < b.ts; });
    return tl;
}

VectorLayers only_vector(const Timeline& tl, int vector) {
    VectorLayers v;
    v.vector = vector;
    for (const auto& lane : tl.lanes) {
        auto& depth = v.isr_by_depth.emplace_back();
        for (std::size_t d = 0; d < 3; ++d)
            std::copy_if(lane.isr_by_depth[d].begin(), lane.isr_by_depth[d].end(), std::back_inserter(depth[d]),
                         [&](const IsrBar& b) { return b.vector == vector; });
        auto& m = v.markers.emplace_back();
        std::copy_if(lane.markers.begin(), lane.markers.end(), std::back_inserter(m), [&](const Marker& x) { return x.vector == vector; });
    }
    std::copy_if(tl.arrows.begin(), tl.arrows.end(), std::back_inserter(v.arrows), [&](const Arrow& a) { return a.vector == vector; });
    return v;
}

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

}  // namespace irqflow::gui
