// Interrupt latency per vector: accept → inject (how long a pending vector waited) and
// inject → EOI (how long the guest kept it in service), as percentiles (exact while
// a vector has few samples, then from a histogram: latency_distribution.hpp).
#pragma once
#include <array>
#include <vector>

#include "evidence.hpp"
#include "latency_distribution.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class LatencySamples {
public:
    explicit LatencySamples(bool keep) : keep_(keep) {}
    // Before the evidence moves on (it still holds the accept / injection time).
    void injected(const Event& e, const Effect& fx, const Evidence& ev) {
        if (!keep_) return;
        if (const auto t = ev.of(fx.vcpu, fx.vector).pending_since) a2i_[static_cast<std::size_t>(fx.vector)].add(e.ts.value() - t);
    }
    void eoi(const Event& e, const Effect& fx, const Evidence& ev) {
        if (!keep_) return;
        if (const auto t = ev.of(fx.vcpu, fx.vector).injected_at) i2e_[static_cast<std::size_t>(fx.vector)].add(e.ts.value() - t);
    }
    void finish(ReplayStats& st);

private:
    bool keep_;
    std::array<LatencyDistribution, 256> a2i_, i2e_;
};

}  // namespace irqflow::replay
