// What the IPI rules share: how a finding names the send.
#pragma once
#include <cstdio>
#include <string>

#include "../diagnose/explain.hpp"
#include "check.hpp"

namespace irqflow::replay::ipi {

inline std::string what(const IpiSend& s) {
    char b[96];
    std::snprintf(b, sizeof b, "%s, vector 0x%02x", to_string(s.kind), s.vector);
    return b;
}

// Why the IPI rules judged nothing.
inline std::string not_judged(const KindCounts& seen) {
    if (!none_of(seen, {EventKind::ApicIpi, EventKind::Hypercall, EventKind::HvSendIpi, EventKind::HvSendIpiEx}).empty())
        return "no IPI send (kvm_apic_ipi, a PV IPI or Hyper-V IPI hypercall) in the input";
    return "no IPI send whose destinations the trace settles (a PV IPI hypercall, an ICR write in physical or x2APIC mode, "
           "a Hyper-V IPI with its VP mask)";
}

// The record of the accept that took an IPI to `apic` (0 if none did).
inline std::uint64_t accept_record(const IpiSend& s, std::uint32_t apic) {
    for (const auto& [id, record] : s.accepts)
        if (id == apic) return record;
    return 0;
}

inline VcpuId vcpu_of(const RuleContext& c, VmId vm, std::uint32_t apic) {
    const VcpuSlot s = c.model.vcpu_by_apic(vm, apic);
    return s == kNoVcpu ? kUnknownVcpu : c.model.vcpu(s).id;
}

// What went wrong with a send whose deliveries differ from its destinations: one accept
// that went to another APIC id than the send named is a wrong destination, not a
// missing and an extra one; else the missing accepts, or the extra ones. The vCPUs it
// touches are implicated: the one the IPI was for injects without an accept, the one it
// went to holds it pending (their findings are this fault's follow-ons).
inline void diagnose_send(const IpiSend& s, const RuleContext& c, Finding& f) {
    ApicIdSet missing, extra;
    for (auto id : s.expected)
        if (!s.received.count(id)) missing.insert(id);
    for (auto id : s.received)
        if (!s.expected.count(id)) extra.insert(id);
    const diagnose::At send{s.record, s.ts};
    const diagnose::At done = s.completed_record ? diagnose::At{s.completed_record, s.completed_ts} : send;
    const std::string sent = what(s) + " sent at " + diagnose::rec(s.record) + " to APIC ids " + ids_str(s.expected);
    diagnose::Candidates k(s.vm, s.sender);
    for (auto m : missing) f.implicates.push_back({s.vm, vcpu_of(c, s.vm, m), s.vector});
    for (auto x : extra) f.implicates.push_back({s.vm, vcpu_of(c, s.vm, x), s.vector});
    if (!missing.empty() && !extra.empty()) {
        const auto m = *missing.begin(), x = *extra.begin();
        const auto at = accept_record(s, x);
        auto& w = k.wrong(EventKind::ApicAcceptIrq, {at, s.ts}, "apicid", x, m, 0.8,
                          "the " + sent + " went to APIC id " + std::to_string(x) + ", not " + std::to_string(m) + " as the send said");
        w.vector = s.vector;
        w.vcpu = vcpu_of(c, s.vm, x);
        w.evidence = {s.record, at};
        auto& icr = k.wrong(s.kind == IpiKind::IcrWrite ? EventKind::ApicIpi : s.kind == IpiKind::HypervIpi ? EventKind::HvSendIpi : EventKind::Hypercall,
                            send, "destination", m, x, 0.4, "or the send itself named the wrong destination");
        icr.vector = s.vector;
        icr.evidence = {s.record, at};
    } else if (!missing.empty()) {
        for (auto m : missing) {
            auto& x = k.missing(EventKind::ApicAcceptIrq, s.vector, send, done, 0.8,
                                "the " + sent + " reached " + ids_str(s.received) + " but not APIC id " + std::to_string(m) +
                                    ": KVM delivers before the sender enters again");
            x.vcpu = vcpu_of(c, s.vm, m);
            x.evidence = {s.record, done.record};
        }
    } else {
        for (auto id : extra) {
            const auto at = accept_record(s, id);
            auto& x = k.extra(EventKind::ApicAcceptIrq, s.vector, {at, s.ts}, 0.7,
                              "the " + sent + " did not name APIC id " + std::to_string(id));
            x.vcpu = vcpu_of(c, s.vm, id);
            x.evidence = {s.record, at};
        }
        if (s.expected.size() == 1)  // a unicast send may have named the wrong one
            k.wrong(EventKind::ApicIpi, send, "destination", *s.expected.begin(), *extra.begin(), 0.3, "or the send named the wrong destination")
                .evidence = {s.record};
    }
    f.diagnosis = k.pick();
}

// A lowest-priority send is right when exactly one of its destinations got it.
inline bool lowest_priority_ok(const IpiSend& s) {
    return s.received.size() == 1 && (s.expected.empty() || s.expected.count(*s.received.begin()));
}

}  // namespace irqflow::replay::ipi
