// The replay engine: feeds each event to the model and, around it, to the rules that
// subscribed to its kind and to the observers (replay/README.md, "Structure").
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "model/model.hpp"
#include "observe/observers.hpp"
#include "rules/check.hpp"

namespace irqflow::replay {

class Engine {
public:
    Engine(const Trace& t, const ReplayOptions& o, PvEoiSemantics semantics);
    void run();
    ReplayResult take() { return std::move(r_); }

private:
    void on_event(const Event& e);
    void dispatch_completed_ipis() {
        if (!model_.completed().empty()) dispatch_ipis();
    }
    void dispatch_ipis();

    const Trace& t_;
    ReplayOptions o_;
    ReplayResult r_;
    Model model_;
    Observers observers_;
    std::vector<std::unique_ptr<Check>> checks_;
    RuleContext ctx_;
    // per event kind: the checks subscribed before / after the model applies it
    std::array<std::vector<Check*>, static_cast<std::size_t>(EventKind::Count_)> before_, after_;
    std::vector<Check*> on_ipi_;
    // per event kind: nothing but the model, the observers or a rule cares about it
    // beyond noting it on its thread (most of a trace: the fast path)
    std::array<bool, static_cast<std::size_t>(EventKind::Count_)> only_noted_{};
};

}  // namespace irqflow::replay
