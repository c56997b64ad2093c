#include "coverage.hpp"

#include <algorithm>

namespace irqflow::replay {

void Coverage::foreign(const Event& e) {
    if (e.kind == EventKind::InjVirq) {
        ++st_.injections;
        if (e.get(slot::inj_soft).value_or(0)) ++st_.soft_injections;
        else if (e.get(slot::inj_reinjected).value_or(0)) ++st_.reinjections;
    } else if (e.kind == EventKind::Eoi) {
        ++st_.eois;
        if (e.get(slot::eoi_vector).value_or(-1) < 0) ++st_.eoi_nothing_in_service;
    }
}

void Coverage::injection(const Effect& fx, const Model& m) {
    ++st_.injections;
    switch (fx.outcome) {
    case Outcome::InjectSoft: ++st_.soft_injections; break;
    case Outcome::Reinject:
        ++st_.reinjections;
        ++(fx.failed_delivery ? st_.reinjections_failed_delivery : st_.reinjections_cancelled);
        break;
    case Outcome::InjectExtInt: ++st_.extint_injections; break;
    case Outcome::InjectNested: ++st_.nested_injections; break;
    case Outcome::Injected:
    case Outcome::InjectedAutoEoi:
        st_.injections_checked += fx.checkable;
        st_.late_irr_writes += fx.late_irr;
        if (fx.outcome == Outcome::InjectedAutoEoi) ++st_.auto_eoi_injections;
        else if (fx.known) st_.max_nesting = std::max(st_.max_nesting, m.vcpu(fx.vcpu).lapic.isr_count());
        break;
    default: break;
    }
}

void Coverage::eoi(const Effect& fx) {
    ++st_.eois;
    if (fx.outcome == Outcome::EoiNothing) ++st_.eoi_nothing_in_service;
    else if (fx.outcome == Outcome::Eoi) st_.eois_checked += fx.known;
}

}  // namespace irqflow::replay
