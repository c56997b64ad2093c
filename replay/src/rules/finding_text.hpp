// How findings name vectors, vector sets and APIC id sets.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "irqflow/replay/vector_set.hpp"

namespace irqflow::replay {

inline std::string vec_str(int v) {
    if (v < 0) return "nothing";
    char b[16];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

// Highest first, as the APIC serves them: "{0xfc,0xec}".
inline std::string set_str(const VectorSet& s) {
    std::string out = "{";
    for (int v = 255; v >= 0; --v)
        if (s.test(v)) out += (out.size() > 1 ? "," : "") + vec_str(v);
    return out + "}";
}

template <class Ids>
std::string ids_str(const Ids& s) {
    std::string out;
    for (auto id : s) out += (out.empty() ? "" : ",") + std::to_string(id);
    return "{" + out + "}";
}

}  // namespace irqflow::replay
