// Replay a stored session as it was imported.
#include "pipeline.hpp"

namespace irqflow::pipeline {

Replayed replay_stored(storage::Store& store, const std::string& id_or_name, const StoredWatch& watch) {
    Replayed r;
    r.stored = store.load_session(id_or_name, watch.progress, watch.event);
    if (watch.read) watch.read();
    replay::ReplayOptions o;
    o.collect_details = true;
    o.semantics = r.stored.semantics;  // the semantics it was imported with
    if (r.stored.guest) {                // and the guest's side imported with it
        o.guest = &r.stored.guest->trace;
        o.guest_vm = r.stored.guest->clock.vm;
    }
    r.result = replay::replay(r.stored.trace, o);
    return r;
}

}  // namespace irqflow::pipeline
