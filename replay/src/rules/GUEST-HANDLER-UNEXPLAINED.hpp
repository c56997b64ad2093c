// GUEST-HANDLER-UNEXPLAINED: the guest entered the handler of vector V on CPU c, and
// nothing delivered V to vCPU c since its last handler there: no injection (nor, on a
// vCPU whose interrupts the host posts instead of injecting, an accept). Either the host's
// trace misses the delivery, or the guest ran the handler of another vector than the
// one delivered — the guest's IRQ → vector map (vector_config) or the vector the host
// chose is wrong. Not judged where the host's trace lost events since the vector's last
// delivery, or had not begun on that vCPU (replay/README.md, "Guest handlers").
#pragma once
#include <string>

#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class GuestHandlerUnexplained final : public Check {
public:
    GuestHandlerUnexplained(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{}, {}, false, true};
    std::string not_judged(const KindCounts&) const override {
        return "no handler in the guest's trace came while the host's trace showed its vCPU without losing events";
    }
    void on_guest(const GuestOutcome& o, const RuleContext& c) override {
        if (o.kind == GuestOutcome::Kind::Explained) judged();
        if (o.kind != GuestOutcome::Kind::Unexplained) return;
        judged();
        const VmId vm = c.options.guest_vm;
        const std::string since = o.injection.record ? vec_str(o.vector) + "'s last injection there (record " + std::to_string(o.injection.record) +
                                                           (o.previous_handler ? ", handled at g" + std::to_string(o.previous_handler) : "") + ")"
                                                     : "the host's trace began";
        Chain chain;
        if (o.injection.record) chain.push_back({o.injection.record, "injects " + vec_str(o.vector) + " (its last delivery)"});
        if (o.waiting_vector >= 0) chain.push_back({o.waiting_injection.record, "injects " + vec_str(o.waiting_vector) + ", no handler yet"});

        diagnose::Candidates k(vm, o.vcpu);
        const diagnose::At guest_at{o.host_before.record, o.guest_ts};
        if (o.waiting_vector >= 0) {  // the handler of the injection that waits, under another vector
            auto& wrong = k.wrong(EventKind::Other, guest_at, "vector", o.vector, o.waiting_vector, 0.7,
                                  vec_str(o.waiting_vector) + " was injected at record " + std::to_string(o.waiting_injection.record) +
                                      " and its handler had not run" +
                                      (o.mapped ? "; the guest's own map put this IRQ at " + vec_str(o.vector) + " (g" + std::to_string(o.mapped_by) + ")" : ""));
            wrong.guest_event = o.handler;
            wrong.guest_record = o.guest_record;
            wrong.evidence = {o.waiting_injection.record};
        }
        auto& missing = k.missing(EventKind::InjVirq, o.vector, o.injection.record ? diagnose::At{o.injection.record, o.injection.ts} : guest_at,
                                  guest_at, 0.5, "the guest ran its handler at g" + std::to_string(o.guest_record));
        if (o.injection.record) missing.evidence = {o.injection.record};
        auto& extra = k.extra(EventKind::Other, o.vector, guest_at, 0.3, "no delivery of " + vec_str(o.vector) + " since " + since);
        extra.guest_event = o.handler;
        extra.guest_record = o.guest_record;
        Finding& f = report(c, o.guest_ts, o.host_before.record, vm, o.vcpu,
                            "a delivery of " + vec_str(o.vector) + " to vCPU " + std::to_string(o.vcpu.value()) + " before the guest's " + o.handler,
                            "none since " + since, std::move(chain));
        f.guest_record = o.guest_record;
        f.diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
