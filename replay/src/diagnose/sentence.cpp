#include <cstdio>

#include "irqflow/replay/diagnosis.hpp"

namespace irqflow::replay {

const char* to_string(Cause c) {
    switch (c) {
    case Cause::Missing: return "missing";
    case Cause::Extra: return "extra";
    case Cause::WrongField: return "wrong-field";
    case Cause::Late: return "late";
    case Cause::Stuck: return "stuck";
    }
    return "?";
}

std::string kind_name(const Explanation& x) {
    return x.guest_event.empty() ? std::string(kind_info(x.kind).name) : "guest's " + x.guest_event;
}

namespace {

std::string seconds(TimestampNs ts) {
    char b[40];
    std::snprintf(b, sizeof b, "%lld.%06lld s", static_cast<long long>(ts.value() / 1000000000),
                  static_cast<long long>(ts.value() % 1000000000 / 1000));
    return b;
}

std::string vec(int v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

// Vectors and APIC registers read in hex, ids and counts in decimal.
std::string value(const std::string& field, std::int64_t v) {
    if (field == "vector" || field == "vec" || field == "exit_int_info" || field == "event_inj") {
        char b[24];
        std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
        return field == "vector" || field == "vec" ? vec(static_cast<int>(v)) : b;
    }
    return std::to_string(v);
}

std::string duration(std::int64_t ns) {
    char b[32];
    if (ns >= 1000000000) std::snprintf(b, sizeof b, "%.3f s", static_cast<double>(ns) / 1e9);
    else if (ns >= 1000000) std::snprintf(b, sizeof b, "%.3f ms", static_cast<double>(ns) / 1e6);
    else std::snprintf(b, sizeof b, "%.1f µs", static_cast<double>(ns) / 1e3);
    return b;
}

}  // namespace

std::string sentence(const Explanation& x, const RecordName& where) {
    std::string who = x.vm == kUnknownVm ? "" : "vm" + std::to_string(x.vm.value());
    if (x.vcpu != kUnknownVcpu) who += "/vcpu" + std::to_string(x.vcpu.value());
    if (!who.empty()) who += ": ";
    const std::string what = kind_name(x) + (x.vector >= 0 ? " of " + vec(x.vector) : "");
    const std::string at = x.guest_record ? "guest record g" + std::to_string(*x.guest_record) + " (" + seconds(x.from_ts) + ")"
                                          : where(x.from) + " (" + seconds(x.from_ts) + ")";
    const std::string until = where(x.to) + " (" + seconds(x.to_ts) + ")";
    std::string s;
    switch (x.cause) {
    case Cause::Missing:
        s = "the " + what + " is missing " + (x.from == x.to ? "after " + at : "between " + at + " and " + until);
        break;
    case Cause::Extra: s = "the " + what + " at " + at + " is one too many"; break;
    case Cause::WrongField:
        s = "the " + kind_name(x) + " at " + at + " has " + x.field + " " + value(x.field, x.seen) + " where " +
            (x.expected_text.empty() ? value(x.field, x.expected) : x.expected_text) + " was expected";
        break;
    case Cause::Late:
        s = "the " + what + " came late, at " + until + ", " + duration(x.to_ts.value() - x.from_ts.value()) + " after " + at;
        break;
    case Cause::Stuck: s = "no " + what + " from " + at + " to " + until; break;
    }
    return who + s + (x.why.empty() ? "" : ": " + x.why);
}

}  // namespace irqflow::replay
