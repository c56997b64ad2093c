#include "pv_ipi_counterfactual.hpp"

#include <bit>

#include "../model/registers.hpp"
#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow::replay {
namespace {

// ICR writes of one send follow each other within a few exits; under nested TCG one
// exit takes ~20 µs, so 500 µs separates sends without splitting one.
constexpr std::int64_t kGroupGapNs = 500'000;
constexpr std::uint32_t kPvIpiWindow = 128;  // APIC ids one hypercall's bitmap covers

// Whether the event belongs to a run of ICR writes: the writes themselves and what
// their exits bring with them.
bool part_of_icr_run(const Event& e) {
    switch (e.kind) {
    case EventKind::Exit: return exit_class(e) == ExitClass::ApicWrite;
    case EventKind::Msr: return e.get(slot::msr_ecx) == apic::kMsrIcr;
    default: return PvIpiCounterfactual::always_part_of_run(e.kind);
    }
}

}  // namespace

void PvIpiCounterfactual::learn(const Event& e, const Model& m) {
    const int vm = m.vm_index(e.vm);
    if (vm < 0) return;
    auto& mask = mask_vectors_[static_cast<std::size_t>(vm)];
    if (e.kind == EventKind::ApicIpi) {
        const auto dest = static_cast<std::uint32_t>(e.get(slot::ipi_dest_id).value_or(0));
        const bool logical = e.get(slot::ipi_dest_mode).value_or(0) != 0;
        const auto bits = std::popcount(dest > 0xff ? (dest & 0xffffu) : (dest & 0xffu));
        if (e.get(slot::ipi_shorthand).value_or(0) >= apic::kShorthandAll || (logical && bits >= 2))
            mask.set(static_cast<int>(e.get(slot::ipi_vec).value_or(0)));
    } else if (e.kind == EventKind::Hypercall && e.get(slot::hc_nr) == hypercall::kSendIpi) {
        mask.set(static_cast<int>(e.get(slot::hc_a3).value_or(0) & 0xff));
    }
}

void PvIpiCounterfactual::end_run_unless_part(const Event& e, VcpuSlot v, const Model& m) {
    if (!part_of_icr_run(e)) close(groups_[static_cast<std::size_t>(v.value())], m.vcpu(v), m);
}

void PvIpiCounterfactual::apic_access(const Event& e, const Effect& fx) {
    if (e.get(slot::apic_rw) == 0 && e.get(slot::apic_reg) == apic::kRegIcr) ++groups_[static_cast<std::size_t>(fx.vcpu.value())].unclaimed_polls;
}

void PvIpiCounterfactual::icr_write(const Event& e, const Effect& fx, const Model& m) {
    auto& g = groups_[static_cast<std::size_t>(fx.vcpu.value())];
    const bool polled = g.unclaimed_polls > 0;  // read before close() forgets it
    g.unclaimed_polls = 0;
    const int vec = static_cast<int>(e.get(slot::ipi_vec).value_or(0));
    const int dm = static_cast<int>(e.get(slot::ipi_dm).value_or(0));
    const bool plain = e.get(slot::ipi_shorthand).value_or(0) == apic::kShorthandNone && (dm == apic::kDmFixed || dm == apic::kDmNmi);
    if (!plain || vec != g.vector || dm != g.dm || e.ts.value() - g.last_ts > kGroupGapNs) close(g, m.vcpu(fx.vcpu), m);
    if (plain) {
        g.vector = vec;
        g.dm = dm;
        g.last_ts = e.ts.value();
        g.dests.insert(static_cast<std::uint32_t>(e.get(slot::ipi_dest_id).value_or(0)));
        ++g.writes;
        g.polls += polled;
    }
}

void PvIpiCounterfactual::close(Group& g, const VcpuModel& v, const Model& m) {
    const VmModel& vm = *m.vm(v.vm);
    const bool mask_send = g.writes >= 2 && g.dests.size() == static_cast<std::size_t>(g.writes) &&
                           mask_vectors_[static_cast<std::size_t>(m.vm_index(v.vm))].test(g.vector);
    if (mask_send || (!vm.x2apic && g.writes == 1)) {
        ApicIdSet windows;  // one hypercall per 128-id window the destinations span
        const std::uint32_t base = g.dests.empty() ? 0 : *g.dests.begin();
        for (auto id : g.dests) windows.insert((id - base) / kPvIpiWindow);
        const auto exits = (vm.x2apic ? 1ULL : 2ULL) * static_cast<std::uint64_t>(g.writes) + static_cast<std::uint64_t>(g.polls);
        if (mask_send) ++st_.icr_sends_multi;
        if (exits > windows.size()) st_.predicted_pv_ipi_saved += exits - windows.size();
    }
    g = Group{};
}

void PvIpiCounterfactual::finish(const Model& m) {
    for (std::size_t i = 0; i < groups_.size(); ++i) close(groups_[i], m.vcpu(VcpuSlot(static_cast<std::int32_t>(i))), m);
}

}  // namespace irqflow::replay
