// How findings name vectors, vector sets and APIC id sets.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "../model/effect.hpp"
#include "../model/lapic.hpp"
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

// What the model adopts from an event that proved it wrong (Effect::adopts), from the
// state before the event: "dropped 0xfc from IRR", "retired {0xf3} from ISR".
inline std::string adoption_text(const Effect& fx, const Lapic& before, const VectorSet& accepted_since_entry) {
    std::string out;
    auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
    if (fx.isr_clear_from >= 0) {
        VectorSet retired;
        for (int v = before.isr().highest(); v >= fx.isr_clear_from; --v)
            if (before.isr().test(v)) retired.set(v);
        if (!retired.empty()) add("retired " + set_str(retired) + " from ISR");
    }
    if (fx.drop_irr >= 0) add("dropped " + vec_str(fx.drop_irr) + " from IRR");
    if (fx.reinject_in_service) add("put " + vec_str(fx.vector) + " in service");
    if (fx.irr_settled_clear) add("dropped " + set_str(before.irr().minus(accepted_since_entry)) + " from IRR");
    return out;
}

template <class Ids>
std::string ids_str(const Ids& s) {
    std::string out;
    for (auto id : s) out += (out.empty() ? "" : ",") + std::to_string(id);
    return "{" + out + "}";
}

}  // namespace irqflow::replay
