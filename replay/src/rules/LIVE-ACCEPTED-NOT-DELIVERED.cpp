// LIVE-ACCEPTED-NOT-DELIVERED: an edge vector accepted into a vCPU's IRR again and
// again with no delivery in between. The APIC keeps one IRR bit per vector, so every
// accept after the first that finds the vector still pending is an interrupt lost for
// good; ReplayOptions::accept_loop accepts with no injection, EOI or posted delivery
// of the vector between them is a vCPU that does not take it — however few lines the
// excerpt has. Judged only where the trace shows why it was not taken:
//  - the vCPU did not run in the excerpt at all (a hang report pasting only the
//    accepts that repeat): no entry, exit, wakeup, injection or EOI on its thread;
//  - or it stayed out of the guest (halted and never woken, or held in the host) for
//    ReplayOptions::pending_threshold_ns since the first of them: no entry, exit,
//    wakeup, injection or EOI on its thread (an excerpt may leave out the entries and
//    exits; an injection still shows the vCPU running). Shorter stretches
//    happen on healthy hosts (a halted vCPU woken only by its next timer while an
//    edge vector sits in IRR, measured on the samples: up to 4 ms).
// A vCPU that runs but does not inject a pending vector is LIVE-PENDING-NOT-INJECTED's:
// that takes the model's word that the vector was deliverable (the guest may have
// interrupts off, or a higher class in service, or APICv may deliver it unseen).
// A ring-buffer drop or APICv activity ends every episode: the delivery may be unseen.
#include <array>
#include <string>
#include <vector>

#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay {
namespace {

class LiveAcceptedNotDelivered final : public Check {
public:
    LiveAcceptedNotDelivered(RuleId id, const Model& m) : Check(id), state_(m.vcpu_count()) {}
    Subscriptions subscriptions() const override {
        return {{},
                {EventKind::ApicAcceptIrq, EventKind::ApicvAcceptIrq, EventKind::InjVirq, EventKind::Eoi, EventKind::PvEoi,
                 EventKind::Entry, EventKind::Exit, EventKind::VcpuWakeup, EventKind::ApicvInhibitChanged, EventKind::Lost},
                false};
    }
    void after(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (!c.model.proofs_hold() || e.kind == EventKind::Lost || e.kind == EventKind::ApicvInhibitChanged) {
            ++epoch_;  // every episode ends (lazily: a drop window covers many events)
            return;
        }
        if (fx.vcpu == kNoVcpu) return;
        auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
        const auto& v = c.model.vcpu(fx.vcpu);
        const bool apicv = c.model.vm(v.vm) && c.model.vm(v.vm)->apicv_active;
        switch (e.kind) {
        case EventKind::Entry:
        case EventKind::Exit:
        case EventKind::VcpuWakeup:
            s.ran = true;
            ++s.moves;
            return;
        case EventKind::InjVirq:
            s.ran = true;
            ++s.moves;
            if (fx.vector >= 0 && fx.vector < apic::kVectors) s.episodes[static_cast<std::size_t>(fx.vector)] = {};
            return;
        case EventKind::Eoi:
        case EventKind::PvEoi:
            s.ran = true;
            ++s.moves;
            if (fx.vector >= 0 && fx.vector < apic::kVectors) s.episodes[static_cast<std::size_t>(fx.vector)] = {};
            return;
        case EventKind::ApicvAcceptIrq:  // delivered by the hardware
            if (fx.vector >= 0 && fx.vector < apic::kVectors) s.episodes[static_cast<std::size_t>(fx.vector)] = {};
            return;
        default: break;
        }
        if (fx.outcome != Outcome::Accepted || fx.level || apicv) return;
        auto& ep = s.episodes[static_cast<std::size_t>(fx.vector)];
        if (ep.epoch != epoch_) ep = {};
        if (ep.accepts == 0) ep = {0, e.ts.value(), e.record, s.moves, false, epoch_};
        ++ep.accepts;
        if (ep.reported || ep.accepts < c.options.accept_loop) return;
        const bool moved = s.moves != ep.moves_before;
        const std::int64_t span_ns = e.ts.value() - ep.since;
        std::string why;
        if (!s.ran) why = "the vCPU did not run in the excerpt (no kvm_entry, kvm_exit, wakeup, injection or EOI on its thread)";
        else if (moved || span_ns < c.options.pending_threshold_ns) return;
        else if (v.in_hlt) why = "the vCPU stayed halted all that time (no entry, exit or wakeup since its HLT exit): never woken";
        else why = "the vCPU did not enter the guest all that time";
        ep.reported = true;
        char span[48];
        std::snprintf(span, sizeof span, "%.3f ms", static_cast<double>(span_ns) / 1e6);
        report(c, e, v, "delivery of " + vec_str(fx.vector) + " (an injection, or an EOI showing it was taken)",
               vec_str(fx.vector) + " accepted " + std::to_string(ep.accepts) + " times in " + span + ", never delivered: " +
                   std::to_string(ep.accepts - 1) + " of them found it still pending and were lost; " + why,
               {{ep.first_record, "first accept of " + vec_str(fx.vector)}});
    }

private:
    struct Episode {
        int accepts = 0;               // since the last delivery of the vector
        std::int64_t since = 0;        // the first of them
        std::uint64_t first_record = 0;
        std::uint64_t moves_before = 0;    // State::moves at the first accept
        bool reported = false;
        std::uint64_t epoch = 0;           // valid while it equals epoch_
    };
    struct State {
        bool ran = false;            // an entry, exit, wakeup, injection or EOI on the vCPU's thread so far
        std::uint64_t moves = 0;     // events of its thread that show it running: an injection precedes an entry
        std::array<Episode, apic::kVectors> episodes{};
    };
    std::vector<State> state_;
    std::uint64_t epoch_ = 1;  // bumped when a drop or an APICv change ends every episode
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(LiveAcceptedNotDelivered, irqflow::replay::LiveAcceptedNotDelivered)
