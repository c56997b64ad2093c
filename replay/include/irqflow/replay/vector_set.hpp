// A set of the 256 interrupt vectors (the shape of the APIC's IRR, ISR and TMR), and
// the priority arithmetic the APIC does on them.
#pragma once
#include <array>
#include <bit>
#include <cstdint>

namespace irqflow::replay {

class VectorSet {
public:
    void set(int v) { w_[idx(v)] |= bit(v); }
    void clear(int v) { w_[idx(v)] &= ~bit(v); }
    bool test(int v) const { return (w_[idx(v)] & bit(v)) != 0; }
    bool empty() const { return (w_[0] | w_[1] | w_[2] | w_[3]) == 0; }
    int count() const {  // (not on the replay's path: the APIC keeps ISR's and IRR's counts, Lapic::isr_count, irr_count)
        int n = 0;
        for (auto w : w_) n += std::popcount(w);
        return n;
    }
    // Highest vector in the set, or -1.
    int highest() const {
        for (int i = 3; i >= 0; --i)
            if (w_[static_cast<std::size_t>(i)])
                return i * 64 + 63 - std::countl_zero(w_[static_cast<std::size_t>(i)]);
        return -1;
    }
    void reset() { w_ = {}; }
    // This set without the members of `o`.
    VectorSet minus(const VectorSet& o) const {
        VectorSet r;
        for (std::size_t i = 0; i < 4; ++i) r.w_[i] = w_[i] & ~o.w_[i];
        return r;
    }
    void merge(const VectorSet& o) {
        for (std::size_t i = 0; i < 4; ++i) w_[i] |= o.w_[i];
    }
    bool intersects(const VectorSet& o) const {
        return ((w_[0] & o.w_[0]) | (w_[1] & o.w_[1]) | (w_[2] & o.w_[2]) | (w_[3] & o.w_[3])) != 0;
    }
    // Every member is also in `o`.
    bool subset_of(const VectorSet& o) const {
        return ((w_[0] & ~o.w_[0]) | (w_[1] & ~o.w_[1]) | (w_[2] & ~o.w_[2]) | (w_[3] & ~o.w_[3])) == 0;
    }
    bool operator==(const VectorSet&) const = default;
    const std::array<std::uint64_t, 4>& words() const { return w_; }

private:
    static std::size_t idx(int v) { return static_cast<std::size_t>(v & 0xff) >> 6; }
    static std::uint64_t bit(int v) { return 1ULL << (v & 63); }
    std::array<std::uint64_t, 4> w_{};
};

// The APIC priority class of a vector: its upper four bits.
constexpr int priority_class(int vector) { return vector >> 4; }

// PPR (SDM "Processor Priority Register"): TPR when its class is at least that of the
// highest vector in service, else that vector's class.
// (`isr_top`: the highest vector in service, -1 for none.)
constexpr int apic_ppr(int tpr, int isr_top) {
    const int isr_class = isr_top < 0 ? 0 : isr_top & 0xf0;
    return (tpr & 0xf0) >= isr_class ? tpr : isr_class;
}
inline int apic_ppr(int tpr, const VectorSet& isr) { return apic_ppr(tpr, isr.highest()); }

// The vector the APIC would deliver next: the highest pending one whose class beats
// PPR, or -1.
inline int apic_deliverable(const VectorSet& irr, int ppr) {
    const int v = irr.highest();
    if (v < 0 || priority_class(v) <= priority_class(ppr)) return -1;
    return v;
}

}  // namespace irqflow::replay
