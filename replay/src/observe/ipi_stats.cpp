#include "ipi_stats.hpp"

#include "../model/registers.hpp"

namespace irqflow::replay {

std::uint64_t icr_exits_for(const VmModel& vm, const ApicIdSet& dests) {
    if (dests.empty()) return 0;
    if (vm.x2apic) {
        if (!vm.x2apic_cluster) return dests.size();
        ApicIdSet clusters;
        for (auto id : dests) clusters.insert(apic::x2apic_cluster_of(id));
        return clusters.size();
    }
    return vm.x2apic_cluster ? 3 : 3 * dests.size();
}

void IpiStats::hypercall(const Model& m) {
    const IpiSend* s = m.sent();
    if (!s) return;
    ++st_.pv_ipi_hypercalls;
    const auto exits = icr_exits_for(*m.vm(s->vm), s->expected);
    if (exits > 1) st_.exits_saved_pv_ipi += exits - 1;
}

void IpiStats::hv_ipi(const Model& m) {
    ++st_.hv_ipis;
    const IpiSend* s = m.sent();
    if (!s || !s->exact) return;
    const auto exits = icr_exits_for(*m.vm(s->vm), s->expected);
    if (exits > 1) st_.exits_saved_hv_ipi += exits - 1;
}

void IpiStats::on_ipi(const IpiSend& s) {
    ++st_.ipis_checked;
    if (!records_) return;
    IpiRecord rec;
    rec.record = s.record;
    rec.ts = s.ts.value();
    rec.vm = s.vm;
    rec.sender = s.sender;
    rec.kind = s.kind;
    rec.vector = s.vector;
    rec.delivery_mode = s.delivery_mode;
    rec.expected.assign(s.expected.begin(), s.expected.end());
    rec.received.assign(s.received.begin(), s.received.end());
    rec.exact = s.exact && !s.lowest_priority;
    records_->push_back(std::move(rec));
}

}  // namespace irqflow::replay
