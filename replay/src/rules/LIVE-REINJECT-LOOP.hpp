// LIVE-REINJECT-LOOP: a delivery that keeps failing. When an exit cuts an interrupt's
// delivery short (its vectoring info — SVM exit_int_info — names the vector), KVM
// re-injects it at the next entry; a healthy guest takes it then.
// The same vector failing ReplayOptions::reinject_loop times in a row at the same guest
// RIP on the same exit (reason and fault: an NPF / EPT violation at the same GPA), with
// no EOI in between, is a livelock, however short the excerpt: the same cycle cannot
// end differently. (VMX does not trace its IDT-vectoring info: there, every re-injection
// after an identical exit and an entry counts.) A re-injection with no entry since the injection before it is a
// cancelled entry (KVM backed out before entering), not a failed delivery: neutral.
// Exits that do not report vectoring info (older kernels' kvm_exit) count when an entry
// came between. Exceptions loop the same way (kvm_inj_exception … [reinjected] after
// exits whose vectoring info names the exception: a #DB or #UD the guest never gets
// past), and are judged alike.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"
#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow::replay::rules {

class LiveReinjectLoop final : public Check {
public:
    LiveReinjectLoop(RuleId id, const Model& m) : Check(id, kSubscriptions), state_(m.vcpu_count()) {}
    void vcpus(std::size_t n) override { state_.resize(n); }
    static constexpr Subscriptions kSubscriptions{{}, {EventKind::Entry, EventKind::Exit, EventKind::InjVirq, EventKind::InjException, EventKind::Eoi}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::InjVirq, EventKind::InjException}); !s.empty()) return s;
        return "no re-injection (kvm_inj_virq or kvm_inj_exception … [reinjected]) after an exit and an entry in the input";
    }
    // Inlined into each kind's handler (the kind a template argument: no test of it at
    // run time): on every entry and exit it only notes the exit.
    template <EventKind K>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const RuleContext& c) {
        if (fx.vcpu == kNoVcpu) return;
        auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
        if constexpr (K == EventKind::Entry) {
            s.entered = true;
        } else if constexpr (K == EventKind::Exit) {  // an exit means the vCPU had entered (an excerpt may start after the entry)
            s.entered = true;
            // kept whole (a copy is cheaper than picking out its fields on every exit);
            // only a re-injection reads it
            s.last_exit = e;
        } else if constexpr (K == EventKind::Eoi) {
            s.end_loop();  // the guest took something: progress
        } else if constexpr (K == EventKind::InjException) {
            const auto ex = e.get(slot::excp_vector);
            if (!ex || *ex < 0 || *ex >= kExceptions) return;
            const int failed = apic::interrupted_event(exit_of(s.last_exit).intr_info.value_or(0), event_word::kException);
            delivery(s, kExceptionKey + static_cast<int>(*ex), e.get(slot::excp_reinjected) == 1, failed == *ex, e, fx, c);
        } else {
            static_assert(K == EventKind::InjVirq);
            if (fx.outcome == Outcome::InjectSoft || fx.outcome == Outcome::InjectNested) return;
            if (fx.outcome != Outcome::Reinject) {  // a new delivery (inline: the common case)
                s.end_loop();
                s.entered = false;
                return;
            }
            delivery(s, fx.vector, fx.outcome == Outcome::Reinject, fx.failed_delivery, e, fx, c);
        }
    }

