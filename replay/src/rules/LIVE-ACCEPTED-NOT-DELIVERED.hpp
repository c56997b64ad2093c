// LIVE-ACCEPTED-NOT-DELIVERED: an edge vector accepted into a vCPU's IRR again and
// again with no delivery in between. The APIC keeps one IRR bit per vector, so every
// accept after the first that finds the vector still pending is an interrupt lost for
// good. Judged only where the trace shows why it was not taken:
//  - the vCPU did not run in the excerpt at all (a hang report pasting only the
//    accepts that repeat, its reporter eliding the rest): no entry, exit, wakeup,
//    injection or EOI on its thread. Then ReplayOptions::accept_loop_silent accepts
//    (2: the second is already lost) are the evidence, however few lines the excerpt
//    keeps; the finding says whether other vCPUs run in it, which tells a stuck vCPU
//    from a trace filtered to the interrupt path;
//  - or it stayed out of the guest (halted and never woken, or held in the host) for
//    ReplayOptions::pending_threshold_ns since the first of ReplayOptions::accept_loop
//    accepts: no entry, exit, wakeup, injection or EOI on its thread (an excerpt may
//    leave out the entries and exits; an injection still shows the vCPU running).
//    Shorter stretches happen on healthy hosts (a halted vCPU woken only by its next
//    timer while an edge vector sits in IRR, measured on the samples: up to 4 ms).
// A vCPU that runs but does not inject a pending vector is LIVE-PENDING-NOT-INJECTED's:
// that takes the model's word that the vector was deliverable (the guest may have
// interrupts off, or a higher class in service, or APICv may deliver it unseen).
// A ring-buffer drop or APICv activity ends every episode: the delivery may be unseen.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class LiveAcceptedNotDelivered final : public Check {
public:
    LiveAcceptedNotDelivered(RuleId id, const Model& m) : Check(id, kSubscriptions), state_(m.vcpu_count()) {}
    void vcpus(std::size_t n) override { state_.resize(n); }
    static constexpr Subscriptions kSubscriptions{{}, {EventKind::ApicAcceptIrq, EventKind::ApicvAcceptIrq, EventKind::InjVirq, EventKind::Eoi, EventKind::PvEoi, EventKind::ApicvInhibitChanged, EventKind::Lost}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::ApicAcceptIrq}); !s.empty()) return s;
        return "no edge-triggered accept into IRR (outside APICv/AVIC) in the input";
    }
    // An injection or EOI matters only to a vector with an episode open (accepted since
    // its last delivery): with none, the reset below changes nothing.
    template <EventKind K>
    bool wakes_after(const Event&, const Effect& fx, const RuleContext& c) const {
        if constexpr (K != EventKind::InjVirq && K != EventKind::Eoi && K != EventKind::PvEoi) return true;
        if (!c.model.proofs_hold()) return true;
        if (fx.vcpu == kNoVcpu || fx.vector < 0 || fx.vector >= apic::kVectors) return false;
        return state_[static_cast<std::size_t>(fx.vcpu.value())][static_cast<std::size_t>(fx.vector)].accepts != 0;
    }
    template <EventKind K>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const RuleContext& c) {
        if (!c.model.proofs_hold() || K == EventKind::Lost || K == EventKind::ApicvInhibitChanged) {
            ++epoch_;  // every episode ends (lazily: a drop window covers many events)
            return;
        }
        const auto vector = K == EventKind::ApicvAcceptIrq ? e.get(slot::accept_vec).value_or(-1) : fx.vector;
        if (fx.vcpu == kNoVcpu || vector < 0 || vector >= apic::kVectors) return;
        auto& ep = state_[static_cast<std::size_t>(fx.vcpu.value())][static_cast<std::size_t>(vector)];
        if constexpr (K != EventKind::ApicAcceptIrq) {  // injected, EOI'd, or posted to the hardware: delivered
            ep = {};
        } else {
            const auto& v = c.model.vcpu(fx.vcpu);
            if (fx.outcome != Outcome::Accepted || fx.level || c.model.vm_of(v).apicv_active) return;
            judged();
            if (ep.epoch != epoch_) ep = {};
            if (ep.accepts == 0) ep = {0, e.ts.value(), e.record, v.own_events, false, epoch_};
            ++ep.accepts;
            // The vCPU's own thread (entries, exits, wakeups, injections, EOIs, …) shows it
            // running, or in the host on its behalf; an accept is not its own thread's event.
            const bool silent = v.own_events == 0;
            if (ep.reported || ep.accepts < (silent ? c.options.accept_loop_silent : c.options.accept_loop)) return;
            if (!silent && (v.own_events != ep.own_events_before || e.ts.value() - ep.since < c.options.pending_threshold_ns)) return;
            ep.reported = true;
            fire(e, fx, c, v, ep, silent);
        }
    }

