// A rule's check: one file per rule id (replay/src/rules/<ID>.cpp, listed in rules.def).
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

class Check {
public:
    struct Subscriptions {
        std::vector<EventKind> before, after;
        bool ipis = false;   // on_ipi
        bool guest = false;  // on_guest: what the guest tracker decided (with a guest trace only)
    };

    explicit Check(RuleId id) : id_(id) {}
    virtual ~Check() = default;
    RuleId rule() const { return id_; }
    virtual Subscriptions subscriptions() const = 0;
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
    std::uint64_t cases_ = 0;
};

// Every rule's check, in rules.def order (registry.cpp).
std::vector<std::unique_ptr<Check>> make_checks(const Model& model);

}  // namespace irqflow::replay

// Defines the factory registry.cpp calls for the rules.def entry `name`.
#define IRQFLOW_REGISTER_RULE(name, Class)                                                     \
    std::unique_ptr<irqflow::replay::Check> irqflow_make_rule_##name(const irqflow::replay::Model& m) { \
        return std::make_unique<Class>(irqflow::replay::RuleId::name, m);                      \
    }
