// LIVE-APICV-INHIBIT-FLAP: an APICv/AVIC inhibit reason that is set and cleared over and
// over. Each change makes KVM re-evaluate APICv on every vCPU of the VM (a request and
// a kick each, plus an AVIC/APICv reload), and while the inhibit is set every interrupt
// takes the emulated path: a reason toggling ReplayOptions::apicv_flap times within
// ReplayOptions::apicv_flap_window_ns is a VM that never settles (the known cases:
// interrupt-window and PIT-reinjection inhibits on AVIC, guest debug blocking IRQs).
// Inhibits that change a few times at boot stay quiet. Reason numbers are the kernel's
// enum apicv_inhibit_reason, whose numbering differs between kernel versions.
#pragma once
#include <cstdio>
#include <deque>
#include <map>
#include <string>
#include <utility>

#include "../diagnose/candidates.hpp"
#include "check.hpp"

namespace irqflow::replay::rules {

class LiveApicvInhibitFlap final : public Check {
public:
    LiveApicvInhibitFlap(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{}, {EventKind::ApicvInhibitChanged}, false};
    void after(const Event& e, const Effect&, const RuleContext& c) override {
        const auto reason = e.get(slot::apicv_reason);
        const auto set = e.get(slot::apicv_set);
        if (!reason || !set) return;
        judged();
        auto& r = reasons_[{e.vm.value(), *reason}];
        if (*set) {
            r.set_at = e.ts.value();
            r.set_record = e.record;
            r.is_set = true;
            return;
        }
        if (!r.is_set) return;  // cleared without a set in the excerpt: no cycle to count
        r.is_set = false;
        r.cycles.push_back({r.set_at, r.set_record});
        while (!r.cycles.empty() && e.ts.value() - r.cycles.front().first > c.options.apicv_flap_window_ns) r.cycles.pop_front();
        if (static_cast<int>(r.cycles.size()) < c.options.apicv_flap || r.reported) return;
        r.reported = true;
        char b[160];
        std::snprintf(b, sizeof b, "inhibit reason %lld set and cleared %zu times in %.3f ms (inhibits now 0x%llx)",
                      static_cast<long long>(*reason), r.cycles.size(), static_cast<double>(e.ts.value() - r.cycles.front().first) / 1e6,
                      static_cast<unsigned long long>(e.get(slot::apicv_inhibits).value_or(0)));
        diagnose::Candidates k(e.vm, kUnknownVcpu);
        k.stuck(EventKind::ApicvInhibitChanged, -1, {r.cycles.front().second, TimestampNs(r.cycles.front().first)}, {e.record, e.ts}, 0.8,
                std::string("the inhibit reason ") + std::to_string(*reason) + " never settles: every set and clear reloads APICv/AVIC on every vCPU")
            .evidence = {r.cycles.front().second, e.record};
        report(c, e.ts, e.record, e.vm, kUnknownVcpu, "APICv/AVIC inhibits that settle", b, {{r.cycles.front().second, "first set of the reason"}})
            .diagnosis = k.pick();
    }

private:
    struct Reason {
        bool is_set = false;
        std::int64_t set_at = 0;
        std::uint64_t set_record = 0;
        std::deque<std::pair<std::int64_t, std::uint64_t>> cycles;  // set → clear cycles in the window: (set time, record)
        bool reported = false;
    };
    std::map<std::pair<std::int32_t, std::int64_t>, Reason> reasons_;  // (VM, reason)
};

}  // namespace irqflow::replay::rules
