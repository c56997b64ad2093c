// What `check --guest` adds to its report: how the guest's trace was aligned, how many
// injections reached their handler in the guest and how many handlers had an injection,
// and the delivery stage by stage per vector (README.md, "Both sides").
#pragma once
#include <string>

#include "irqflow/capture/guest.hpp"
#include "irqflow/replay/guest_match.hpp"
#include "json.hpp"

namespace irqflow::cli {

struct GuestReport {
    std::string shown;  // the guest trace as the user named it
    GuestClock clock;
    replay::GuestMatch match;
};

void print_guest_report(const GuestReport& g);
// The delivery stage by stage per vector, both sides: accept → inject → handler entry,
// the handler's run, handler entry → EOI.
void print_guest_latency(const replay::GuestMatch& m);
ui::Json guest_report_json(const GuestReport& g);

}  // namespace irqflow::cli
