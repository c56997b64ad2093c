// Every rule's check, one member each, and the calls the engine makes into them. For
// each event kind the engine's handler calls exactly the rules whose kSubscriptions list
// it, chosen at compile time and called directly: each rule class is final, so its hooks
// inline into that kind's handler and its first test ("does this vCPU have anything in
// service?") is all an event costs a rule it does not concern. Nothing here lists the
// rules by hand: the members and the calls are generated from rules.def, whose order
// they keep, and the build writes the rule files' includes from rules.def
// (replay/CMakeLists.txt, irqflow_rule_files.hpp).
#pragma once
#include <array>
#include <concepts>
#include <span>

#include "check.hpp"
#include "irqflow_rule_files.hpp"

namespace irqflow::replay {

// A rule may say, in a cheap inline test, whether an event of kind K concerns it at all
// (`template <EventKind K> bool wakes_before/wakes_after(const Event&, const Effect&,
// const RuleContext&) const`, typically "does this vCPU have anything in service?"):
// the handler tests that and calls the rule's hook, which the compiler does not inline
// when it is big, only then. The kind is a template argument so that the test's
// questions about it are answered at compile time: the handler knows it, the compiler
// cannot tell from e.kind. A hook may take the kind the same way
// (`template <EventKind K> void before/after(…)`, [[gnu::always_inline]]): most rules'
// hooks are a test or two that pass (the case judged, nothing wrong) followed by the
// finding, so the tests inline into the handler and the finding is a [[gnu::noinline]]
// member (`fire`) called only when one is made. (A call to each injection rule cost
// ~35 instructions per injection to come back from: bench_replay, 228 → 209 per event
// for that and the liveness rules' hooks.)
template <class R, EventKind K>
concept WakesBefore = requires(const R& r, const Event& e, const Effect& fx, const RuleContext& c) {
    { r.template wakes_before<K>(e, fx, c) } -> std::same_as<bool>;
};
template <class R, EventKind K>
concept WakesAfter = requires(const R& r, const Event& e, const Effect& fx, const RuleContext& c) {
    { r.template wakes_after<K>(e, fx, c) } -> std::same_as<bool>;
};
template <class R, EventKind K>
concept BeforeOfKind = requires(R& r, const Event& e, const Effect& fx, const RuleContext& c) { r.template before<K>(e, fx, c); };
template <class R, EventKind K>
concept AfterOfKind = requires(R& r, const Event& e, const Effect& fx, const RuleContext& c) { r.template after<K>(e, fx, c); };

class RuleSet {
public:
    RuleSet(const Model& m, const RuleMask& runs)
        : runs_(runs)
#define IRQFLOW_RULE(name, id, severity, summary) , name##_(RuleId::name, m)
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    {
        std::size_t i = 0;
#define IRQFLOW_RULE(name, id, severity, summary) all_[i++] = &name##_;
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    }
    RuleSet(const RuleSet&) = delete;
    RuleSet& operator=(const RuleSet&) = delete;

    // Every rule, in rules.def order, and whether it runs in this replay.
    std::span<Check* const> all() const { return all_; }
    bool runs(RuleId r) const { return runs_[static_cast<std::size_t>(r)]; }

    // Whether any rule wants events of kind K before (after) the model applies them.
    template <EventKind K>
    static constexpr bool any_before() {
        return false
#define IRQFLOW_RULE(name, id, severity, summary) || rules::name::kSubscriptions.before.has(K)
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
            ;
    }
    template <EventKind K>
    static constexpr bool any_after() {
        return false
#define IRQFLOW_RULE(name, id, severity, summary) || rules::name::kSubscriptions.after.has(K)
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
            ;
    }

    template <EventKind K>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
#define IRQFLOW_RULE(name, id, severity, summary)                   \
    if constexpr (rules::name::kSubscriptions.before.has(K))        \
        if (runs_[static_cast<std::size_t>(RuleId::name)]) call_before<K>(name##_, e, fx, c);
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    }
    template <EventKind K>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const RuleContext& c) {
#define IRQFLOW_RULE(name, id, severity, summary)                   \
    if constexpr (rules::name::kSubscriptions.after.has(K))         \
        if (runs_[static_cast<std::size_t>(RuleId::name)]) call_after<K>(name##_, e, fx, c);
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    }
    void on_ipi(const IpiSend& s, const RuleContext& c) {
#define IRQFLOW_RULE(name, id, severity, summary)                   \
    if constexpr (rules::name::kSubscriptions.ipis)                 \
        if (runs_[static_cast<std::size_t>(RuleId::name)]) name##_.on_ipi(s, c);
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    }
    void on_guest(const GuestOutcome& o, const RuleContext& c) {
#define IRQFLOW_RULE(name, id, severity, summary)                   \
    if constexpr (rules::name::kSubscriptions.guest)                \
        if (runs_[static_cast<std::size_t>(RuleId::name)]) name##_.on_guest(o, c);
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    }

private:
    template <EventKind K, class R>
    [[gnu::always_inline]] static void call_before(R& r, const Event& e, const Effect& fx, const RuleContext& c) {
        if constexpr (WakesBefore<R, K>)
            if (!r.template wakes_before<K>(e, fx, c)) return;
        if constexpr (BeforeOfKind<R, K>) r.template before<K>(e, fx, c);
        else r.before(e, fx, c);
    }
    template <EventKind K, class R>
    [[gnu::always_inline]] static void call_after(R& r, const Event& e, const Effect& fx, const RuleContext& c) {
        if constexpr (WakesAfter<R, K>)
            if (!r.template wakes_after<K>(e, fx, c)) return;
        if constexpr (AfterOfKind<R, K>) r.template after<K>(e, fx, c);
        else r.after(e, fx, c);
    }

    RuleMask runs_;
#define IRQFLOW_RULE(name, id, severity, summary) rules::name name##_;
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    std::array<Check*, static_cast<std::size_t>(RuleId::Count_)> all_{};
};

}  // namespace irqflow::replay
