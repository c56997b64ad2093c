// Parses the printed part of a kvm event (what follows "kvm_exit:" in a report) back
// into normalized fields. Each event has the patterns its kernel versions and the
// trace-cmd plugin print, newest first; the first that consumes the whole text wins.
// A text that stops inside a pattern (a mail client wrapped the record onto the next
// line, or the excerpt was cut there) is a prefix of it: the text reader uses that to
// tell a continuation line from an annotation (capture/README.md, "Readers").
#pragma once
#include <cstdint>
#include <string_view>

#include "irqflow/capture/event.hpp"

namespace irqflow {

enum class InfoMatch : std::uint8_t {
    None,    // no print format of the kind reads this text
    Prefix,  // the text is the start of one: it stops before the format does
    Full,    // a format reads all of it
};

struct InfoParse {
    InfoMatch match = InfoMatch::None;
    int pattern = -1;  // which of the kind's formats (0 = newest)
    int fields = 0;    // slots set in the event
    // Prefix: the field the text stops at or before (the kernel's name, "" when it
    // stops inside literal text with no field left to name).
    std::string_view missing;
};

// Full: e's slots hold every field the text prints. Prefix: the fields before the cut,
// except a value the text ends in, which may itself be cut ("rip 0xffffffffc07").
// None: e is untouched.
InfoParse parse_info(EventKind kind, std::string_view info, Event& e);

// The slots format `pattern` of `kind` can fill (flags included): a record read by a
// format that fills fewer than the text's other records of its kind lacks fields.
std::uint16_t pattern_slots(EventKind kind, int pattern);

}  // namespace irqflow
