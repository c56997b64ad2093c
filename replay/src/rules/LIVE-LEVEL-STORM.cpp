// LIVE-LEVEL-STORM: a level-triggered interrupt EOI'd while its line is still asserted.
// The EOI of a level vector goes on to the IOAPIC; if the line is still high the IOAPIC
// delivers the vector again at once: in-kernel, inside the EOI's own processing (a new
// accept on the EOI-ing vCPU's thread before its next entry); with a split irqchip,
// QEMU's IOAPIC does the same on the KVM_EXIT_IOAPIC_EOI exit, again on that thread
// before the next entry. A healthy handler services the device first (the device
// de-asserts: kvm_set_irq level 0 on that GSI), or masks the pin, then EOIs. The same
// vector re-delivered at once after ReplayOptions::level_storm EOIs in a row, with no
// de-assert and no masked pin since each accept, is a guest servicing nothing forever
// (or a line nobody lowers) — visible in a few dozen lines.
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay {
namespace {

class LiveLevelStorm final : public Check {
public:
    LiveLevelStorm(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override {
        return {{}, {EventKind::ApicAcceptIrq, EventKind::Eoi, EventKind::Entry, EventKind::SetIrq, EventKind::IoapicSetIrq, EventKind::Lost}, false};
    }
    void after(const Event& e, const Effect& fx, const RuleContext& c) override {
        switch (e.kind) {
        case EventKind::Lost:
            lines_.clear();
            watching_ = 0;
            return;
        case EventKind::SetIrq:  // kvm_set_irq: a GSI's line; in-kernel, GSI n < 24 is IOAPIC pin n
            if (e.get(slot::setirq_level) == 0) lowered(e.vm, pin_vector(c, e.vm, e.get(slot::setirq_gsi)));
            return;
        case EventKind::IoapicSetIrq:
            if (e.get(slot::ioapic_masked) == 1) lowered(e.vm, static_cast<int>(e.get(slot::ioapic_vec).value_or(-1)));
            return;
        case EventKind::Entry:  // the EOI-ing vCPU runs again: what its EOI could re-deliver at once is over
            if (watching_ > 0 && fx.vcpu != kNoVcpu)
                for (auto& [key, l] : lines_)
                    if (l.watcher == fx.vcpu) watch(l, kNoVcpu);
            return;
        case EventKind::Eoi: {
            if (fx.vcpu == kNoVcpu || fx.outcome != Outcome::Eoi) return;
            auto it = lines_.find({e.vm.value(), fx.vector});
            if (it == lines_.end() || !it->second.asserted) return;  // not a level vector, or its line went low
            watch(it->second, fx.vcpu);
            it->second.eoi_record = e.record;
            return;
        }
        default: break;
        }
        if (fx.outcome != Outcome::Accepted || !fx.level) return;
        auto& l = lines_[{e.vm.value(), fx.vector}];
        const bool at_once = l.watcher != kNoVcpu && e.tid == c.model.vcpu(l.watcher).tid;
        if (at_once) {
            if (l.cycles++ == 0) l.first_eoi = l.eoi_record;
        } else {
            l.cycles = 0;
            l.first_accept = e.record;
        }
        l.asserted = true;
        watch(l, kNoVcpu);
        if (l.cycles != c.options.level_storm) return;
        const VcpuSlot d = fx.vcpu;
        report(c, e, c.model.vcpu(d), "the device serviced (its line de-asserted) or the pin masked before the EOI",
               vec_str(fx.vector) + " (level) re-delivered at once after " + std::to_string(l.cycles) +
                   " EOIs in a row, its line still asserted each time (no de-assert, pin not masked since the accept)",
               {{l.first_accept, "accepted " + vec_str(fx.vector)}, {l.first_eoi, "first EOI with the line asserted"}});
    }

private:
    static int pin_vector(const RuleContext& c, VmId vm, std::optional<std::int64_t> gsi) {
        const VmModel* m = c.model.vm(vm);
        return m && gsi ? m->ioapic.entry(static_cast<int>(*gsi)).vector : -1;
    }
    void lowered(VmId vm, int vector) {
        if (vector < 0) return;
        auto it = lines_.find({vm.value(), vector});
        if (it == lines_.end()) return;
        it->second.asserted = false;
        watch(it->second, kNoVcpu);
        it->second.cycles = 0;
    }
    struct Line {
        bool asserted = false;          // accepted, and no de-assert or mask seen since
        VcpuSlot watcher = kNoVcpu;     // EOI'd with the line asserted by this vCPU, which has not entered since
        int cycles = 0;                 // re-deliveries at once in a row
        std::uint64_t eoi_record = 0, first_eoi = 0, first_accept = 0;
    };
    void watch(Line& l, VcpuSlot v) {
        watching_ += (v != kNoVcpu) - (l.watcher != kNoVcpu);
        l.watcher = v;
    }
    std::map<std::pair<std::int32_t, int>, Line> lines_;  // (VM, vector) of level accepts
    int watching_ = 0;  // lines with a watcher: entries need not look otherwise
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(LiveLevelStorm, irqflow::replay::LiveLevelStorm)
