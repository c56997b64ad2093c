// IPIs: each send (PV IPI hypercall, ICR write, Hyper-V hypercall) sets the exact set
// of destinations; the kvm_apic_accept_irq events emitted on the sender's thread before
// its next VM entry must match it (DESIGN §4).
#include <cstdio>
#include <cstdlib>

#include "engine.hpp"

namespace irqflow::replay {
namespace {

constexpr std::int64_t kHcSendIpi = 10;  // KVM_HC_SEND_IPI
// ICR writes of one send follow each other within a few exits; under nested TCG one
// exit takes ~20 µs, so 500 µs separates sends without splitting one.
constexpr std::int64_t kIcrGroupGapNs = 500'000;

std::string ids_str(const std::set<std::uint32_t>& s) {
    std::string out;
    for (auto id : s) out += (out.empty() ? "" : ",") + std::to_string(id);
    return "{" + out + "}";
}

}  // namespace

void Engine::on_hypercall(const Event& e, Vcpu& v) {
    if (e.get(slot::hc_nr) != kHcSendIpi) return;
    ++r_.stats.pv_ipi_hypercalls;
    const auto a0 = static_cast<std::uint64_t>(e.get(slot::hc_a0).value_or(0));
    const auto a1 = static_cast<std::uint64_t>(e.get(slot::hc_a1).value_or(0));
    const auto base = static_cast<std::uint32_t>(e.get(slot::hc_a2).value_or(0));
    const auto icr = e.get(slot::hc_a3).value_or(0);
    PendingIpi p{e.record, e.ts, v.s.vm, v.s.vcpu, static_cast<int>(icr & 0xff), static_cast<int>((icr >> 8) & 7),
                 {}, {}, false, true, "PV IPI hypercall", 0};
    // a0/a1: a 128-bit bitmap of APIC ids relative to a2; ids no vCPU owns are skipped
    std::set<std::uint32_t> clusters;
    for (int i = 0; i < 128; ++i) {
        const std::uint64_t w = i < 64 ? a0 : a1;
        if (!((w >> (i & 63)) & 1)) continue;
        const std::uint32_t id = base + static_cast<std::uint32_t>(i);
        if (!vcpu_by_apic(v.s.vm, id)) continue;
        p.expected.insert(id);
        clusters.insert(id >> 4);
    }
    const auto writes = icr_writes_for(v.s.vm, p.expected, vm_x2apic_cluster_[static_cast<std::size_t>(v.s.vm.value())]);
    if (writes > 1) r_.stats.exits_saved_pv_ipi += writes - 1;
    ipis_[v.tid.value()].push_back(std::move(p));
}

std::uint64_t Engine::icr_writes_for(VmId vm, const std::set<std::uint32_t>& dests, bool logical) const {
    if (dests.empty()) return 0;
    if (vm_x2apic_[static_cast<std::size_t>(vm.value())]) {
        if (!logical) return dests.size();  // x2APIC physical: one MSR write per destination
        std::set<std::uint32_t> clusters;
        for (auto id : dests) clusters.insert(id >> 4);
        return clusters.size();  // x2APIC cluster: one per cluster
    }
    // xAPIC: ICR2 then ICR, two exits per write pair; flat logical mode reaches up to
    // eight CPUs with one pair, physical mode needs a pair per destination.
    return logical ? 2 : 2 * dests.size();
}

void Engine::close_icr_group(Vcpu& v) {
    auto& g = v.icr_group;
    const bool x2apic = v.s.vm.value() >= 0 && vm_x2apic_[static_cast<std::size_t>(v.s.vm.value())];
    // x2APIC guests use the hypercall only for sends to several CPUs; xAPIC guests for
    // every send (it replaces the ICR2+ICR write pair). A run of writes is one send to
    // several CPUs only if each destination appears once and the vector is one this
    // guest sends to masks (seen with a shorthand, a multi-bit logical destination or
    // a PV IPI hypercall somewhere in the trace); otherwise it is single sends in a row.
    const bool mask_send = g.writes >= 2 && g.dests.size() == static_cast<std::size_t>(g.writes) &&
                           mask_vectors_[static_cast<std::size_t>(v.s.vm.value())].test(g.vector);
    if (mask_send || (!x2apic && g.writes == 1)) {
        std::set<std::uint32_t> windows;  // one hypercall per 128-id window the destinations span
        const std::uint32_t base = g.dests.empty() ? 0 : *g.dests.begin();
        for (auto id : g.dests) windows.insert((id - base) / 128);
        const std::uint64_t exits = x2apic ? static_cast<std::uint64_t>(g.writes) : 2ULL * static_cast<std::uint64_t>(g.writes);
        if (mask_send) ++r_.stats.icr_sends_multi;
        if (exits > windows.size()) r_.stats.predicted_pv_ipi_saved += exits - windows.size();
    }
    g = Vcpu::IcrGroup{};
}

void Engine::on_icr(const Event& e, Vcpu& v) {
    ++r_.stats.icr_ipis;
    {
        // Counterfactual PV IPI: Linux sends to a CPU mask as back-to-back ICR writes of
        // one vector (one per destination, or per cluster); a hypercall would do it once.
        auto& g = v.icr_group;
        const int gvec = static_cast<int>(e.get(slot::ipi_vec).value_or(0));
        const int gdm = static_cast<int>(e.get(slot::ipi_dm).value_or(0));
        const bool plain = e.get(slot::ipi_shorthand).value_or(0) == 0 && (gdm == 0 || gdm == 4);
        if (!plain || gvec != g.vector || gdm != g.dm || e.ts.value() - g.last_ts > kIcrGroupGapNs) close_icr_group(v);
        if (plain) {
            g.vector = gvec;
            g.dm = gdm;
            g.last_ts = e.ts.value();
            g.dests.insert(static_cast<std::uint32_t>(e.get(slot::ipi_dest_id).value_or(0)));
            ++g.writes;
        }
    }
    const auto dest = static_cast<std::uint32_t>(e.get(slot::ipi_dest_id).value_or(0));
    const int vec = static_cast<int>(e.get(slot::ipi_vec).value_or(0));
    const int dm = static_cast<int>(e.get(slot::ipi_dm).value_or(0));
    const bool logical = e.get(slot::ipi_dest_mode).value_or(0) != 0;
    const int shorthand = static_cast<int>(e.get(slot::ipi_shorthand).value_or(0));
    const bool assert_level = e.get(slot::ipi_level).value_or(1) != 0;
    if (dm == 5 && !assert_level) return;  // INIT level de-assert: KVM ignores it
    PendingIpi p{e.record, e.ts, v.s.vm, v.s.vcpu, vec, dm, {}, {}, dm == 1, true, "ICR write", 0};
    const auto self = v.s.apic.value();
    auto all = vcpus_of_vm(v.s.vm);
    switch (shorthand) {
    case 1: p.expected.insert(self); break;
    case 2: for (auto* d : all) p.expected.insert(d->s.apic.value()); break;
    case 3: for (auto* d : all) if (d->s.apic.value() != self) p.expected.insert(d->s.apic.value()); break;
    default:
        if (!logical) {
            if (dest == 0xffffffffu || (dest == 0xff && all.size() < 255)) {
                for (auto* d : all) p.expected.insert(d->s.apic.value());
            } else if (vcpu_by_apic(v.s.vm, dest)) {
                p.expected.insert(dest);
            }
        } else if (dest > 0xff) {
            // x2APIC cluster mode: cluster in 31:16, a bit per member in 15:0
            vm_x2apic_cluster_[static_cast<std::size_t>(v.s.vm.value())] = true;
            for (auto* d : all) {
                const auto id = d->s.apic.value();
                if ((id >> 4) == (dest >> 16) && ((dest & 0xffff) >> (id & 0xf)) & 1) p.expected.insert(id);
            }
        } else {
            // xAPIC logical: each vCPU's LDR (flat or cluster model) decides
            for (auto* d : all) {
                auto m = logical_match(*d, dest);
                if (!m) p.exact = false;
                else if (*m) p.expected.insert(d->s.apic.value());
            }
        }
    }
    if (p.lowest_priority) p.exact = false;
    ipis_[v.tid.value()].push_back(std::move(p));
}

void Engine::on_hv_ipi(const Event& e, Vcpu& v) {
    ++r_.stats.hv_ipis;
    PendingIpi p{e.record, e.ts, v.s.vm, v.s.vcpu, static_cast<int>(e.get(0).value_or(0)), 0, {}, {}, false, true, "Hyper-V IPI", 0};
    if (e.kind == EventKind::HvSendIpi) {
        // VP index = vCPU index (QEMU's hv-vpindex)
        const auto mask = static_cast<std::uint64_t>(e.get(1).value_or(0));
        for (auto* d : vcpus_of_vm(v.s.vm))
            if (d->s.vcpu.value() < 64 && ((mask >> d->s.vcpu.value()) & 1)) p.expected.insert(d->s.apic.value());
    } else {
        p.exact = false;  // _ex: the sparse banks are not in the trace
    }
    ipis_[v.tid.value()].push_back(std::move(p));
}

void Engine::close_ipis(Tid tid) {
    auto it = ipis_.find(tid.value());
    if (it == ipis_.end()) return;
    for (const auto& p : it->second) {
        ++r_.stats.ipis_checked;
        if (o_.collect_details) {
            IpiRecord rec;
            rec.record = p.record;
            rec.ts = p.ts.value();
            rec.vm = p.vm;
            rec.sender = p.sender;
            rec.kind = p.what;
            rec.vector = p.vector;
            rec.delivery_mode = p.dm;
            rec.expected.assign(p.expected.begin(), p.expected.end());
            rec.received.assign(p.received.begin(), p.received.end());
            rec.exact = p.exact && !p.lowest_priority;
            r_.ipis.push_back(std::move(rec));
        }
        Event at;
        at.ts = p.ts;
        at.record = p.record;
        auto what = [&p] {  // built only for a finding
            char b[96];
            std::snprintf(b, sizeof b, "%s, vector 0x%02x", p.what, p.vector);
            return std::string(b);
        };
        if (p.lowest_priority) {
            if (p.received.size() != 1 || (!p.expected.empty() && !p.expected.count(*p.received.begin())))
                report(p.received.empty() ? Rule::IpiMissingDest : Rule::IpiExtraDest, at, p.vm, p.sender,
                       what() + ": one of APIC ids " + ids_str(p.expected) + " (lowest priority)",
                       "delivered to " + ids_str(p.received));
            continue;
        }
        std::set<std::uint32_t> missing, extra;
        for (auto id : p.expected)
            if (!p.received.count(id)) missing.insert(id);
        for (auto id : p.received)
            if (p.exact && !p.expected.count(id)) extra.insert(id);
        if (p.exact && !missing.empty())
            report(Rule::IpiMissingDest, at, p.vm, p.sender, what() + " to APIC ids " + ids_str(p.expected),
                   "no interrupt for " + ids_str(missing) + "; delivered to " + ids_str(p.received));
        if (!extra.empty())
            report(Rule::IpiExtraDest, at, p.vm, p.sender, what() + " to APIC ids " + ids_str(p.expected),
                   "also delivered to " + ids_str(extra));
    }
    ipis_.erase(it);
}

}  // namespace irqflow::replay