private:
    struct Episode;
    // The vCPU did not move since the first of the accepts (or, silent, shows no event of its own).
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c, const VcpuModel& v, const Episode& ep, bool silent) const {
        const std::int64_t span_ns = e.ts.value() - ep.since;
        std::string why;
        if (silent) why = silence(c, v);
        else if (v.in_hlt) why = "the vCPU stayed halted all that time (no entry, exit or wakeup since its HLT exit): never woken";
        else why = "the vCPU did not enter the guest all that time";
        char span[48];
        std::snprintf(span, sizeof span, "%.3f ms", static_cast<double>(span_ns) / 1e6);
        const int lost = ep.accepts - 1;
        diagnose::Candidates k(v.vm, v.id);
        k.stuck(EventKind::InjVirq, fx.vector, {ep.first_record, TimestampNs(ep.since)}, {e.record, e.ts}, 0.8,
                vec_str(fx.vector) + " was accepted " + std::to_string(ep.accepts) + " times and never delivered; " + why)
            .evidence = {ep.first_record, e.record};
        report(c, e, v, "delivery of " + vec_str(fx.vector) + " (an injection, or an EOI showing it was taken)",
               vec_str(fx.vector) + " accepted " + std::to_string(ep.accepts) + " times in " + span + " (records " +
                   std::to_string(ep.first_record) + " to " + std::to_string(e.record) + "), never delivered: " + std::to_string(lost) +
                   (lost == 1 ? " of them found it still pending and was lost; " : " of them found it still pending and were lost; ") + why,
               {{ep.first_record, "first accept of " + vec_str(fx.vector)}})
            .diagnosis = k.pick();
    }

    // Why a vCPU with no event of its own in the excerpt is stuck, or may only look so.
    static std::string silence(const RuleContext& c, const VcpuModel& v) {
        bool others_run = false;
        for (std::size_t i = 0; i < c.model.vcpu_count() && !others_run; ++i) {
            const auto& o = c.model.vcpu(VcpuSlot(static_cast<std::int32_t>(i)));
            others_run = &o != &v && o.vm == v.vm && o.own_events > 0;
        }
        const std::string none = "the vCPU shows no activity in the excerpt (no kvm_entry, kvm_exit, wakeup, injection or EOI on its thread)";
        if (others_run) return none + " while other vCPUs of its VM run in it: stuck";
        return none + ", and no vCPU of its VM shows any: stuck, unless the trace was filtered to the interrupt path";
    }
    struct Episode {
        int accepts = 0;                     // since the last delivery of the vector
        std::int64_t since = 0;              // the first of them
        std::uint64_t first_record = 0;
        std::uint64_t own_events_before = 0;  // VcpuModel::own_events at the first accept
        bool reported = false;
        std::uint64_t epoch = 0;             // valid while it equals epoch_
    };
    std::vector<std::array<Episode, apic::kVectors>> state_;  // per vCPU, per vector
    std::uint64_t epoch_ = 1;  // bumped when a drop or an APICv change ends every episode
};

}  // namespace irqflow::replay::rules
