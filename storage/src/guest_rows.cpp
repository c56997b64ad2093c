#include "guest_rows.hpp"

#include <charconv>
#include <map>

namespace irqflow::storage {
namespace {

std::optional<std::int64_t> opt(std::int64_t v, bool present) { return present ? std::optional<std::int64_t>(v) : std::nullopt; }

}  // namespace

void write_guest_rows(TableSink& out, std::int64_t id, const GuestSide& g) {
    const GuestTrace& t = g.trace;
    out.rows("guest_traces", {"session", "source", "format", "clock", "method", "bound_ns", "detail", "vm", "aligned", "unaligned", "other_events"}, 1,
             [&](Values& v, std::size_t) {
                 v.add(id).add(std::string_view(g.source)).add(std::string_view(t.meta.format)).add(std::string_view(t.meta.clock));
                 v.add(std::string_view(g.clock.method == GuestClock::Method::Tsc ? "tsc" : "guest-time")).add(g.clock.bound_ns);
                 v.add(std::string_view(g.clock.detail));
                 v.add(g.clock.vm.value()).add(g.clock.aligned).add(g.clock.unaligned).add(t.other_events);
             });
    out.rows("guest_events", {"session", "record", "ts_ns", "guest_ts_ns", "vcpu", "name", "vector", "irq", "irq_name", "target_cpu", "ret"},
             t.events.size(), [&](Values& v, std::size_t i) {
                 const GuestEvent& e = t.events[i];
                 v.add(id).add(e.record).add(opt(e.ts.value(), e.aligned)).add(e.guest_ts.value()).add(e.vcpu.value());
                 v.add(std::string_view(e.name_id < t.names.size() ? t.names[e.name_id] : std::string()));
                 v.add(opt(e.vector.value(), e.vector.value() >= 0)).add(opt(e.irq, e.irq >= 0));
                 const auto name = t.irq_names.find(e.irq);
                 if (e.kind == GuestEventKind::IrqEntry && name != t.irq_names.end()) v.add(std::string_view(name->second));
                 else v.null();
                 v.add(opt(e.target_cpu, e.target_cpu >= 0)).add(opt(e.ret, e.ret >= 0));
             });
}

namespace {

std::optional<std::int64_t> number(const std::optional<std::string>& cell, const std::string& where) {
    if (!cell) return std::nullopt;
    std::int64_t x = 0;
    const auto [end, ec] = std::from_chars(cell->data(), cell->data() + cell->size(), x);
    if (ec != std::errc() || end != cell->data() + cell->size()) throw StorageError(where + ": a guest row holds '" + *cell + "' where a number belongs");
    return x;
}

std::int64_t required(const std::optional<std::string>& cell, const std::string& where) {
    const auto x = number(cell, where);
    if (!x) throw StorageError(where + ": a guest row lacks a value it needs");
    return *x;
}

GuestEventKind kind_of(const std::string& name, const std::string& where) {
    if (name == "irq_handler_entry") return GuestEventKind::IrqEntry;
    if (name == "irq_handler_exit") return GuestEventKind::IrqExit;
    if (name == "vector_config") return GuestEventKind::VectorConfig;
    if (name == "vector_update") return GuestEventKind::VectorUpdate;
    if (name.ends_with("_entry")) return GuestEventKind::VectorEntry;
    if (name.ends_with("_exit")) return GuestEventKind::VectorExit;
    throw StorageError(where + ": a guest event named '" + name + "', which irqflow does not store");
}

}  // namespace

GuestSide guest_side_from(const QueryRow& tr, const std::vector<QueryRow>& events, const std::string& where) {
    if (tr.size() != 10) throw StorageError(where + ": a guest_traces row of an unexpected shape");
    GuestSide g;
    g.source = tr[0].value_or("");
    g.trace.meta.format = tr[1].value_or("");
    g.trace.meta.clock = tr[2].value_or("");
    const std::string method = tr[3].value_or("");
    g.clock.method = method == "tsc" ? GuestClock::Method::Tsc : method == "guest-time" ? GuestClock::Method::GuestTime : GuestClock::Method::None;
    g.clock.bound_ns = number(tr[4], where).value_or(0);
    g.clock.detail = tr[5].value_or("");
    g.clock.vm = VmId(static_cast<std::int32_t>(required(tr[6], where)));
    g.clock.aligned = static_cast<std::uint64_t>(required(tr[7], where));
    g.clock.unaligned = static_cast<std::uint64_t>(required(tr[8], where));
    g.trace.other_events = static_cast<std::uint64_t>(number(tr[9], where).value_or(0));
    std::map<std::string, std::uint16_t> name_ids;
    g.trace.events.reserve(events.size());
    for (const auto& row : events) {
        if (row.size() != 10 || !row[4]) throw StorageError(where + ": a guest_events row of an unexpected shape");
        GuestEvent e;
        e.record = static_cast<std::uint64_t>(required(row[0], where));
        const auto ts = number(row[1], where);
        e.guest_ts = TimestampNs(required(row[2], where));
        e.ts = ts ? TimestampNs(*ts) : e.guest_ts;
        e.aligned = ts.has_value();
        e.vcpu = VcpuId(static_cast<std::int32_t>(required(row[3], where)));
        e.kind = kind_of(*row[4], where);
        const auto [it, added] = name_ids.try_emplace(*row[4], static_cast<std::uint16_t>(g.trace.names.size()));
        if (added) {
            if (g.trace.names.size() == UINT16_MAX) throw StorageError(where + ": more guest event names than irqflow reads");
            g.trace.names.push_back(*row[4]);
        }
        e.name_id = it->second;
        e.vector = Vector(static_cast<std::int16_t>(number(row[5], where).value_or(-1)));
        e.irq = static_cast<std::int32_t>(number(row[6], where).value_or(-1));
        if (row[7]) g.trace.irq_names[e.irq] = *row[7];
        e.target_cpu = static_cast<std::int32_t>(number(row[8], where).value_or(-1));
        e.ret = static_cast<std::int32_t>(number(row[9], where).value_or(-1));
        g.trace.events.push_back(e);
    }
    return g;
}

}  // namespace irqflow::storage
