// The evidence index: per vCPU and vector, the records that put the vector where the
// model has it — its first accept since it was last injected, its last injection. Rules
// cite them in findings; latency and lifecycles measure from them.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "../model/effect.hpp"
#include "irqflow/capture/event.hpp"

namespace irqflow::replay {

class Evidence {
public:
    struct Entry {
        std::int64_t pending_since = 0;   // ts of the first accept not yet injected (0: none)
        std::uint64_t accept_record = 0;  // that accept (kept after the injection)
        std::int64_t accept_ts = 0;
        std::int64_t injected_at = 0;     // ts of the injection not yet EOI'd (0: none)
        std::uint64_t inject_record = 0;  // the last injection
        std::int64_t inject_ts = 0;       // (kept after its EOI)
        std::uint64_t eoi_record = 0;     // the last EOI
        std::int64_t eoi_ts = 0;
    };
    explicit Evidence(std::size_t vcpus) : by_vcpu_(vcpus) {}
    void vcpus(std::size_t n) { by_vcpu_.resize(n); }  // more became known
    const Entry& of(VcpuSlot v, int vector) const { return by_vcpu_[static_cast<std::size_t>(v.value())][static_cast<std::size_t>(vector & 0xff)]; }
    // After the model applied an accept into IRR, an injection into ISR (or an
    // auto-EOI one) or an EOI.
    void accepted(const Event& e, const Effect& fx) {
        auto& x = at(fx.vcpu, fx.vector);
        if (x.pending_since) return;  // the first accept since the injection is the one cited
        x.pending_since = e.ts.value();
        stamp(x.accept_record, x.accept_ts, e);
    }
    void injected(const Event& e, const Effect& fx) {
        auto& x = at(fx.vcpu, fx.vector);
        x.pending_since = 0;
        if (fx.outcome == Outcome::InjectedAutoEoi) return;  // never in service: nothing to EOI
        x.injected_at = e.ts.value();
        stamp(x.inject_record, x.inject_ts, e);
    }
    void eoi(const Event& e, const Effect& fx) {
        auto& x = at(fx.vcpu, fx.vector);
        x.injected_at = 0;
        stamp(x.eoi_record, x.eoi_ts, e);
    }

private:
    static void stamp(std::uint64_t& record, std::int64_t& ts, const Event& e) {
        record = e.record;
        ts = e.ts.value();
    }
    Entry& at(VcpuSlot v, int vector) { return by_vcpu_[static_cast<std::size_t>(v.value())][static_cast<std::size_t>(vector & 0xff)]; }
    std::vector<std::array<Entry, 256>> by_vcpu_;
};

}  // namespace irqflow::replay
