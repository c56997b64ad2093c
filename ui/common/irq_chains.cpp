#include "irq_chains.hpp"

#include <algorithm>
#include <map>

namespace irqflow::ui {

namespace {

// How far after an IPI its accept is looked for: KVM traces the accept right after the
// send (a few records later on a busy host), never thousands of records later.
constexpr std::size_t kAcceptLookAhead = 4096;

// The first accept of `vector` for `vcpu` after the IPI and before the next IPI to it.
std::optional<std::uint64_t> accept_after(const Trace& t, const replay::IpiRecord& p, VcpuId vcpu, int vector,
                                          const std::vector<std::uint64_t>& sends) {
    const auto next = std::upper_bound(sends.begin(), sends.end(), p.record);
    const auto& ev = t.events;
    std::size_t i = ev.lower_bound_record(p.record + 1);  // records are in input order; times per CPU may not be
    for (const std::size_t end = std::min(ev.size(), i + kAcceptLookAhead); i < end; ++i) {
        const std::uint64_t rec = ev.record(i);
        if (next != sends.end() && rec >= *next) break;
        const EventKind k = ev.kind(i);
        if (k != EventKind::ApicAcceptIrq && k != EventKind::ApicvAcceptIrq) continue;
        const Event e = ev[i];
        if (e.vm == p.vm && e.vcpu == vcpu && e.get(slot::accept_vec) == vector) return rec;
    }
    return std::nullopt;
}

}  // namespace

std::vector<IrqChain> irq_chains(const Trace& t, const replay::ReplayResult& r, const IrqChainFilter& f) {
    using Key = std::pair<std::int32_t, std::int32_t>;  // (vm, vcpu)
    // this vector's interrupts per vCPU, by arrival
    std::map<Key, std::vector<const replay::InterruptRecord*>> by_vcpu;
    for (const auto& i : r.interrupts)
        if (i.vector == f.vector) by_vcpu[{i.vm.value(), i.vcpu.value()}].push_back(&i);
    for (auto& [k, list] : by_vcpu)
        std::stable_sort(list.begin(), list.end(), [](auto* a, auto* b) { return arrival_record(*a) < arrival_record(*b); });
    std::map<std::pair<std::int32_t, std::int64_t>, VcpuId> by_apic;  // (vm, APIC id) → vCPU, the first as in KVM's map
    for (const auto& vm : t.vms)
        for (const auto& v : vm.vcpus) by_apic.emplace(std::pair{vm.id.value(), std::int64_t{v.apic.value()}}, v.id);

    // the IPIs of the vector, and for each destination vCPU the records of the IPIs to it
    std::vector<const replay::IpiRecord*> ipis;
    std::map<Key, std::vector<std::uint64_t>> sends_to;
    for (const auto& p : r.ipis) {
        if (p.vector != f.vector) continue;
        ipis.push_back(&p);
        for (const std::uint32_t apic : p.expected)
            if (const auto it = by_apic.find({p.vm.value(), apic}); it != by_apic.end()) sends_to[{p.vm.value(), it->second.value()}].push_back(p.record);
    }
    // the replay records an IPI once it has decided it, which may be after later ones
    std::stable_sort(ipis.begin(), ipis.end(), [](auto* a, auto* b) { return a->record < b->record; });
    for (auto& [k, sends] : sends_to) std::sort(sends.begin(), sends.end());
    std::map<Key, std::size_t> cursor;  // per vCPU: its next interrupt not matched yet
    std::vector<const replay::InterruptRecord*> matched;
    std::vector<IrqChain> out;
    const auto wanted = [&](std::int64_t ts) { return !f.span || (ts >= f.span->first && ts <= f.span->second); };
    for (const auto* p : ipis) {
        IrqChain c;
        c.start_ts = p->ts;
        c.ipi = p;
        bool concerns = !f.vcpu || p->sender == *f.vcpu;
        for (const std::uint32_t apic : p->expected) {
            IpiDestination d;
            d.apic = apic;
            const auto owner = by_apic.find({p->vm.value(), apic});
            if (owner != by_apic.end()) {
                d.vcpu = owner->second;
                const Key k{p->vm.value(), d.vcpu.value()};
                const auto& list = by_vcpu[k];
                const auto& sends = sends_to[k];
                const auto next_send = std::upper_bound(sends.begin(), sends.end(), p->record);
                std::size_t& at = cursor[k];
                while (at < list.size() && arrival_record(*list[at]) < p->record) ++at;
                if (at < list.size() && (next_send == sends.end() || arrival_record(*list[at]) < *next_send)) {
                    d.irq = list[at++];
                    matched.push_back(d.irq);
                }
            }
            if (!d.irq && d.vcpu != kUnknownVcpu) d.accept_record = accept_after(t, *p, d.vcpu, f.vector, sends_to[{p->vm.value(), d.vcpu.value()}]);
            concerns = concerns || (f.vcpu && d.vcpu == *f.vcpu);
            c.destinations.push_back(d);
        }
        if (concerns && wanted(c.start_ts)) out.push_back(std::move(c));
    }
    std::sort(matched.begin(), matched.end());
    for (const auto& [k, list] : by_vcpu) {
        if (f.vcpu && k.second != f.vcpu->value()) continue;
        for (const auto* i : list) {
            if (std::binary_search(matched.begin(), matched.end(), i)) continue;
            IrqChain c;
            c.start_ts = arrival_ts(*i);
            c.irq = i;
            if (wanted(c.start_ts)) out.push_back(c);
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const IrqChain& a, const IrqChain& b) { return a.start_ts < b.start_ts; });
    return out;
}

}  // namespace irqflow::ui
