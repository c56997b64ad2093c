#include "kvm_pv_eoi.hpp"

#include "registers.hpp"

namespace irqflow::replay {

void KvmPvEoi::write_msr(std::int64_t data, bool hyperv_assist) {
    msr_seen_ = true;
    hyperv_assist_ = hyperv_assist;
    enabled_ = (data & msr::kKvmPvEoiEnabled) != 0;
    armed_ = false;
    armed_2012_ = false;
}

void KvmPvEoi::injected(int vector, bool ioapic_handled) {
    isr_cache_ = vector;
    event_round_ = true;
    armed_2012_ = enabled_ && !ioapic_handled;
}

void KvmPvEoi::before_entry(bool irr_settled_empty, bool cached_ioapic_handled, bool pending_blocked) {
    would_arm_ = event_round_ && irr_settled_empty && isr_cache_ >= 0 && !cached_ioapic_handled;
    event_round_ = false;
    armed_ = enabled_ && would_arm_;
    if (pending_blocked) armed_2012_ = false;
}

PvEoiUse KvmPvEoi::peek_use() const {
    if (!msr_seen_ && !enabled_) return {true, false, would_arm_, armed_2012_};
    return {enabled_, hyperv_assist_, armed_, armed_2012_};
}

void KvmPvEoi::use() {
    if (!msr_seen_ && !enabled_) enabled_ = true;  // enabled before the capture
    armed_ = false;
    armed_2012_ = false;
}

}  // namespace irqflow::replay
