#include "irqflow/capture/guest.hpp"

namespace irqflow {
namespace {

constexpr int kLegacyIrqs = 16, kIsaIrqVector0 = 0x30;  // Linux's ISA_IRQ_VECTOR(0)

bool legacy_unconfigured(int cpu, std::int32_t irq, const std::set<std::int32_t>& configured) {
    return cpu == 0 && irq >= 0 && irq < kLegacyIrqs && !configured.count(irq);
}

}  // namespace

void GuestVectorMap::apply(const GuestEvent& g) {
    if (g.kind != GuestEventKind::VectorConfig && g.kind != GuestEventKind::VectorUpdate) return;
    // the IRQ's vector now lives on target_cpu; it left any other CPU
    for (auto it = placed_.begin(); it != placed_.end();) it = it->first.second == g.irq ? placed_.erase(it) : std::next(it);
    placed_[{g.target_cpu, g.irq}] = {g.vector.value(), g.record};
    configured_.insert(g.irq);
}

std::optional<int> GuestVectorMap::vector_of(int cpu, std::int32_t irq) const {
    if (const auto it = placed_.find({cpu, irq}); it != placed_.end()) return it->second.vector;
    if (legacy_unconfigured(cpu, irq, configured_)) return kIsaIrqVector0 + irq;
    return std::nullopt;
}

std::optional<std::int32_t> GuestVectorMap::irq_at(int cpu, int vector) const {
    for (const auto& [at, p] : placed_)
        if (at.first == cpu && p.vector == vector) return at.second;
    const auto legacy = static_cast<std::int32_t>(vector - kIsaIrqVector0);
    if (legacy_unconfigured(cpu, legacy, configured_)) return legacy;
    return std::nullopt;
}

std::optional<std::uint64_t> GuestVectorMap::configured_by(int cpu, std::int32_t irq) const {
    if (const auto it = placed_.find({cpu, irq}); it != placed_.end()) return it->second.record;
    return std::nullopt;
}

}  // namespace irqflow
