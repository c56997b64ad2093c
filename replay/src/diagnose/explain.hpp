// The explanations the injection and EOI rules share (replay/README.md, "Diagnosis"):
// each an edit of the trace that would take the inconsistency away, weighted by what the
// model and the evidence index show. Rules add their own where only they know the case.
#pragma once
#include <string>

#include "../rules/check.hpp"
#include "../rules/finding_text.hpp"
#include "candidates.hpp"

namespace irqflow::replay::diagnose {

inline std::string rec(std::uint64_t r) { return "record " + std::to_string(r); }

// What the evidence index knows of a vector on a vCPU, as window ends.
struct History {
    const Evidence::Entry& x;
    At accepted() const { return {x.accept_record, TimestampNs(x.accept_ts)}; }
    At injected() const { return {x.inject_record, TimestampNs(x.inject_ts)}; }
    At eoid() const { return {x.eoi_record, TimestampNs(x.eoi_ts)}; }
    bool ever_accepted() const { return x.accept_record || x.accept_ts; }
    bool ever_injected() const { return x.inject_record || x.inject_ts; }
    bool in_use() const { return ever_accepted() || ever_injected(); }
};
inline History history(const RuleContext& c, VcpuSlot v, int vector) { return {c.evidence.of(v, vector)}; }

inline At last_entry(const VcpuModel& v) { return {v.last_entry_record, TimestampNs(v.last_entry_ts)}; }

// `vector` in the event at `here` should have been `should`, which was `what` the model
// held; more likely when `vector` was never accepted on the vCPU at all.
struct Weights {
    double vector_in_use, vector_unknown;
};
inline void wrong_vector(Candidates& k, EventKind kind, At here, int vector, int should, const History& h, Weights w, const std::string& what,
                         std::uint64_t cited) {
    k.wrong(kind, here, "vector", vector, should, h.in_use() ? w.vector_in_use : w.vector_unknown,
            vec_str(should) + " was " + what + (h.in_use() ? "" : "; " + vec_str(vector) + " was never accepted on this vCPU"))
        .evidence = {cited, here.record};
}

// A vector the model still has in service where the trace shows it gone: its EOI went
// untraced between its injection and `here` — or that injection never happened.
inline void stale_in_service(Candidates& k, const RuleContext& c, VcpuSlot s, int stale, At here, const std::string& shown) {
    const auto h = history(c, s, stale);
    const auto& v = c.model.vcpu(s);
    const At from = h.ever_injected() ? h.injected() : At{0, TimestampNs(0)};
    std::string path;
    if (v.pv_eoi.enabled() && !c.model.ioapic_handles(v, stale)) path = " (a PV EOI would show as kvm_eoi + kvm_pv_eoi)";
    k.missing(EventKind::Eoi, stale, from, here, h.ever_injected() ? 0.85 : 0.5,
              vec_str(stale) + (h.ever_injected() ? ", injected at " + rec(from.record) + "," : "") + " was still in service when " + shown +
                  ": its EOI is not in the trace" + path)
        .evidence = {from.record, here.record};
    if (h.ever_injected())
        k.extra(EventKind::InjVirq, stale, from, 0.3, "or that injection of " + vec_str(stale) + " never happened").evidence = {from.record};
}

// An injection of `vector` the model did not have pending (`deliverable`: what IRR
// offered instead, or -1).
inline void not_pending(Candidates& k, const RuleContext& c, VcpuSlot s, int vector, int deliverable, At here) {
    const auto h = history(c, s, vector);
    const auto& v = c.model.vcpu(s);
    // injected already in this round: no entry between them, the same injection twice
    if (h.ever_injected() && h.x.inject_record >= v.last_entry_record && v.last_entry_record && h.x.inject_record <= here.record)
        k.extra(EventKind::InjVirq, vector, here, 0.9,
                vec_str(vector) + " was injected already at " + rec(h.x.inject_record) + " with no entry since: the same injection twice")
            .evidence = {h.x.inject_record, here.record};
    if (deliverable >= 0)
        wrong_vector(k, EventKind::InjVirq, here, vector, deliverable, h, {0.3, 0.8}, "the vector to deliver (IRR " + set_str(v.lapic.irr()) + ")",
                     c.evidence.of(s, deliverable).accept_record);
    const At from = h.ever_injected() ? h.injected() : At{0, TimestampNs(0)};
    k.missing(EventKind::ApicAcceptIrq, vector, from, here, h.in_use() ? 0.7 : 0.4,
              h.ever_injected() ? "no accept of " + vec_str(vector) + " since its last one was injected at " + rec(from.record) +
                                      ": an accept is missing (or was not traced) in between"
                                : "no accept of " + vec_str(vector) + " precedes this injection")
        .evidence = {from.record, here.record};
}

// An EOI of `vector` while the model's highest in service is `top` (-1: nothing).
inline void eoi_of_other(Candidates& k, const RuleContext& c, VcpuSlot s, int vector, int top, At here) {
    const auto& v = c.model.vcpu(s);
    const auto h = history(c, s, vector);
    const bool in_isr = v.lapic.isr().test(vector), pending = v.lapic.irr().test(vector);
    if (top >= 0 && in_isr) {  // below the top: KVM EOIs the highest, so the top's EOI came first, untraced
        stale_in_service(k, c, s, top, here, vec_str(vector) + ", below it, was EOI'd at " + rec(here.record));
        return;
    }
    if (pending)  // accepted, never seen injected
        k.missing(EventKind::InjVirq, vector, h.accepted(), here, top < 0 || vector > top ? 0.85 : 0.5,
                  vec_str(vector) + " was accepted at " + rec(h.x.accept_record) + " and is EOI'd here, but no injection of it is in the trace")
            .evidence = {h.x.accept_record, here.record};
    if (top >= 0)
        wrong_vector(k, EventKind::Eoi, here, vector, top, h, {0.5, 0.85}, "the highest vector in service (ISR " + set_str(v.lapic.isr()) + ")",
                     c.evidence.of(s, top).inject_record);
    else if (h.x.eoi_record && h.x.eoi_record >= h.x.inject_record)
        k.extra(EventKind::Eoi, vector, here, 0.7, vec_str(vector) + " was EOI'd already at " + rec(h.x.eoi_record) + ", with no injection since")
            .evidence = {h.x.eoi_record, here.record};
    else
        k.extra(EventKind::Eoi, vector, here, pending ? 0.4 : 0.6, "nothing was in service to EOI").evidence = {here.record};
}

}  // namespace irqflow::replay::diagnose
