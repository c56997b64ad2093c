// LIVE-LEVEL-STORM: a level-triggered interrupt EOI'd while its line is still asserted.
// The EOI of a level vector goes on to the IOAPIC; if the line is still high the IOAPIC
// delivers the vector again at once: in-kernel, inside the EOI's own processing (a new
// accept on the EOI-ing vCPU's thread before its next entry); with a split irqchip,
// QEMU's IOAPIC does the same on the KVM_EXIT_IOAPIC_EOI exit, again on that thread
// before the next entry. A healthy handler services the device first (the device
// de-asserts: kvm_set_irq level 0 on that GSI), or masks the pin, then EOIs; a
// resampling irqfd lowers the line inside the EOI's processing, which is healthy too.
//
// Where the excerpt shows the line — the accept was raised by a kvm_set_irq of a GSI,
// so its de-assert would be traced as well — one cycle is the evidence: an EOI whose
// processing ends (the vCPU enters the guest again, the vector is re-delivered at once,
// or the excerpt ends) with no de-assert and no mask since the accept. A line the
// excerpt does not show (QEMU's IOAPIC raising MSIs with a split irqchip) needs
// ReplayOptions::level_storm re-deliveries at once in a row, with nothing lowering it
// between: the line is never seen to go low, only its effect.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../diagnose/candidates.hpp"
#include "check.hpp"
#include "finding_text.hpp"
#include "sorted_map.hpp"

namespace irqflow::replay::rules {

class LiveLevelStorm final : public Check {
public:
    LiveLevelStorm(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{}, {EventKind::ApicAcceptIrq, EventKind::Eoi, EventKind::Entry, EventKind::SetIrq, EventKind::IoapicSetIrq, EventKind::Lost}, false};
    // An entry matters only while some vCPU EOI'd a level vector with its line asserted;
    // an EOI or a line going low only once a level accept made a line to follow; an
    // accept or the IOAPIC's side of a raise only with a raise pending or a level accept.
    template <EventKind K>
    bool wakes_after(const Event& e, const Effect& fx, const RuleContext&) const {
        if constexpr (K == EventKind::Entry) return watching_ > 0 && fx.vcpu != kNoVcpu;
        if constexpr (K == EventKind::Eoi) return !lines_.empty();
        if constexpr (K == EventKind::SetIrq) return !lines_.empty() || e.get(slot::setirq_level) != 0;
        if constexpr (K == EventKind::IoapicSetIrq) return !lines_.empty() || !raising_.empty();
        if constexpr (K == EventKind::ApicAcceptIrq) return !raising_.empty() || (fx.outcome == Outcome::Accepted && fx.level);
        return true;
    }
    template <EventKind K>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const RuleContext& c) {
        if constexpr (K == EventKind::Lost) {
            lines_.clear();
            raising_.clear();
            watching_ = 0;
        } else if constexpr (K == EventKind::SetIrq) {  // kvm_set_irq: a GSI's line
            const auto gsi = e.get(slot::setirq_gsi);
            if (!gsi) return;
            if (e.get(slot::setirq_level) == 0) lowered(c, e.vm, line_vector(c, e.vm, *gsi));
            else raising_.set(e.tid.value(), *gsi);  // the accept it causes follows on this thread
        } else if constexpr (K == EventKind::IoapicSetIrq) {  // in-kernel: the raise on this thread is complete
            raising_.take(e.tid.value());
            if (e.get(slot::ioapic_masked) == 1) lowered(c, e.vm, static_cast<int>(e.get(slot::ioapic_vec).value_or(-1)));
        } else if constexpr (K == EventKind::Entry) {  // the EOI-ing vCPU runs again: its EOI's processing is over
            if (watching_ > 0 && fx.vcpu != kNoVcpu) entered(c, fx.vcpu);
        } else if constexpr (K == EventKind::Eoi) {
            if (fx.vcpu == kNoVcpu || fx.outcome != Outcome::Eoi) return;
            Line* l = lines_.find({fx.vcpu.value(), fx.vector});  // the vector may be an edge one of this vCPU's
            if (!l) return;  // not a level vector
            judged();
            if (!l->asserted) return;  // its line went low first: healthy
            watch(*l, fx.vcpu);
            l->eoi_record = e.record;
            l->eoi_ts = e.ts;
            l->judging = l->gsi >= 0 && !l->reported;
        } else {
            static_assert(K == EventKind::ApicAcceptIrq);
            accepted(e, fx, c);
        }
    }
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::ApicAcceptIrq}); !s.empty()) return s;
        if (!level_accepts_) return "no level-triggered accept in the input";
        return "no EOI of a level-triggered vector in the input";
    }
    void finish(const RuleContext& c) override {
        for (auto& [key, l] : lines_)
            if (l.judging) judge(c, key.second, l, "the excerpt ends there");
    }

