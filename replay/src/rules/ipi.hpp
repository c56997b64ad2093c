// What the IPI rules share: how a finding names the send.
#pragma once
#include <cstdio>
#include <string>

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

// A lowest-priority send is right when exactly one of its destinations got it.
inline bool lowest_priority_ok(const IpiSend& s) {
    return s.received.size() == 1 && (s.expected.empty() || s.expected.count(*s.received.begin()));
}

}  // namespace irqflow::replay::ipi
