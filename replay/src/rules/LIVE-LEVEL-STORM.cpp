// LIVE-LEVEL-STORM: a level-triggered interrupt's EOI goes on to the IOAPIC, which
// re-asserts the line if the device still holds it. That happening right after each of
// ReplayOptions::level_storm consecutive EOIs is a device (or an emulated line) that
// never deasserts: the guest services it forever.
#include <string>
#include <vector>

#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay {
namespace {

class LiveLevelStorm final : public Check {
public:
    LiveLevelStorm(RuleId id, const Model& m) : Check(id), state_(m.vcpu_count()) {}
    Subscriptions subscriptions() const override { return {{}, {EventKind::ApicAcceptIrq, EventKind::Eoi}, false}; }
    void after(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (fx.vcpu == kNoVcpu) return;
        auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
        if (e.kind == EventKind::Eoi) {
            if (fx.outcome == Outcome::Eoi && c.model.vcpu(fx.vcpu).lapic.tmr().test(fx.vector)) {
                s.eoi_just_done = true;
                s.vector = fx.vector;
            }
            return;
        }
        if (fx.outcome != Outcome::Accepted) return;
        if (fx.level && s.eoi_just_done && fx.vector == s.vector) {
            if (++s.rounds == c.options.level_storm)
                report(c, e, c.model.vcpu(fx.vcpu), "the level line to drop after the EOI",
                       "vector " + vec_str(fx.vector) + " re-asserted right after " + std::to_string(s.rounds) + " EOIs in a row");
        } else if (fx.level) {
            s.rounds = 0;
        }
        s.eoi_just_done = false;
    }

private:
    struct State {
        int vector = -1;  // the level vector last EOI'd
        int rounds = 0;
        bool eoi_just_done = false;
    };
    std::vector<State> state_;
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(LiveLevelStorm, irqflow::replay::LiveLevelStorm)
