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

// A rule may say, in a cheap inline test, whether an event concerns it at all
// (`bool wakes_before/wakes_after(const Event&, const Effect&, const RuleContext&) const`,
// typically "does this vCPU have anything in service?"): the handler tests that and
// calls the rule's hook, which the compiler does not inline when it is big, only then.
template <class R>
concept WakesBefore = requires(const R& r, const Event& e, const Effect& fx, const RuleContext& c) {
    { r.wakes_before(e, fx, c) } -> std::same_as<bool>;
};
template <class R>
concept WakesAfter = requires(const R& r, const Event& e, const Effect& fx, const RuleContext& c) {
    { r.wakes_after(e, fx, c) } -> std::same_as<bool>;
};

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
        if (runs_[static_cast<std::size_t>(RuleId::name)]) call_before(name##_, e, fx, c);
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    }
    template <EventKind K>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const RuleContext& c) {
#define IRQFLOW_RULE(name, id, severity, summary)                   \
    if constexpr (rules::name::kSubscriptions.after.has(K))         \
        if (runs_[static_cast<std::size_t>(RuleId::name)]) call_after(name##_, e, fx, c);
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
    template <class R>
    [[gnu::always_inline]] static void call_before(R& r, const Event& e, const Effect& fx, const RuleContext& c) {
        if constexpr (WakesBefore<R>)
            if (!r.wakes_before(e, fx, c)) return;
        r.before(e, fx, c);
    }
    template <class R>
    [[gnu::always_inline]] static void call_after(R& r, const Event& e, const Effect& fx, const RuleContext& c) {
        if constexpr (WakesAfter<R>)
            if (!r.wakes_after(e, fx, c)) return;
        r.after(e, fx, c);
    }

    RuleMask runs_;
#define IRQFLOW_RULE(name, id, severity, summary) rules::name name##_;
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    std::array<Check*, static_cast<std::size_t>(RuleId::Count_)> all_{};
};

}  // namespace irqflow::replay
