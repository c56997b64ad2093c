// GUEST-INJECTION-UNHANDLED: KVM injected vector V into vCPU c, and the guest's own trace
// shows no handler of V on CPU c before V's next injection there (or the end), although
// it recorded other events on that CPU meanwhile. The interrupt went in and the guest
// did not run what it is for: lost between the injection and the guest's IDT (a
// cancelled entry KVM did not re-inject, a vector the guest has no handler on), or the
// host's trace shows an injection that did not happen. A CPU the guest recorded nothing
// on is a hole in its trace, not judged (replay/README.md, "Guest handlers").
#pragma once
#include <string>

#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

std::string guest_at(std::uint64_t record) { return "g" + std::to_string(record); }

class GuestInjectionUnhandled final : public Check {
public:
    GuestInjectionUnhandled(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{}, {}, false, true};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::InjVirq}); !s.empty()) return s;
        return "no injection came while the guest's trace recorded its vCPU with a handler event for its vector";
    }
    void on_guest(const GuestOutcome& o, const RuleContext& c) override {
        if (o.kind == GuestOutcome::Kind::Handled) judged();
        if (o.kind != GuestOutcome::Kind::Unhandled) return;
        judged();
        const VmId vm = c.options.guest_vm;
        const std::string cpu = "CPU " + std::to_string(o.vcpu.value());
        const std::string next = o.at_end ? "the end of the host's trace" : vec_str(o.vector) + "'s next injection";
        Chain chain{{o.injection.record, "injects " + vec_str(o.vector)}};
        if (o.eoi.record) chain.push_back({o.eoi.record, "EOI of " + vec_str(o.vector) + ", with no handler in the guest"});
        if (!o.at_end) chain.push_back({o.until.record, "injects " + vec_str(o.vector) + " again"});

        diagnose::Candidates k(vm, o.vcpu);
        const std::string busy = "the guest's trace recorded " + cpu + " meanwhile (up to " + guest_at(o.guest_last) + ")";
        auto& gone = k.missing(EventKind::Other, o.vector, {o.injection.record, o.injection.ts}, {o.until.record, o.until.ts}, 0.8,
                               busy + (o.eoi.record ? "; the host saw the EOI, so the guest acknowledged it: its handler's trace point did not fire"
                                                    : "; nor did the host see its EOI: the guest never took it"));
        gone.guest_event = o.handler;
        gone.evidence = {o.injection.record};
        if (!o.eoi.record) {  // with no EOI either, the injection itself may be what is wrong
            auto& extra = k.extra(EventKind::InjVirq, o.vector, {o.injection.record, o.injection.ts}, 0.4,
                                  "nothing in the guest, and no EOI, answers it");
            extra.evidence = {o.injection.record};
        }
        report(c, o.injection.ts, o.injection.record, vm, o.vcpu,
               "the guest's " + o.handler + " of " + vec_str(o.vector) + " on " + cpu + " before " + next,
               "none in the guest's trace, though it recorded " + cpu + " until " + guest_at(o.guest_last), std::move(chain))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