private:
    // Loop keys: interrupt vectors, then exceptions.
    static constexpr int kExceptions = 32, kExceptionKey = 256;
    static std::string key_text(int key) {
        if (key < kExceptionKey) return vec_str(key);
        const auto m = exception_mnemonic(key - kExceptionKey);
        return m.empty() ? "exception " + std::to_string(key - kExceptionKey) : "#" + std::string(m);
    }
    struct State;
    // An injection of `key`: a new delivery ends the loop; a re-injection after an entry
    // (and after an exit that says its delivery failed, when the exit reports it) is a
    // cycle.
    void delivery(State& s, int key, bool reinjected, bool failed_delivery, const Event& e, const Effect& fx, const RuleContext& c) {
        if (!reinjected) {  // a new delivery
            s.end_loop();
            s.entered = false;
            return;
        }
        const bool entered = s.entered;
        s.entered = false;
        if (!entered) return;  // a cancelled entry
        judged();
        const Exit exit = exit_of(s.last_exit);
        const bool reported = exit.intr_info.has_value();
        if (reported && !failed_delivery) return;  // the exit does not say this delivery failed
        if (key != s.loop.vector || !same_cycle(exit, s.loop.exit)) s.loop = {key, exit, 0, e.record};
        if (++s.loop.cycles != c.options.reinject_loop) return;
        const std::string what = key_text(key);
        const auto& v = c.model.vcpu(fx.vcpu);
        diagnose::Candidates k(v.vm, v.id);
        k.stuck(key < kExceptionKey ? EventKind::InjVirq : EventKind::InjException, key < kExceptionKey ? key : key - kExceptionKey,
                {s.loop.exit.record, s.loop.exit.ts}, {e.record, e.ts}, 0.9,
                "the delivery of " + what + " fails the same way every time (" + exit_text(exit) +
                    ") and KVM re-injects it: the guest never gets past it")
            .evidence = {s.loop.exit.record, s.loop.first_reinject, e.record};
        report(c, e, v, "the guest to take " + what + " at the next entry",
               what + "'s delivery failed " + std::to_string(s.loop.cycles) + " times in a row, each time " + exit_text(exit) +
                   (key < kExceptionKey ? ", with no EOI" : ""),
               {{s.loop.exit.record, "first failed delivery: " + exit_text(s.loop.exit)}, {s.loop.first_reinject, "first re-injection"}})
            .diagnosis = k.pick();
    }

    struct Exit {
        std::uint64_t record = 0;
        TimestampNs ts;
        std::optional<std::int64_t> reason, isa, rip, info1, info2, intr_info;  // intr_info: vectoring info, when traced
    };
    // What a cycle compares of an exit (nothing, before the first exit: kind Other).
    static Exit exit_of(const Event& e) {
        if (e.kind != EventKind::Exit) return {};
        return {e.record, e.ts, e.get(slot::exit_reason), e.get(slot::exit_isa), e.get(slot::exit_rip), e.get(slot::exit_info1), e.get(slot::exit_info2),
                vectoring_info(e)};
    }
    // One cycle is like the last: the same exit at the same place on the same fault.
    static bool same_cycle(const Exit& a, const Exit& b) {
        return a.reason == b.reason && a.isa == b.isa && a.rip == b.rip && a.info1 == b.info1 && a.info2 == b.info2;
    }
    static std::string exit_text(const Exit& x) {
        const std::string reason = x.reason ? exit_reason_key(*x.reason, x.isa.value_or(kIsaVmx)) : "exit";
        char b[128];
        std::snprintf(b, sizeof b, "%s at rip 0x%llx (info 0x%llx 0x%llx)", reason.c_str(), static_cast<unsigned long long>(x.rip.value_or(0)),
                      static_cast<unsigned long long>(x.info1.value_or(0)), static_cast<unsigned long long>(x.info2.value_or(0)));
        return b;
    }
    struct Loop {
        int vector = -1;  // the loop key: an interrupt vector, or kExceptionKey + an exception
        Exit exit;  // the cycle's exit
        int cycles = 0;
        std::uint64_t first_reinject = 0;
    };
    struct State {
        bool entered = false;  // an entry (or an exit) since the last injection
        Event last_exit;       // kind Other until the first exit
        Loop loop;
        void end_loop() {
            if (loop.vector >= 0) loop = {};  // (a Loop is ~150 bytes: written only when one runs)
        }
    };
    std::vector<State> state_;
};

}  // namespace irqflow::replay::rules