private:
    struct Line {
        VmId vm = kUnknownVm;
        bool asserted = false;          // accepted, and no de-assert or mask seen since
        std::int64_t gsi = -1;          // the GSI whose kvm_set_irq raised it: its de-assert is traced too
        VcpuSlot watcher = kNoVcpu;     // EOI'd with the line asserted by this vCPU, which has not entered since
        bool judging = false;           // that EOI, of a line the excerpt shows, awaits the end of its processing
        bool reported = false;          // found EOI'd asserted; not again before the line goes low
        int cycles = 0;                 // re-deliveries at once in a row
        std::uint64_t eoi_record = 0, first_eoi = 0, first_accept = 0, accept_record = 0;
        TimestampNs eoi_ts, accept_ts, first_accept_ts;
    };

    [[gnu::noinline]] void entered(const RuleContext& c, VcpuSlot vcpu) {
        for (auto& [key, l] : lines_)
            if (l.watcher == vcpu) {
                if (l.judging) judge(c, key.second, l, "the vCPU entered the guest again");
                watch(l, kNoVcpu);
            }
    }
    [[gnu::noinline]] void accepted(const Event& e, const Effect& fx, const RuleContext& c) {
        const std::optional<std::int64_t> gsi = raising_.take(e.tid.value());
        if (fx.outcome != Outcome::Accepted || !fx.level) return;
        ++level_accepts_;
        const std::pair<std::int32_t, int> key{fx.vcpu.value(), fx.vector};
        auto& l = lines_[key];
        l.vm = e.vm;
        const bool at_once = l.watcher != kNoVcpu && e.tid == c.model.vcpu(l.watcher).tid;
        if (l.judging)  // the accept ends the EOI's wait: delivered again at once, or raised anew elsewhere
            judge(c, key.second, l,
                  (at_once ? "it was delivered again at once (record " : "it was accepted again from another thread (record ") +
                      std::to_string(e.record) + ")");
        if (at_once) {
            if (l.cycles++ == 0) l.first_eoi = l.eoi_record;
        } else {
            l.cycles = 0;
            l.first_accept = e.record;
            l.first_accept_ts = e.ts;
        }
        if (gsi) {
            l.gsi = *gsi;
            gsi_vector_[{e.vm.value(), *gsi}] = fx.vector;
        }
        l.accept_record = e.record;
        l.accept_ts = e.ts;
        l.asserted = true;
        watch(l, kNoVcpu);
        if (l.cycles != c.options.level_storm || l.reported) return;
        l.reported = true;
        const auto& v = c.model.vcpu(fx.vcpu);
        diagnose::Candidates k(v.vm, v.id);
        k.missing(EventKind::SetIrq, fx.vector, {l.first_accept, l.first_accept_ts}, {e.record, e.ts}, 0.7,
                  vec_str(fx.vector) + " came back at once after each of " + std::to_string(l.cycles) +
                      " EOIs: its line was never lowered (the device not serviced) before an EOI")
            .evidence = {l.first_accept, l.first_eoi, e.record};
        k.missing(EventKind::IoapicSetIrq, fx.vector, {l.first_accept, l.first_accept_ts}, {e.record, e.ts}, 0.35,
                  "or the handler did not mask the pin before its EOI")
            .evidence = {l.first_accept, e.record};
        report(c, e, v, "the device serviced (its line de-asserted) or the pin masked before the EOI",
               vec_str(fx.vector) + " (level) re-delivered at once after " + std::to_string(l.cycles) +
                   " EOIs in a row, its line still asserted each time (no de-assert, pin not masked since the accept)",
               {{l.first_accept, "accepted " + vec_str(fx.vector)}, {l.first_eoi, "first EOI with the line asserted"}})
            .diagnosis = k.pick();
    }

    // The EOI of a line the excerpt shows has been processed: still asserted, it is
    // the fault (one cycle is enough: the IOAPIC re-delivers at once).
    void judge(const RuleContext& c, int vector, Line& l, const std::string& when) {
        l.judging = false;
        if (!l.asserted || l.watcher == kNoVcpu) return;  // lowered inside the EOI's processing (a resampling irqfd)
        l.reported = true;
        const auto& v = c.model.vcpu(l.watcher);
        char waited[48];
        std::snprintf(waited, sizeof waited, "%.1f µs", static_cast<double>(l.eoi_ts.value() - l.accept_ts.value()) / 1e3);
        diagnose::Candidates k(v.vm, v.id);
        k.missing(EventKind::SetIrq, vector, {l.accept_record, l.accept_ts}, {l.eoi_record, l.eoi_ts}, 0.7,
                  "GSI " + std::to_string(l.gsi) + " was still asserted when " + vec_str(vector) + " was EOI'd " + waited +
                      " after its accept: its de-assert (kvm_set_irq gsi " + std::to_string(l.gsi) +
                      " level 0, the device serviced) should come first; the IOAPIC delivers it again at once")
            .evidence = {l.accept_record, l.eoi_record};
        k.missing(EventKind::IoapicSetIrq, vector, {l.accept_record, l.accept_ts}, {l.eoi_record, l.eoi_ts}, 0.35,
                  "or the handler should have masked the pin before its EOI")
            .evidence = {l.accept_record, l.eoi_record};
        report(c, l.eoi_ts, l.eoi_record, v.vm, v.id,
               "the device serviced first (kvm_set_irq gsi " + std::to_string(l.gsi) + " level 0) or the pin masked, then the EOI",
               vec_str(vector) + " (level, GSI " + std::to_string(l.gsi) + ") EOI'd " + waited +
                   " after its accept with the line still asserted (no de-assert, pin not masked since): the IOAPIC delivers it again at once; " +
                   when,
               {{l.accept_record, "accepted " + vec_str(vector) + " (level), raised by GSI " + std::to_string(l.gsi)}})
            .diagnosis = k.pick();
    }

    // The vector a GSI's line delivers: learnt from the accepts it raised, else the
    // in-kernel IOAPIC's redirection entry (GSI n < 24 is pin n).
    int line_vector(const RuleContext& c, VmId vm, std::int64_t gsi) const {
        if (const int* v = gsi_vector_.find({vm.value(), gsi})) return *v;
        const VmModel* m = c.model.vm(vm);
        return m && gsi >= 0 && gsi < 24 ? m->ioapic.entry(static_cast<int>(gsi)).vector : -1;
    }
    // A line went low (or its pin was masked): every vCPU it was delivered to.
    void lowered(const RuleContext&, VmId vm, int vector) {
        if (vector < 0) return;
        for (auto& [key, l] : lines_) {
            if (key.second != vector || l.vm != vm) continue;
            l.asserted = false;
            l.reported = false;
            l.cycles = 0;
            if (!l.judging) watch(l, kNoVcpu);  // one being judged keeps its watcher until its entry
        }
    }
    void watch(Line& l, VcpuSlot v) {
        watching_ += (v != kNoVcpu) - (l.watcher != kNoVcpu);
        l.watcher = v;
    }
    SortedMap<std::pair<std::int32_t, int>, Line> lines_;  // (destination vCPU slot, vector) of level accepts
    SortedMap<std::pair<std::int32_t, std::int64_t>, int> gsi_vector_;  // (VM, GSI) → the vector its accepts carried
    // Thread → the GSI it just raised: a raise and its accept are a few events apart, so
    // this holds one or two threads at a time and a flat list beats a hash map (a map
    // insert and erase per kvm_set_irq were most of this rule's cost).
    class Raising {
    public:
        void set(std::int32_t tid, std::int64_t gsi) {
            for (auto& r : raising_)
                if (r.first == tid) {
                    r.second = gsi;
                    return;
                }
            raising_.emplace_back(tid, gsi);
        }
        std::optional<std::int64_t> take(std::int32_t tid) {
            for (std::size_t i = 0; i < raising_.size(); ++i)
                if (raising_[i].first == tid) {
                    const std::int64_t gsi = raising_[i].second;
                    raising_[i] = raising_.back();
                    raising_.pop_back();
                    return gsi;
                }
            return std::nullopt;
        }
        void clear() { raising_.clear(); }
        bool empty() const { return raising_.empty(); }

    private:
        std::vector<std::pair<std::int32_t, std::int64_t>> raising_;
    } raising_;
    int watching_ = 0;  // lines with a watcher: entries need not look otherwise
    std::uint64_t level_accepts_ = 0;
};

}  // namespace irqflow::replay::rules
