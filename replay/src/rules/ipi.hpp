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

// A lowest-priority send is right when exactly one of its destinations got it.
inline bool lowest_priority_ok(const IpiSend& s) {
    return s.received.size() == 1 && (s.expected.empty() || s.expected.count(*s.received.begin()));
}

}  // namespace irqflow::replay::ipi
