// LIVE-PENDING-NOT-INJECTED: a deliverable vector (class above PPR) is injected at the
// next entry with an open interrupt window (KVM's inject_pending_event, or an
// interrupt-window exit requested for it). One that stays deliverable across many
// entries, open windows (interrupt-window and HLT exits) and time was lost between IRR
// and the guest. Thresholds: ReplayOptions::pending_entries, ::pending_windows and
// ::pending_threshold_ns.
#pragma once
#include <string>
#include <vector>

#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class LivePendingNotInjected final : public Check {
public:
    LivePendingNotInjected(RuleId id, const Model& m) : Check(id, kSubscriptions), state_(m.vcpu_count()) {}
    void vcpus(std::size_t n) override { state_.resize(n); }
    static constexpr Subscriptions kSubscriptions{{}, {EventKind::Entry}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::Entry}); !s.empty()) return s;
        return "no vCPU entered the guest with a vector deliverable while its APIC state was known";
    }
    // An entry with nothing pending matters only to end the vCPU's episode, if it has one.
    template <EventKind>
    bool wakes_after(const Event&, const Effect& fx, const RuleContext& c) const {
        if (fx.vcpu == kNoVcpu) return false;
        return c.model.vcpu(fx.vcpu).lapic.irr_count() > 0 || state_[static_cast<std::size_t>(fx.vcpu.value())].vector >= 0;
    }
    template <EventKind>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const RuleContext& c) {
        if (fx.vcpu == kNoVcpu) return;
        auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
        const auto& v = c.model.vcpu(fx.vcpu);
        const int d = v.synced && v.lapic.irr_count() > 0 ? v.lapic.deliverable() : -1;  // IRR is mostly empty: no scan
        if (d < 0) {
            s.vector = -1;
            return;
        }
        judged();
        if (d != s.vector) {
            s = {d, e.ts.value(), 1, v.windows_opened, false};
        } else if (++s.entries >= c.options.pending_entries && v.windows_opened - s.windows_before >= static_cast<std::uint64_t>(c.options.pending_windows) &&
                   e.ts.value() - s.since > c.options.pending_threshold_ns && !s.reported) {
            s.reported = true;
            fire(e, fx, c, v, s);
        }
    }

private:
    struct State;
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c, const VcpuModel& v, const State& s) const {
        const int d = s.vector;
        const auto windows = v.windows_opened - s.windows_before;
        Chain chain;
        if (const auto rec = c.evidence.of(fx.vcpu, d).accept_record) chain.push_back({rec, "accepted " + vec_str(d)});
        diagnose::Candidates k(v.vm, v.id);
        const auto& x = c.evidence.of(fx.vcpu, d);
        k.stuck(EventKind::InjVirq, d, {x.accept_record, TimestampNs(x.accept_ts)}, {e.record, e.ts}, 0.8,
                vec_str(d) + " stayed deliverable over " + std::to_string(s.entries) + " entries and " + std::to_string(windows) +
                    " open interrupt windows and was never injected")
            .evidence = {x.accept_record, e.record};
        auto& f = report(c, e, v, "injection of " + vec_str(d),
                         "deliverable for " + std::to_string((e.ts.value() - s.since) / 1000000) + " ms over " + std::to_string(s.entries) +
                             " entries and " + std::to_string(windows) + " open interrupt windows, never injected",
                         std::move(chain));
        f.diagnosis = k.pick();
    }

    struct State {
        int vector = -1;        // deliverable at every entry since `since`
        std::int64_t since = 0;
        int entries = 0;
        std::uint64_t windows_before = 0;  // VcpuModel::windows_opened at `since`: the windows since then
        bool reported = false;
    };
    std::vector<State> state_;
};

}  // namespace irqflow::replay::rules
