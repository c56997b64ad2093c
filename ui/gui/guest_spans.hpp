// The guest's own handlers in each vCPU lane (README.md, "Both sides"): from the
// guest's trace on the host's clock, each handler's run as a span under the host's ISR
// bars, named as the guest names it, with the injection of its vector before it on that
// vCPU (the arrow's start). Data only; guest_spans_view.cpp draws it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "irqflow/capture/guest.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

// Adds the guest's handler spans of VM `vm` to the lanes of its vCPUs (the guest's events
// must be aligned: align_guest_clock). A handler still running at the end of the guest's
// trace ends there.
void add_guest_spans(Timeline& tl, const GuestTrace& guest, VmId vm);

}  // namespace irqflow::gui
