// LIVE-NO-EOI: a handler ends with an EOI, so the highest vector in service gets one
// soon while the vCPU keeps running; until then PPR blocks every vector of its class
// and below. One in service longer than ReplayOptions::no_eoi_threshold_ns while the vCPU
// keeps entering the guest is a guest stuck in (or having lost) its handler, or an EOI
// the trace lost. Reported once per injection.
#pragma once
#include <array>
#include <map>
#include <string>
#include <vector>

#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class LiveNoEoi final : public Check {
public:
    LiveNoEoi(RuleId id, const Model& m) : Check(id, kSubscriptions), reported_(m.vcpu_count()) {}
    void vcpus(std::size_t n) override { reported_.resize(n); }
    static constexpr Subscriptions kSubscriptions{{EventKind::Eoi}, {EventKind::InjVirq, EventKind::Entry}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::Entry}); !s.empty()) return s;
        return "no vCPU entered the guest with a vector in service while its APIC state was known";
    }
    // An entry matters only with a vector in service; an EOI only while a finding awaits it.
    template <EventKind K>
    bool wakes_after(const Event&, const Effect& fx, const RuleContext& c) const {
        if (fx.vcpu == kNoVcpu) return false;
        if constexpr (K != EventKind::Entry) return true;
        const auto& v = c.model.vcpu(fx.vcpu);
        return v.synced && v.lapic.isr_top() >= 0;  // (ISR's kept top: no scan of its words)
    }
    template <EventKind>
    bool wakes_before(const Event&, const Effect&, const RuleContext&) const { return !awaiting_.empty(); }
    template <EventKind K>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const RuleContext& c) {
        if (fx.vcpu == kNoVcpu) return;
        auto& reported = reported_[static_cast<std::size_t>(fx.vcpu.value())];
        if constexpr (K == EventKind::InjVirq) {
            if (fx.outcome == Outcome::Injected) reported[static_cast<std::size_t>(fx.vector)] = false;
        } else {
            const auto& v = c.model.vcpu(fx.vcpu);
            if (!v.synced || v.lapic.isr_top() < 0) return;
            judged();
            const int top = v.lapic.isr_top();  // the top one is what blocks progress
            const auto& x = c.evidence.of(fx.vcpu, top);
            const auto u = static_cast<std::size_t>(top);
            if (!x.injected_at || e.ts.value() - x.injected_at <= c.options.no_eoi_threshold_ns || reported[u]) return;
            reported[u] = true;
            fire(e, fx, c, v, top);
        }
    }

    // The EOI that did come after all makes the finding's diagnosis a late EOI.
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (fx.vcpu == kNoVcpu || fx.outcome != Outcome::Eoi || awaiting_.empty()) return;
        const auto it = awaiting_.find({fx.vcpu.value(), fx.vector});
        if (it == awaiting_.end()) return;
        auto& d = *c.findings[it->second].diagnosis;
        d.top.cause = Cause::Late;
        d.top.to = e.record;
        d.top.to_ts = e.ts;
        d.top.why = vec_str(fx.vector) + " stayed in service past the " + std::to_string(c.options.no_eoi_threshold_ns / 1000000) +
                    " ms the rule allows while the vCPU kept running; its EOI came at last";
        d.top.evidence.push_back(e.record);
        awaiting_.erase(it);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c, const VcpuModel& v, int top) {
        const auto& x = c.evidence.of(fx.vcpu, top);
        diagnose::Candidates k(v.vm, v.id);
        k.stuck(EventKind::Eoi, top, {x.inject_record, TimestampNs(x.injected_at)}, {e.record, e.ts}, 0.8,
                vec_str(top) + " has been in service since its injection while the vCPU keeps running: the guest never EOIs it, and nothing below it can come")
            .evidence = {x.inject_record, e.record};
        report(c, e, v, "EOI of " + vec_str(top) + " within " + std::to_string(c.options.no_eoi_threshold_ns / 1000000) + " ms",
               "in service for " + std::to_string((e.ts.value() - x.injected_at) / 1000000) + " ms", {{x.inject_record, "injected " + vec_str(top)}})
            .diagnosis = k.pick();
        awaiting_[{fx.vcpu.value(), top}] = c.findings.size() - 1;
    }

    std::vector<std::array<bool, 256>> reported_;  // per vCPU and vector, since its last injection
    std::map<std::pair<std::int32_t, int>, std::size_t> awaiting_;  // (vCPU slot, vector) → its finding, until the EOI
};

}  // namespace irqflow::replay::rules
