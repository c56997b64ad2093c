// PVEOI-NOT-ARMED: the guest may skip the EOI exit only when the host armed PV EOI for
// the vector in service (replay/README.md, "PV EOI arming"): current kernels arm
// before an entry iff PV EOI is enabled, IRR is empty and the one vector in service is
// not IOAPIC-handled; the 2012 series armed at injection and disarmed on nesting. A PV
// EOI the rule did not allow means the guest skipped an EOI KVM needed (a level or
// IOAPIC-routed interrupt left unacknowledged, a pending vector left waiting).
#pragma once
#include "finding_text.hpp"
#include "../diagnose/explain.hpp"
#include "pv_eoi.hpp"

namespace irqflow::replay::rules {

class PvEoiNotArmed final : public pv_eoi::Check {
public:
    PvEoiNotArmed(RuleId id, const Model&) : pv_eoi::Check(id) {}
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (!fx.checkable) return;
        judged();
        const bool y2012 = c.semantics == PvEoiSemantics::Original2012;
        if (y2012 ? fx.pv_eoi.armed_2012 : fx.pv_eoi.armed_current) return;
        if (pv_eoi::follows_its_eoi(e, fx.vector, c)) fire(e, fx, c);  // (else PVEOI-WITHOUT-EOI's case)
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c) const {
        const auto& v = c.model.vcpu(fx.vcpu);
        const bool y2012 = c.semantics == PvEoiSemantics::Original2012;
        std::string why = !fx.pv_eoi.enabled ? "PV EOI not enabled" : y2012 ? "disarmed (nested interrupt or IOAPIC vector)" : "not armed at the last entry";
        Chain chain;
        if (const auto rec = c.evidence.of(fx.vcpu, fx.vector).inject_record) chain.push_back({rec, "injected " + vec_str(fx.vector)});
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        explain(k, c, fx, v, here);
        report(c, e, v, "a real EOI (" + why + ")", "EOI of " + vec_str(fx.vector) + " through PV EOI", std::move(chain)).diagnosis = k.pick();
    }

    // Why KVM could not have armed it, by what the model holds (before the kvm_eoi that came
    // with it retired the vector): another vector in service or one pending kept it from
    // arming — its EOI or injection went untraced — or PV EOI was never enabled.
    static void explain(diagnose::Candidates& k, const RuleContext& c, const Effect& fx, const VcpuModel& v, diagnose::At here) {
        VectorSet others = v.lapic.isr();
        if (fx.vector >= 0 && fx.vector < 256) others.clear(fx.vector);
        if (!others.empty()) {
            diagnose::stale_in_service(k, c, fx.vcpu, others.highest(), here,
                                       vec_str(fx.vector) + " was EOI'd through PV EOI at " + diagnose::rec(here.record) +
                                           ", which KVM arms only with one vector in service");
            return;
        }
        const VectorSet pending = v.lapic.irr().minus(v.accepted_since_entry);
        if (!pending.empty()) {
            const int p = pending.highest();
            const auto h = diagnose::history(c, fx.vcpu, p);
            k.missing(EventKind::InjVirq, p, h.accepted(), here, 0.5,
                      vec_str(p) + ", accepted at " + diagnose::rec(h.x.accept_record) +
                          ", was pending at the last entry, which keeps KVM from arming PV EOI: its injection is not in the trace")
                .evidence = {h.x.accept_record, here.record};
            k.extra(EventKind::ApicAcceptIrq, p, h.accepted(), 0.4, "or the accept of " + vec_str(p) + " was not this vCPU's")
                .evidence = {h.x.accept_record};
            return;
        }
        if (!fx.pv_eoi.enabled) {
            k.missing(EventKind::Msr, -1, {0, TimestampNs(0)}, here, 0.5,
                      "PV EOI was never enabled: the MSR write enabling it (0x4b564d04, or the Hyper-V VP assist page) is not in the trace")
                .evidence = {here.record};
            return;
        }
        k.extra(EventKind::PvEoi, fx.vector, here, 0.5,
                "the arming rule (" + std::string(to_string(c.semantics)) + ") did not arm PV EOI at the last entry, " +
                    diagnose::rec(v.last_entry_record) + " (try --semantics)")
            .evidence = {v.last_entry_record, here.record};
    }
};

}  // namespace irqflow::replay::rules
