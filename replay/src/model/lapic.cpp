#include "lapic.hpp"

#include "registers.hpp"

namespace irqflow::replay {

bool Lapic::accept(int vector, bool level) {
    const bool coalesced = irr_.test(vector);
    if (!coalesced) {
        irr_.set(vector);
        ++irr_count_;
    }
    if (level) tmr_.set(vector);
    else tmr_.clear(vector);
    return coalesced;
}

void Lapic::inject(int vector, bool auto_eoi) {
    if (irr_.test(vector)) {  // (not when it was delivered without being pending: ExtINT, a late IRR write)
        irr_.clear(vector);
        --irr_count_;
    }
    if (!auto_eoi) serve(vector);
}

void Lapic::reset() {
    irr_.reset();
    irr_count_ = 0;
    clear_isr();
    tmr_.reset();
    tpr_ = 0;
    enabled_ = false;
    lvt0_extint_ = false;  // LVT0 resets masked
    ldr_ = 0;
    ldr_known_ = false;
    dfr_cluster_ = false;  // DFR resets to all ones: the flat model
}

void Lapic::write_register(std::int64_t offset, std::int64_t value) {
    switch (offset) {
    case apic::kRegTpr: tpr_ = static_cast<int>(value & 0xff); break;
    case apic::kRegSpiv: enabled_ = apic::spiv_software_enabled(value); break;
    case apic::kRegLdr:
        ldr_ = apic::ldr_logical_id(value);
        ldr_known_ = true;
        break;
    case apic::kRegDfr: dfr_cluster_ = apic::dfr_cluster_model(value); break;
    case apic::kRegLvt0: lvt0_extint_ = apic::lvt_delivery_mode(value) == apic::kDmExtInt && !apic::lvt_masked(value); break;
    default: break;
    }
}

void Lapic::write_msr(std::uint32_t msr, std::int64_t value) {
    if (msr == apic::kMsrTpr) tpr_ = static_cast<int>(value & 0xff);
    else if (msr == apic::kMsrSpiv) enabled_ = apic::spiv_software_enabled(value);
}

std::optional<bool> Lapic::logical_match(std::uint32_t dest) const {
    if (!ldr_known_) return std::nullopt;
    if (dest == apic::kBroadcastXapic) return true;
    if (dfr_cluster_) return (dest >> 4) == (ldr_ >> 4) && (dest & ldr_ & 0xf) != 0;
    return (dest & ldr_) != 0;
}

}  // namespace irqflow::replay
