#include <iostream>

#include "args.hpp"
#include "event_format.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/serial.hpp"

namespace irqflow::cli {

int cmd_events(Args& a) {
    const bool json = a.flag("--json");
    auto serial_path = a.value("--serial");
    auto vcpu = a.integer("--vcpu");
    auto kind = a.value("--kind");
    auto pos = a.positionals();
    if (pos.size() != 1) throw UsageError("expects one TRACE");

    Trace t = load_trace(pos[0]);
    std::optional<SerialLog> serial;
    if (serial_path) {
        serial = read_serial_log(*serial_path);
        align_serial(t, *serial);
        std::cerr << "irqflow: serial " << *serial_path << ": " << serial->method << "\n";
    }
    // "kvm_exit" or its short form "exit"
    auto kind_matches = [&](const Event& e) {
        if (!kind) return true;
        const std::string& n = t.name(e.name_id);
        return n == *kind || n == "kvm_" + *kind;
    };
    std::ios::sync_with_stdio(false);
    std::ostream& o = std::cout;
    std::size_t s = 0;
    auto flush_serial_until = [&](std::int64_t ts) {
        if (!serial || (kind && *kind != "serial") || vcpu) return;
        while (s < serial->lines.size() && (!serial->lines[s].host_ts || serial->lines[s].host_ts->value() <= ts)) {
            if (json) print_serial_json(o, serial->lines[s], serial->vm);
            else print_serial_text(o, serial->lines[s], serial->vm);
            ++s;
        }
    };
    for (const auto& e : t.events) {
        flush_serial_until(e.ts.value());
        if (vcpu && e.vcpu.value() != *vcpu) continue;
        if (!kind_matches(e)) continue;
        if (json) print_event_json(o, t, e);
        else print_event_text(o, t, e);
    }
    flush_serial_until(INT64_MAX);
    o.flush();
    return o ? kExitOk : kExitBadInput;
}

}  // namespace irqflow::cli
