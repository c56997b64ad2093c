#include "engine.hpp"

#include <utility>

#include "rules/finding_text.hpp"
#include "rules/rule_set.hpp"

namespace irqflow::replay {

Engine::Engine(const Trace& t, const ReplayOptions& o, PvEoiSemantics semantics)
    : t_(t), o_(o), model_(t, semantics), observers_(model_, o_, r_), rules_(std::make_unique<RuleSet>(model_, o_.rules)),
      ctx_{recent_, model_, observers_.evidence(), o_, semantics, r_.findings}, follow_ons_(model_.vcpu_count()), drops_(t_.drop_window_starts), next_drop_(drops_.next_start()) {
    r_.semantics = semantics;
    if (o_.guest) guest_ = std::make_unique<GuestTracker>(t_, *o_.guest, o_.guest_vm, [this](const GuestOutcome& g) { dispatch_guest(g); });
}

Engine::~Engine() = default;

// Rules in rules.def order see the model before the event, then it is applied, then
// the IPIs it completed are judged, then rules see the model after.
template <EventKind K>
[[gnu::always_inline]] inline void Engine::handle_inline(Engine& self, const Event& e) {
    auto& model = self.model_;
    const Effect fx = model.decide<K>(e);
    self.observers_.before<K>(e, fx, model);
    if constexpr (RuleSet::any_before<K>()) {
        const std::size_t found = self.r_.findings.size();
        self.rules_->before<K>(e, fx, self.ctx_);
        // (the common case, no finding and no episode open, tested here: a call costs
        // more than the test)
        if constexpr (K == EventKind::InjVirq || K == EventKind::Eoi || K == EventKind::PvEoi)
            if (fx.vcpu != kNoVcpu && (self.r_.findings.size() != found || self.follow_ons_.open(static_cast<std::size_t>(fx.vcpu.value()))))
                self.recover(fx, found);
    }
    model.commit<K>(e, fx);
    if constexpr (K == EventKind::Entry || K == EventKind::Exit) self.dispatch_completed_ipis();
    self.observers_.after<K>(e, fx, model);
    if constexpr (RuleSet::any_after<K>()) self.rules_->after<K>(e, fx, self.ctx_);
    ++self.seen_[static_cast<std::size_t>(K)];
    self.recent_.push<K>(e);
}

template <EventKind K>
void Engine::handle(Engine& self, const Event& e) {
    handle_inline<K>(self, e);
}

void Engine::open_drop_windows() {
    for (std::size_t k = drops_.opening_before(index_); k > 0; --k) model_.drop_window_opens();
    next_drop_ = drops_.next_start();
}

// The feed index and the next drop window are the caller's locals, in registers for a
// batch: no handler reads or changes them, and behind the handler table's indirect
// calls members would be loads and a store per event.
template <bool Guest>
[[gnu::always_inline]] inline void Engine::step(const Event& e, std::size_t& index, std::size_t& next_drop) {
    if (index >= next_drop) [[unlikely]] {
        index_ = index;
        open_drop_windows();
        next_drop = next_drop_;
    }
    if constexpr (Guest) guest_->until(e.ts);
    static constexpr auto kHandlers = handlers(std::make_index_sequence<kKinds>());
    // Events of kinds no one models (a quarter of a real trace's) cost little more than
    // the call to their handler: inline here. The other handlers stay calls: inlined
    // into this loop too, the entry's and the exit's made every event dearer (bench_replay
    // under callgrind: 230 → 236 instructions per event, the exit's alone +2).
    switch (e.kind) {
    case EventKind::Other: handle_inline<EventKind::Other>(*this, e); break;
    default: kHandlers[static_cast<std::size_t>(e.kind)](*this, e);
    }
    if constexpr (Guest) guest_->host(e);
    ++index;
}

template <bool Guest>
void Engine::feed_batch(std::span<const Event> events) {
    std::size_t index = index_, next_drop = next_drop_;
    for (const Event& e : events) step<Guest>(e, index, next_drop);
    index_ = index;
}

void Engine::feed(const Event& e) { feed(std::span(&e, 1)); }

void Engine::feed(std::span<const Event> events) {
    if (guest_) feed_batch<true>(events);
    else feed_batch<false>(events);
}

VcpuSlot Engine::add_vcpu(VmId vm, const VcpuInfo& info) {
    const std::size_t before = model_.vcpu_count();
    const VcpuSlot s = model_.add_vcpu(vm, info);
    if (model_.vcpu_count() == before) return s;
    const std::size_t n = model_.vcpu_count();
    observers_.vcpus(model_);
    for (Check* c : rules_->all()) c->vcpus(n);
    follow_ons_.vcpus(n);
    return s;
}

void Engine::learnt(VmId vm, const VcpuInfo& info) {
    if (const VcpuSlot s = model_.slot(vm, info.id); s != kNoVcpu) model_.learnt(s, info);
    else add_vcpu(vm, info);
}

void Engine::run() {
    t_.events.for_each_chunk(0, t_.events.size(), [this](std::span<const Event> chunk) { feed(chunk); });
    finish();
}

void Engine::finish() {
    r_.stats.events = index_;
    const std::size_t before_end = r_.findings.size();
    observers_.finish_eois(model_);
    model_.finish();
    dispatch_completed_ipis();
    if (guest_) guest_->finish();
    for (Check* c : rules_->all())
        if (rules_->runs(c->rule())) c->finish(ctx_);
    for (std::size_t i = before_end; i < r_.findings.size(); ++i) r_.findings[i].at_end = true;
    // (the guest rules have nothing to judge, and nothing to say, without a guest trace)
    for (const Check* c : rules_->all())
        if (rules_->runs(c->rule()) && !c->cases() && (guest_ || !c->subscriptions().guest))
            r_.not_judged.push_back({c->rule(), c->not_judged(seen_)});
    if (guest_) r_.guest = guest_->take();
    observers_.finish(model_);
}

// After the rules judged an injection or EOI that raised findings or found its vCPU's
// episode open: the first finding says what the model adopts from the event, and
// findings the open episode explains are follow-ons.
void Engine::recover(const Effect& fx, std::size_t found) {
    auto& findings = r_.findings;
    const auto slot = static_cast<std::size_t>(fx.vcpu.value());
    const auto& v = model_.vcpu(fx.vcpu);
    if (fx.adopts() && findings.size() > found) findings[found].resync = adoption_text(fx, v.lapic, v.accepted_since_entry);
    VectorSet involved;
    for (int x : {fx.vector, fx.expected, fx.in_service, static_cast<int>(fx.drop_irr), v.lapic.isr_top()})
        if (x >= 0 && x < apic::kVectors) involved.set(x);
    follow_ons_.event(slot, fx.outcome == Outcome::Injected, fx.vector, involved, findings, found);
}

// A guest handler under the wrong vector shows twice: unexplained under the vector it
// names, and the injection it was for unhandled later. The second is the first's
// follow-on.
void Engine::dispatch_guest(const GuestOutcome& o) {
    auto& findings = r_.findings;
    const std::size_t found = findings.size();
    rules_->on_guest(o, ctx_);
    if (findings.size() == found) return;
    if (o.kind == GuestOutcome::Kind::Unexplained && o.waiting_vector >= 0)
        misplaced_handlers_[o.waiting_injection.record] = found;
    if (o.kind == GuestOutcome::Kind::Unhandled)
        if (const auto it = misplaced_handlers_.find(o.injection.record); it != misplaced_handlers_.end())
            for (std::size_t i = found; i < findings.size(); ++i) findings[i].caused_by = it->second;
}

// A send is decided when its sender enters again; a receiver may have shown the fault
// before that (an injection without the accept that went elsewhere). Such a root,
// after the send and about its vector, becomes a follow-on of the send's finding, and
// so do its own follow-ons.
void Engine::adopt_earlier(std::size_t root, VmId vm, VcpuId vcpu, int vector) {
    auto& findings = r_.findings;
    constexpr std::size_t kLookBack = 64;  // a send is decided within a few of its receivers' events
    for (std::size_t i = root > kLookBack ? root - kLookBack : 0; i < root; ++i) {
        Finding& f = findings[i];
        if (f.caused_by || f.vm != vm || f.vcpu != vcpu || f.record <= findings[root].record) continue;
        if (!f.diagnosis || f.diagnosis->top.vector != vector) continue;
        for (std::size_t k = i + 1; k < findings.size(); ++k)
            if (findings[k].caused_by == i) findings[k].caused_by = root;
        f.caused_by = root;
    }
}

// The IPI rules judge each completed send. Their findings on one send are one fault (a
// wrong destination is a missing and an extra one): the first is the root. The vCPUs it
// implicates show the fault later, as follow-ons.
void Engine::dispatch_ipis() {
    auto& findings = r_.findings;
    for (const auto& s : model_.completed()) {
        observers_.on_ipi(s);
        const std::size_t found = findings.size();
        rules_->on_ipi(s, ctx_);
        if (findings.size() == found) continue;
        for (std::size_t i = found + 1; i < findings.size(); ++i) findings[i].caused_by = found;
        for (const auto& x : findings[found].implicates) {
            if (const VcpuSlot v = model_.slot(x.vm, x.vcpu); v != kNoVcpu) follow_ons_.implicate(static_cast<std::size_t>(v.value()), x.vector, found);
            adopt_earlier(found, x.vm, x.vcpu, x.vector);
        }
    }
}

}  // namespace irqflow::replay
