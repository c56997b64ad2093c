// NESTED-EVENT-LOST: an event L1 injects into L2 that is neither delivered nor handed
// back. A nested VM entry (kvm_nested_vmenter, kvm_nested_vmrun before Linux 6.2) with
// event_inj valid asks the CPU to deliver that event as L2 starts. Then either
//  - L2 runs and the delivery completes (the next exit's vectoring info does not name
//    it), or
//  - the delivery is cut short by an exit (its vectoring info names it): L0 handles the
//    exit and re-injects the event before entering L2 again (kvm_inj_virq /
//    kvm_inj_exception … [reinjected]), or reflects the exit to L1 with the event in
//    exit_int_info, or
//  - the run ends before L2 ran at all (an interrupt for L1, a failed check): the exit
//    to L1 (kvm_nested_vmexit_inject) must carry the event in exit_int_info, or L1
//    never learns its injection did not happen — unless L1 puts the same event in
//    event_inj again at its next nested entry (it knew): then it is delivered after
//    all. So that case is decided at L1's next nested entry, or at the end of the
//    excerpt.
// Anything else lost the event. An L2 kvm_exit proves L2 ran even where the excerpt shows
// no kvm_entry after the nested entry (left out, or ordered before it by per-CPU
// clocks). Vectoring info is traced on SVM only (kvm_exit's intr_info); on VMX only
// the third case is judged.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "../diagnose/candidates.hpp"
#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"
#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow::replay::rules {

class NestedEventLost final : public Check {
public:
    NestedEventLost(RuleId id, const Model& m) : Check(id, kSubscriptions), state_(m.vcpu_count()) {}
    void vcpus(std::size_t n) override { state_.resize(n); }
    static constexpr Subscriptions kSubscriptions{{}, {EventKind::NestedVmenter, EventKind::Entry, EventKind::Exit, EventKind::NestedVmexit, EventKind::InjVirq, EventKind::InjException, EventKind::NestedVmexitInject, EventKind::Lost}, false};
    // Most traces run no L2: until the first nested entry only a gap concerns it.
    template <EventKind K>
    bool wakes_after(const Event&, const Effect& fx, const RuleContext&) const {
        return K == EventKind::Lost || (fx.vcpu != kNoVcpu && (nested_ || K == EventKind::NestedVmenter));
    }
    void after(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (e.kind == EventKind::Lost) {  // what happened in the gap is unknown
            for (auto& s : state_) s = {};
            return;
        }
        if (fx.vcpu == kNoVcpu || (!nested_ && e.kind != EventKind::NestedVmenter)) return;  // most traces run no L2
        nested_ = true;
        auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
        switch (e.kind) {
        case EventKind::NestedVmenter: {
            const auto inj = e.get(slot::nvmenter_event_inj);
            if (s.phase == Phase::HandedBack) {
                if (!inj || !carries(s, *inj)) lost_before_l2_ran(c, fx.vcpu, s, "L1's next nested entry (record " + std::to_string(e.record) +
                                                                                     ") does not inject it again");
                // else: L1 injects it again, so it knew: delivered after all
            }
            s = {};
            if (inj && event_word::valid(*inj)) {
                judged();
                s.phase = Phase::Injected;
                s.event_inj = *inj;
                s.vmenter_record = e.record;
            }
            return;
        }
        case EventKind::Entry:
            if (s.phase == Phase::Injected) s.phase = Phase::Running;
            else if (s.phase == Phase::Requeued) {
                const auto& v = c.model.vcpu(fx.vcpu);
                diagnose::Candidates k(v.vm, v.id);
                k.missing(reinjection_kind(s), event_word::vector(s.event_inj), {s.cut_record, s.cut_ts}, {e.record, e.ts}, 0.85,
                          "the exit at record " + std::to_string(s.cut_record) + " cut the delivery of " + event_text(s) +
                              " short; L0 must re-inject it before entering L2 again")
                    .evidence = {s.vmenter_record, s.cut_record, e.record};
                report(c, e, v, event_text(s) + " re-injected before L2 runs again",
                       "the exit at record " + std::to_string(s.cut_record) + " cut its delivery short (vectoring info " + hex(s.cut_info) +
                           ") and L0 entered L2 again without re-injecting it: lost",
                       {{s.vmenter_record, "L1 injects " + event_text(s)}, {s.cut_record, "delivery cut short"}})
                    .diagnosis = k.pick();
                s = {};
            }
            return;
        case EventKind::Exit:
        case EventKind::NestedVmexit: {  // an L2 exit (kvm_nested_vmexit repeats kvm_exit's slots)
            // A hardware exit from L2 (kvm_exit) proves it ran; kvm_nested_vmexit alone does
            // not (it may describe an exit KVM made up before L2 ran).
            if (s.phase == Phase::Injected && e.kind == EventKind::Exit) s.phase = Phase::Running;
            if (s.phase != Phase::Running) return;
            const auto vi = vectoring_info(e);
            if (!vi) {  // VMX: whether the delivery completed is not traced
                s = {};
                return;
            }
            if (carries(s, *vi)) {
                s.phase = Phase::Requeued;
                s.cut_record = e.record;
                s.cut_ts = e.ts;
                s.cut_info = *vi;
            } else {
                s = {};  // delivered
            }
            return;
        }
        case EventKind::InjVirq:
        case EventKind::InjException:
            if (s.phase == Phase::Requeued && reinjects(e, s)) s = {};
            return;
        case EventKind::NestedVmexitInject: {
            if (s.phase == Phase::Idle || s.phase == Phase::HandedBack) return;
            const auto ii = e.get(slot::nvmexit_inject_int_info).value_or(0);
            if (s.phase != Phase::Running && !carries(s, ii)) {
                s.phase = s.phase == Phase::Injected ? Phase::HandedBack : s.phase;
                if (s.phase == Phase::HandedBack) {  // unless L1 injects it again
                    s.exit = {e.ts, e.record, ii};
                    return;
                }
                const auto& v = c.model.vcpu(fx.vcpu);
                diagnose::Candidates k(v.vm, v.id);
                k.wrong(EventKind::NestedVmexitInject, {e.record, e.ts}, "exit_int_info", ii, s.event_inj, 0.8,
                        "the exit at record " + std::to_string(s.cut_record) + " cut the delivery of " + event_text(s) +
                            " short, so the exit reflected to L1 must hand it back")
                    .evidence = {s.vmenter_record, s.cut_record, e.record};
                report(c, e, v, event_text(s) + " handed back to L1 in exit_int_info",
                       "the exit to L1 after an exit cut its delivery short has exit_int_info " + hex(ii) + ": the event is lost",
                       {{s.vmenter_record, "L1 injects " + event_text(s)}})
                    .diagnosis = k.pick();
            }
            s = {};
            return;
        }
        default: return;
        }
    }

    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::NestedVmenter}); !s.empty()) return s;
        return "no nested entry injecting an event (event_inj valid) in the input";
    }
    void finish(const RuleContext& c) override {
        for (std::size_t i = 0; i < state_.size(); ++i)
            if (state_[i].phase == Phase::HandedBack)
                lost_before_l2_ran(c, VcpuSlot(static_cast<std::int32_t>(i)), state_[i], "the excerpt ends before L1 enters L2 again");
    }

