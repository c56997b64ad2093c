// Tests that drop, duplicate or change events edit a plain copy of the trace's events
// and store it back (the event store is append-only).
#pragma once
#include <vector>

#include "irqflow/capture/trace.hpp"

namespace irqflow::test {

template <class F>
void edit_events(Trace& t, F&& edit) {
    std::vector<Event> v = t.events.to_vector();
    edit(v);
    t.events.assign(v);
}

}  // namespace irqflow::test
