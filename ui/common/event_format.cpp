#include "event_format.hpp"

#include <cstdio>
#include <set>
#include <string>

#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/field_values.hpp"
#include "json.hpp"

namespace irqflow::ui {
namespace {

// Fields read as addresses, register values or vectors print in hex.
bool hex_field(std::string_view f) {
    static const std::set<std::string_view> hex = {
        "rip", "guest_rip", "info1", "info2", "intr_info", "error_code", "exit_reason", "ecx", "data", "nr", "a0",
        "a1", "a2", "a3", "port", "val", "gpa", "fault_address", "processor_mask", "valid_bank_mask", "inhibits",
        "ingpa", "outgpa", "code", "reg", "vec", "vector", "apicid", "dest_id", "dst", "format", "vmcb", "nested_rip",
        "int_ctl", "event_inj", "exit_code", "exit_info1", "exit_info2", "exit_int_info", "exit_int_info_err"};
    return hex.count(f) != 0;
}

std::string value_text(std::string_view field, std::int64_t v) {
    char buf[32];
    if (hex_field(field)) std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
}

std::string who(VmId vm, VcpuId vcpu) {
    std::string s = vm == kUnknownVm ? "-" : "vm" + std::to_string(vm.value());
    s += vcpu == kUnknownVcpu ? "/-" : "/vcpu" + std::to_string(vcpu.value());
    return s;
}

}  // namespace

std::string ts_text(TimestampNs ts) {
    char buf[40];
    const auto v = ts.value();
    std::snprintf(buf, sizeof buf, "%lld.%09lld", static_cast<long long>(v / 1000000000), static_cast<long long>(v % 1000000000));
    return buf;
}

std::string event_fields_text(const Trace& t, const Event& e) {
    std::string o;
    const auto& info = kind_info(e.kind);
    for (std::size_t i = 0; i < info.nfields; ++i) {
        auto v = e.get(static_cast<int>(i));
        if (!v) continue;
        if (!o.empty()) o += ' ';
        o.append(info.fields[i]).append("=").append(value_text(info.fields[i], *v));
        // the number, then its name as the kernel's print format spells it
        const std::string name = e.kind == EventKind::Exit && i == slot::exit_reason
                                     ? std::string(exit_reason_name(e))
                                     : std::string(field_value_name(e, static_cast<int>(i)));
        if (!name.empty()) o.append("(").append(name).append(")");
    }
    if (e.kind == EventKind::Other) {
        if (const auto printed = t.raw_of(e); !printed.empty()) {
            if (!o.empty()) o += ' ';
            o.append(printed);
        }
    }
    return o;
}

std::optional<int> event_vector(const Event& e) {
    std::optional<std::int64_t> v;
    switch (e.kind) {
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq: v = e.get(slot::accept_vec); break;
    case EventKind::InjVirq: v = e.get(slot::inj_vector); break;
    case EventKind::Eoi:
    case EventKind::PvEoi: v = e.get(slot::eoi_vector); break;
    case EventKind::ApicIpi: v = e.get(slot::ipi_vec); break;
    default: break;
    }
    if (!v) return std::nullopt;
    return static_cast<int>(*v);
}

// A lost-event marker is no record (it shares the number of the record it precedes),
// and an excerpt without CPU or task columns has neither: "-" for each, never a number
// that is not in the input.
void print_event_text(std::ostream& o, const Trace& t, const Event& e) {
    char head[96], record[24] = "-", cpu[16] = "---", tid[16] = "-";
    if (e.kind != EventKind::Lost) std::snprintf(record, sizeof record, "%llu", static_cast<unsigned long long>(e.record));
    if (e.cpu.value() >= 0) std::snprintf(cpu, sizeof cpu, "%03d", e.cpu.value());
    if (e.tid.value() >= 0) std::snprintf(tid, sizeof tid, "%d", e.tid.value());
    std::snprintf(head, sizeof head, "%8s %s [%s] %7s ", record, ts_text(e.ts).c_str(), cpu, tid);
    o << head << who(e.vm, e.vcpu) << ' ' << t.name(e.name_id);
    const std::string fields = event_fields_text(t, e);
    if (!fields.empty()) o << ' ' << fields;
    o << '\n';
}

void print_event_json(std::ostream& o, const Trace& t, const Event& e) {
    Json j;
    if (e.kind == EventKind::Lost) j["record"] = nullptr;  // as in the text: no record of its own
    else j["record"] = e.record;
    j["ts_ns"] = e.ts.value();
    if (e.cpu.value() >= 0) j["cpu"] = e.cpu.value();
    else j["cpu"] = nullptr;
    if (e.tid.value() >= 0) j["tid"] = e.tid.value();
    else j["tid"] = nullptr;
    j["vm"] = json_id(e.vm, kUnknownVm);
    j["vcpu"] = json_id(e.vcpu, kUnknownVcpu);
    j["name"] = t.name(e.name_id);
    const auto& info = kind_info(e.kind);
    Json f = Json::object();
    for (std::size_t i = 0; i < info.nfields; ++i)
        if (auto v = e.get(static_cast<int>(i))) f[std::string(info.fields[i])] = *v;
    j["fields"] = std::move(f);
    if (e.kind == EventKind::Exit) j["exit_reason_name"] = exit_reason_name(e);
    Json names = Json::object();  // numeric fields' names, as the kernel prints them
    for (std::size_t i = 0; i < info.nfields; ++i)
        if (auto v = e.get(static_cast<int>(i)))
            if (const auto n = field_value_name(e, static_cast<int>(i)); !n.empty()) names[std::string(info.fields[i])] = n;
    if (!names.empty()) j["names"] = std::move(names);
    if (e.kind == EventKind::Other)
        if (const auto printed = t.raw_of(e); !printed.empty()) j["info"] = printed;  // as trace-cmd report prints it
    o << json_text(j) << '\n';
}

std::string guest_fields_text(const GuestTrace& g, const GuestEvent& e) {
    char b[96];
    switch (e.kind) {
    case GuestEventKind::VectorEntry:
    case GuestEventKind::VectorExit: std::snprintf(b, sizeof b, "vector=0x%02x", e.vector.value()); return b;
    case GuestEventKind::IrqEntry: {
        const auto n = g.irq_names.find(e.irq);
        return "irq=" + std::to_string(e.irq) + (n == g.irq_names.end() ? "" : " name=" + n->second);
    }
    case GuestEventKind::IrqExit:
        return "irq=" + std::to_string(e.irq) + (e.ret == 1 ? " ret=handled" : e.ret == 0 ? " ret=unhandled" : "");
    case GuestEventKind::VectorConfig:
    case GuestEventKind::VectorUpdate:
        std::snprintf(b, sizeof b, "irq=%d vector=0x%02x cpu=%d", e.irq, e.vector.value(), e.target_cpu);
        return b;
    }
    return {};
}

void print_guest_text(std::ostream& o, const GuestTrace& g, const GuestEvent& e, VmId vm) {
    char head[96], record[24];
    std::snprintf(record, sizeof record, "g%llu", static_cast<unsigned long long>(e.record));
    std::snprintf(head, sizeof head, "%8s %s [---] %7s ", record, ts_text(e.ts).c_str(), "-");
    o << head << who(vm, e.vcpu) << " guest:" << g.names[e.name_id] << ' ' << guest_fields_text(g, e) << '\n';
}

void print_guest_json(std::ostream& o, const GuestTrace& g, const GuestEvent& e, VmId vm) {
    Json j;
    j["side"] = "guest";
    j["record"] = e.record;
    j["ts_ns"] = e.ts.value();
    j["guest_ts"] = e.guest_ts.value();
    j["vm"] = json_id(vm, kUnknownVm);
    j["vcpu"] = json_id(e.vcpu, kUnknownVcpu);
    j["name"] = g.names[e.name_id];
    if (e.vector.value() >= 0) j["vector"] = e.vector.value();
    if (e.irq >= 0) j["irq"] = e.irq;
    if (const auto n = g.irq_names.find(e.irq); e.kind == GuestEventKind::IrqEntry && n != g.irq_names.end()) j["irq_name"] = n->second;
    if (e.target_cpu >= 0) j["target_cpu"] = e.target_cpu;  // where the vector lives (not a host CPU)
    if (e.ret >= 0) j["handled"] = e.ret == 1;
    o << json_text(j) << '\n';
}

void print_serial_text(std::ostream& o, const SerialLine& l, VmId vm) {
    char head[96];
    std::snprintf(head, sizeof head, "%8s %s [---] %7s ", "serial", l.host_ts ? ts_text(*l.host_ts).c_str() : "          ?         ", "-");
    o << head << who(vm, kUnknownVcpu) << " serial(" << to_string(l.alignment) << ") " << l.text << '\n';
}

void print_serial_json(std::ostream& o, const SerialLine& l, VmId vm) {
    Json j;
    j["name"] = "serial";
    j["line"] = l.line;
    j["ts_ns"] = l.host_ts ? Json(l.host_ts->value()) : Json(nullptr);
    j["vm"] = json_id(vm, kUnknownVm);
    j["alignment"] = to_string(l.alignment);
    j["text"] = l.text;
    o << json_text(j) << '\n';
}

}  // namespace irqflow::ui
