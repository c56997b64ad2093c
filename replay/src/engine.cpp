#include "engine.hpp"

namespace irqflow::replay {

Engine::Engine(const Trace& t, const ReplayOptions& o, PvEoiSemantics semantics)
    : t_(t), o_(o), model_(t), observers_(model_, o_, r_), checks_(make_checks(model_)),
      ctx_{model_, observers_.evidence(), o_, semantics, r_.findings} {
    r_.semantics = semantics;
    for (const auto& c : checks_) {
        const auto s = c->subscriptions();
        for (auto k : s.before) before_[static_cast<std::size_t>(k)].push_back(c.get());
        for (auto k : s.after) after_[static_cast<std::size_t>(k)].push_back(c.get());
        if (s.ipis) on_ipi_.push_back(c.get());
    }
    for (std::size_t k = 0; k < only_noted_.size(); ++k) {
        const auto kind = static_cast<EventKind>(k);
        only_noted_[k] = own_thread_kind(kind) && !Model::models(kind) && !Observers::handles(kind) && before_[k].empty() && after_[k].empty();
    }
}

void Engine::run() {
    for (const auto& e : t_.events) on_event(e);
    observers_.finish_eois(model_);
    model_.finish();
    dispatch_completed_ipis();
    observers_.finish(model_);
}

// Rules in rules.def order see the model before the event, then it is applied, then
// the IPIs it completed are judged, then rules see the model after.
void Engine::on_event(const Event& e) {
    const auto kind = static_cast<std::size_t>(e.kind);
    if (only_noted_[kind]) {
        observers_.thread_event(e, model_.thread_event(e), model_);
        return;
    }
    const Effect fx = model_.decide(e);
    observers_.before(e, fx, model_);
    for (Check* c : before_[kind]) c->before(e, fx, ctx_);
    model_.commit(e, fx);
    dispatch_completed_ipis();
    observers_.after(e, fx, model_);
    for (Check* c : after_[kind]) c->after(e, fx, ctx_);
}

void Engine::dispatch_ipis() {
    for (const auto& s : model_.completed()) {
        observers_.on_ipi(s);
        for (Check* c : on_ipi_) c->on_ipi(s, ctx_);
    }
}

}  // namespace irqflow::replay
