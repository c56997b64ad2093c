// How the CLI prints normalized events, one per line, in text and JSON; the GUI's
// event table uses the same field text.
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/serial.hpp"
#include "irqflow/capture/trace.hpp"

namespace irqflow::ui {

// The vector an event is about (accepts, injections, EOIs, ICR IPIs), if any: what
// `events --vector`, the GUI's vector filter and its search match.
std::optional<int> event_vector(const Event& e);

// A time of the trace clock as `events` prints it: seconds, 9 decimals.
std::string ts_text(TimestampNs ts);

// The fields after the event name: "vector=0xec soft=0 ..." (exit reasons named).
std::string event_fields_text(const Trace& t, const Event& e);
void print_event_text(std::ostream& o, const Trace& t, const Event& e);
void print_event_json(std::ostream& o, const Trace& t, const Event& e);
// A guest trace's event (`events --guest`): "g<record>" in the record column, then
// its vCPU and "guest:<tracepoint>" with its fields.
std::string guest_fields_text(const GuestTrace& g, const GuestEvent& e);
void print_guest_text(std::ostream& o, const GuestTrace& g, const GuestEvent& e, VmId vm);
void print_guest_json(std::ostream& o, const GuestTrace& g, const GuestEvent& e, VmId vm);
void print_serial_text(std::ostream& o, const SerialLine& l, VmId vm);
void print_serial_json(std::ostream& o, const SerialLine& l, VmId vm);

}  // namespace irqflow::ui
