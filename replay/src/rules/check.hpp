// A rule's check: one file per rule id (replay/src/rules/<ID>.hpp, listed in rules.def).
// A check subscribes to the event kinds it needs and is called, in rules.def order,
// before the model applies an event (it reads the state the event found), after it
// (the state it left), for each IPI whose deliveries are complete, and for what the
// guest tracker decided when the replay has the guest's trace. It keeps its own
// state and writes nothing but findings.
#pragma once
#include <array>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../model/effect.hpp"
#include "../model/model.hpp"
#include "../guest/guest_outcome.hpp"
#include "../model/registers.hpp"
#include "../observe/evidence.hpp"
#include "recent_events.hpp"
#include "irqflow/replay/finding.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

// What a check may read, and where its findings go.
struct RuleContext {
    const RecentEvents& recent;  // the events before the one being checked
    const Model& model;
    const Evidence& evidence;
    const ReplayOptions& options;
    PvEoiSemantics semantics;
    std::vector<Finding>& findings;
};

using Chain = std::vector<std::pair<std::uint64_t, std::string>>;

// The input's events by kind: what a rule that judged nothing names as lacking.
using KindCounts = std::array<std::uint64_t, static_cast<std::size_t>(EventKind::Count_)>;
// "no kvm_pv_eoi in the input" when none of `kinds` came, else "".
std::string none_of(const KindCounts& seen, std::initializer_list<EventKind> kinds);

// Event kinds, as a rule lists them (the order its "not judged" text names them in).
class KindList {
public:
    constexpr KindList() = default;
    constexpr KindList(std::initializer_list<EventKind> kinds) {
        for (EventKind k : kinds) kinds_[n_++] = k;
    }
    constexpr bool has(EventKind k) const {
        for (std::size_t i = 0; i < n_; ++i)
            if (kinds_[i] == k) return true;
        return false;
    }
    constexpr const EventKind* begin() const { return kinds_.data(); }
    constexpr const EventKind* end() const { return kinds_.data() + n_; }

private:
    std::array<EventKind, static_cast<std::size_t>(EventKind::Count_)> kinds_{};
    std::size_t n_ = 0;
};

class Check {
public:
    // What wakes a rule. Each rule declares them as `static constexpr Subscriptions
    // kSubscriptions`: the engine's handler of each event kind calls exactly the rules
    // that list it, chosen at compile time (rules/rule_set.hpp).
    struct Subscriptions {
        KindList before, after;
        bool ipis = false;   // on_ipi
        bool guest = false;  // on_guest: what the guest tracker decided (with a guest trace only)
    };

    Check(RuleId id, const Subscriptions& s) : id_(id), subscriptions_(s) {}
    virtual ~Check() = default;
    RuleId rule() const { return id_; }
    const Subscriptions& subscriptions() const { return subscriptions_; }
    virtual void before(const Event&, const Effect&, const RuleContext&) {}
    virtual void after(const Event&, const Effect&, const RuleContext&) {}
    virtual void on_ipi(const IpiSend&, const RuleContext&) {}
    virtual void on_guest(const GuestOutcome&, const RuleContext&) {}
    // The model gained vCPUs (a live stream revealed them, Model::add_vcpu): a rule
    // with per-vCPU state makes room for them.
    virtual void vcpus(std::size_t) {}
    // The end of the stream: what was waiting for more evidence is decided on what came.
    virtual void finish(const RuleContext&) {}
    // Cases it judged (each could have fired). One that judged none says why
    // (ReplayResult::not_judged), so "0 findings" on an excerpt is not read as "healthy".
    std::uint64_t cases() const { return cases_; }
    // What the input lacked for it (by default: the kinds it subscribes to, if none came).
    virtual std::string not_judged(const KindCounts& seen) const;

protected:
    void judged() { ++cases_; }
    // The finding, for its diagnosis to be set (a reference into the findings: use it
    // before the next report).
    Finding& report(const RuleContext& c, TimestampNs ts, std::uint64_t record, VmId vm, VcpuId vcpu, std::string expected,
                    std::string observed, Chain chain = {}) const;
    // At event `e`, about vCPU `v`.
    Finding& report(const RuleContext& c, const Event& e, const VcpuModel& v, std::string expected, std::string observed,
                    Chain chain = {}) const {
        return report(c, e.ts, e.record, v.vm, v.id, std::move(expected), std::move(observed), std::move(chain));
    }

private:
    RuleId id_;
    Subscriptions subscriptions_;
    std::uint64_t cases_ = 0;
};

}  // namespace irqflow::replay
