// A guest's interrupt events, read from their printed fields (capture/README.md,
// "Guest traces"): a trace.dat's Other events printed by libtraceevent and a pasted
// report's lines are the same text, so one reader serves both.
#include <optional>
#include <string>

#include "irqflow/capture/error.hpp"
#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/readers.hpp"
#include "printed_fields.hpp"

namespace irqflow {
namespace {

// The irq_vectors events that bracket a system vector's handler (arch/x86's
// irq_vectors.h), each as NAME_entry / NAME_exit with the field "vector".
constexpr std::string_view kVectorHandlers[] = {
    "local_timer", "spurious_apic", "error_apic", "x86_platform_ipi", "irq_work", "reschedule",
    "call_function", "call_function_single", "threshold_apic", "deferred_error_apic", "thermal_apic",
};

std::optional<GuestEventKind> kind_of(std::string_view name) {
    if (name == "irq_handler_entry") return GuestEventKind::IrqEntry;
    if (name == "irq_handler_exit") return GuestEventKind::IrqExit;
    if (name == "vector_config") return GuestEventKind::VectorConfig;
    if (name == "vector_update") return GuestEventKind::VectorUpdate;
    for (std::string_view h : kVectorHandlers) {
        if (!name.starts_with(h)) continue;
        if (name.substr(h.size()) == "_entry") return GuestEventKind::VectorEntry;
        if (name.substr(h.size()) == "_exit") return GuestEventKind::VectorExit;
    }
    return std::nullopt;
}

// Each format's fields in the order the kernel prints them.
constexpr std::string_view kVectorKeys[] = {"vector"};
constexpr std::string_view kIrqEntryKeys[] = {"irq", "name"};
constexpr std::string_view kIrqExitKeys[] = {"irq", "ret"};
constexpr std::string_view kConfigKeys[] = {"irq", "vector", "cpu", "apicdest"};
constexpr std::string_view kUpdateKeys[] = {"irq", "vector", "cpu", "prev_vector", "prev_cpu"};
std::span<const std::string_view> keys_of(GuestEventKind k) {
    switch (k) {
    case GuestEventKind::VectorEntry:
    case GuestEventKind::VectorExit: return kVectorKeys;
    case GuestEventKind::IrqEntry: return kIrqEntryKeys;
    case GuestEventKind::IrqExit: return kIrqExitKeys;
    case GuestEventKind::VectorConfig: return kConfigKeys;
    case GuestEventKind::VectorUpdate: return kUpdateKeys;
    }
    return {};
}

}  // namespace

GuestTrace guest_events(const Trace& t) {
    GuestTrace g;
    g.meta = t.meta;
    std::map<std::uint16_t, std::uint16_t> name_of;  // the trace's name id → ours
    std::vector<std::optional<GuestEventKind>> kinds(t.name_count());  // by the trace's name id, once
    for (std::size_t i = 0; i < kinds.size(); ++i) kinds[i] = kind_of(t.name(static_cast<std::uint16_t>(i)));
    for (const Event& e : t.events) {
        if (e.kind != EventKind::Other) {
            if (e.kind != EventKind::Lost) ++g.other_events;
            continue;
        }
        const std::string& name = t.name(e.name_id);
        const auto kind = e.name_id < kinds.size() ? kinds[e.name_id] : std::nullopt;
        if (!kind) {
            ++g.other_events;
            continue;
        }
        const std::string_view info = t.raw_of(e);
        const PrintedFields f(info, keys_of(*kind));
        auto fail = [&](const std::string& what) {
            const auto line = t.line_of(e.record);
            throw InputError(t.meta.source, line ? InputPosition{InputPosition::Unit::Line, *line} : InputPosition{},
                             "record " + std::to_string(e.record) + ", " + name + " \"" + std::string(info) + "\": " + what);
        };
        auto need = [&](std::string_view key) {
            const auto v = f.number(key);
            if (!v) fail("no " + std::string(key) + "=N in it");
            return *v;
        };
        GuestEvent ge;
        ge.guest_ts = ge.ts = e.ts;
        ge.record = e.record;
        ge.vcpu = VcpuId(e.cpu.value());
        ge.kind = *kind;
        auto [it, added] = name_of.try_emplace(e.name_id, static_cast<std::uint16_t>(g.names.size()));
        if (added) g.names.push_back(name);
        ge.name_id = it->second;
        switch (*kind) {
        case GuestEventKind::VectorEntry:
        case GuestEventKind::VectorExit: {
            const auto v = need("vector");
            if (v < 0 || v > 255) fail("vector " + std::to_string(v) + " is not an x86 vector");
            ge.vector = Vector(static_cast<std::int16_t>(v));
            break;
        }
        case GuestEventKind::IrqEntry: {
            ge.irq = static_cast<std::int32_t>(need("irq"));
            if (auto n = f.word("name"); n && !n->empty()) g.irq_names.try_emplace(ge.irq, std::string(*n));
            break;
        }
        case GuestEventKind::IrqExit: {
            ge.irq = static_cast<std::int32_t>(need("irq"));
            ge.ret = f.starts_with("ret", "handled") ? 1 : f.starts_with("ret", "unhandled") ? 0 : -1;
            break;
        }
        case GuestEventKind::VectorConfig:
        case GuestEventKind::VectorUpdate: {
            ge.irq = static_cast<std::int32_t>(need("irq"));
            const auto v = need("vector");
            if (v < 0 || v > 255) fail("vector " + std::to_string(v) + " is not an x86 vector");
            ge.vector = Vector(static_cast<std::int16_t>(v));
            ge.target_cpu = static_cast<std::int32_t>(need("cpu"));
            break;
        }
        }
        g.events.push_back(ge);
    }
    return g;
}

GuestTrace load_guest_trace(const std::string& path) {
    LoadOptions lo;
    lo.other_event_info = true;  // the guest events are read from their printed fields
    const Trace t = load_trace(path, lo);
    GuestTrace g = guest_events(t);
    if (g.events.empty())
        throw InputError(path, {}, "no guest interrupt events in it (irq_vectors:*_entry/_exit, irq:irq_handler_entry/exit, "
                                   "vector_config): record them inside the guest (README.md, \"Both sides\")");
    return g;
}

}  // namespace irqflow
