// LIVE-REINJECT-LOOP: a re-injection repeats a delivery an exit cut short; the guest
// takes the interrupt at the next clean entry. The same vector re-injected
// ReplayOptions::reinject_loop times in a row, with no other injection between, is a
// delivery that keeps failing (e.g. an exit on every attempt): a livelock.
#include <string>
#include <vector>

#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay {
namespace {

class LiveReinjectLoop final : public Check {
public:
    LiveReinjectLoop(RuleId id, const Model& m) : Check(id), state_(m.vcpu_count()) {}
    Subscriptions subscriptions() const override { return {{}, {EventKind::InjVirq}, false}; }
    void after(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (fx.vcpu == kNoVcpu || fx.outcome == Outcome::InjectSoft) return;
        auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
        if (fx.outcome != Outcome::Reinject) {
            s = {};
        } else if (fx.vector != s.vector) {
            s = {fx.vector, 1};
        } else if (++s.run == c.options.reinject_loop) {
            report(c, e, c.model.vcpu(fx.vcpu), "the guest to take the interrupt",
                   vec_str(fx.vector) + " re-injected " + std::to_string(s.run) + " times in a row");
        }
    }

private:
    struct State {
        int vector = -1;
        int run = 0;
    };
    std::vector<State> state_;
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(LiveReinjectLoop, irqflow::replay::LiveReinjectLoop)
