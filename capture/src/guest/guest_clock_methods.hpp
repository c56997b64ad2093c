// The ways align_guest_clock puts the guest's events on the host's clock, each in its
// own file (capture/README.md, "Guest traces").
#pragma once
#include <set>
#include <string>

#include "irqflow/capture/guest.hpp"

namespace irqflow {

// Both traces in ns on clocks of their own: the offset that puts every guest event inside
// its vCPU's time in the guest (guest_clock_causal.cpp).
GuestClock align_by_guest_time(const Trace& host, GuestTrace& guest);

// "0-3" or "0, 2, 5" for the vCPUs a message names.
std::string vcpu_list(const std::set<int>& v);
// What a method that cannot align says: none of the guest's events aligned, and why.
GuestClock not_aligned(const GuestTrace& guest, std::string why);
// The guest's events in host time order once aligned, those that could not be last.
void sort_by_host_time(GuestTrace& guest);

}  // namespace irqflow