private:
    enum class Phase : std::uint8_t {
        Idle,        // no event of L1's in flight
        Injected,    // a nested entry carries it; L2 has not run yet
        Running,     // L2 entered with it
        Requeued,    // an L2 exit cut its delivery short: it must be re-injected or reflected
        HandedBack,  // the run ended before L2 ran, exit_int_info without it: L1 must inject it again
    };
    struct ExitToL1 {
        TimestampNs ts;
        std::uint64_t record = 0;
        std::int64_t int_info = 0;
    };
    struct State {
        Phase phase = Phase::Idle;
        std::int64_t event_inj = 0;  // valid 31, type 10:8, vector 7:0
        std::uint64_t vmenter_record = 0;
        std::uint64_t cut_record = 0;
        TimestampNs cut_ts;
        std::int64_t cut_info = 0;
        ExitToL1 exit;  // HandedBack: the exit to L1 that did not carry it
    };
    void lost_before_l2_ran(const RuleContext& c, VcpuSlot v, State& s, const std::string& decided) {
        const auto& vcpu = c.model.vcpu(v);
        diagnose::Candidates k(vcpu.vm, vcpu.id);
        k.wrong(EventKind::NestedVmexitInject, {s.exit.record, s.exit.ts}, "exit_int_info", s.exit.int_info, s.event_inj, 0.7,
                "L2 never ran with " + event_text(s) + " (injected by L1 at record " + std::to_string(s.vmenter_record) +
                    "), so the exit to L1 must hand it back; " + decided)
            .evidence = {s.vmenter_record, s.exit.record};
        k.missing(EventKind::NestedVmenter, event_word::vector(s.event_inj), {s.exit.record, s.exit.ts}, {s.exit.record, s.exit.ts}, 0.35,
                  "or L1 should inject it again at its next nested entry")
            .evidence = {s.exit.record};
        report(c, s.exit.ts, s.exit.record, vcpu.vm, vcpu.id, event_text(s) + " handed back to L1 in exit_int_info",
               "the exit to L1 before L2 ran has exit_int_info " + hex(s.exit.int_info) + ", and " + decided + ": the event is lost",
               {{s.vmenter_record, "L1 injects " + event_text(s)}})
            .diagnosis = k.pick();
        s = {};
    }
    static EventKind reinjection_kind(const State& s) {
        return event_word::type(s.event_inj) == event_word::kException ? EventKind::InjException : EventKind::InjVirq;
    }
    static bool carries(const State& s, std::int64_t info) {
        return event_word::valid(info) && event_word::type(info) == event_word::type(s.event_inj) &&
               event_word::vector(info) == event_word::vector(s.event_inj);
    }
    static bool reinjects(const Event& e, const State& s) {
        const int vector = event_word::vector(s.event_inj);
        if (e.kind == EventKind::InjVirq) return e.get(slot::inj_vector) == vector;
        return e.get(slot::excp_vector) == vector;
    }
    static std::string hex(std::int64_t v) {
        char b[24];
        std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
        return b;
    }
    static std::string event_text(const State& s) {
        static constexpr const char* kTypes[8] = {"interrupt", "type 1", "NMI", "exception", "software interrupt", "type 5",
                                                  "software exception", "type 7"};
        return std::string(kTypes[event_word::type(s.event_inj)]) + " " + vec_str(event_word::vector(s.event_inj)) + " (event_inj " +
               hex(s.event_inj) + ")";
    }
    std::vector<State> state_;
    bool nested_ = false;  // a nested entry was seen
};

}  // namespace irqflow::replay::rules
