// How the CLI prints normalized events, one per line, in text and JSON.
#pragma once
#include <ostream>

#include "irqflow/capture/serial.hpp"
#include "irqflow/capture/trace.hpp"

namespace irqflow::cli {

void print_event_text(std::ostream& o, const Trace& t, const Event& e);
void print_event_json(std::ostream& o, const Trace& t, const Event& e);
void print_serial_text(std::ostream& o, const SerialLine& l, VmId vm);
void print_serial_json(std::ostream& o, const SerialLine& l, VmId vm);

}  // namespace irqflow::cli
