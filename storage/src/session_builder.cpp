#include "session_builder.hpp"

#include "event_tables.hpp"
#include "irqflow/capture/drop_windows.hpp"

namespace irqflow::storage {
namespace {

// KVM's vCPU ids are below KVM_MAX_VCPU_IDS (4096 on x86); leave room for other hosts.
constexpr std::int64_t kMaxStoredVcpuId = (1 << 20) - 1;

SerialAlignment alignment_from(const std::string& s) {
    for (auto a : {SerialAlignment::Pio, SerialAlignment::PrintkOffset, SerialAlignment::Neighbour, SerialAlignment::None})
        if (s == to_string(a)) return a;
    return SerialAlignment::None;
}

}  // namespace

SessionBuilder::SessionBuilder(StoredSession& out, std::string where, const std::function<void(const Event&)>& each)
    : out_(out), where_(std::move(where)), each_(each) {}

void SessionBuilder::name(std::int64_t id, const std::string& name) {
    // names in id order, so the rows' name ids stay valid
    if (out_.trace.intern(name) != id) throw StorageError(where_ + ": event name ids are not dense");
}

void SessionBuilder::vcpu(std::int64_t vm_id, std::int64_t vcpu_id, std::int64_t tid, std::int64_t apic, bool apic_from_trace) {
    // VM ids index the trace's VM table and vCPU ids name model slots: a damaged or
    // hand-edited row is refused here rather than trusted downstream.
    auto& vms = out_.trace.vms;
    const std::string row = where_ + ", vcpus row (vm " + std::to_string(vm_id) + ", vcpu " + std::to_string(vcpu_id) + ")";
    const bool next_vm = vms.empty() || vms.back().id.value() != vm_id;
    if (next_vm && vm_id != static_cast<std::int64_t>(vms.size())) throw StorageError(row + ": VM ids must run 0, 1, 2… (damaged database?)");
    if (vcpu_id < 0 || vcpu_id > kMaxStoredVcpuId) throw StorageError(row + ": vCPU id out of range (damaged database?)");
    if (!next_vm && vms.back().vcpus.back().id.value() == vcpu_id) throw StorageError(row + ": listed twice (damaged database?)");
    if (next_vm) vms.push_back(VmInfo{VmId(static_cast<std::int32_t>(vm_id)), {}, {}});
    VcpuInfo c;
    c.id = VcpuId(static_cast<std::int32_t>(vcpu_id));
    c.tid = Tid(static_cast<std::int32_t>(tid));
    c.apic = ApicId(static_cast<std::uint32_t>(apic));
    c.apic_from_trace = apic_from_trace;
    vms.back().vcpus.push_back(c);
}

void SessionBuilder::gap(std::int64_t before_record, std::int64_t ts, std::int64_t cpu, std::int64_t lost) {
    gaps_.push_back({before_record, ts, cpu, lost});
}

// Lost-event markers sit before the record they were reported with.
void SessionBuilder::gaps_before(std::uint64_t record) {
    Trace& t = out_.trace;
    for (; next_gap_ < gaps_.size() && static_cast<std::uint64_t>(gaps_[next_gap_].before_record) <= record; ++next_gap_) {
        const Gap& g = gaps_[next_gap_];
        Event l;
        l.kind = EventKind::Lost;
        l.name_id = lost_name_;
        l.record = static_cast<std::uint64_t>(g.before_record);
        l.ts = TimestampNs(g.ts);
        l.cpu = HostCpu(static_cast<std::int32_t>(g.cpu));
        l.set(slot::lost_count, g.lost);
        t.events.push_back(l);
        if (each_) each_(l);
    }
}

void SessionBuilder::event(const EventRow& r) {
    Trace& t = out_.trace;
    if (!kinds_named_) {  // the names are all in: which one each decoded kind has
        name_of_kind_.assign(static_cast<std::size_t>(EventKind::Count_), -1);
        for (std::size_t i = 0; i < t.name_count(); ++i)
            if (auto k = kind_by_name(t.name(static_cast<std::uint16_t>(i)))) name_of_kind_[static_cast<std::size_t>(*k)] = static_cast<std::int64_t>(i);
        lost_name_ = t.intern("lost_events");
        kinds_named_ = true;
    }
    const std::string_view table = event_table(r.kind);  // for messages: no copy per event
    if (r.record < 0) throw StorageError(where_ + ", table " + std::string(table) + ": negative record number");
    Event e;
    e.record = static_cast<std::uint64_t>(r.record);
    if (previous_ && e.record <= *previous_) throw StorageError(where_ + ", record " + std::to_string(e.record) + ": stored twice (damaged database?)");
    previous_ = e.record;
    gaps_before(e.record);
    e.ts = TimestampNs(r.ts);
    e.cpu = HostCpu(static_cast<std::int32_t>(r.cpu));
    e.tid = Tid(static_cast<std::int32_t>(r.tid));
    // Events name VMs and vCPUs of the table read above (or none); checked before
    // they are narrowed to ids.
    const std::int64_t vm = r.vm.value_or(kUnknownVm.value()), vcpu = r.vcpu.value_or(kUnknownVcpu.value());
    const bool vm_ok = vm == kUnknownVm.value() || (vm >= 0 && static_cast<std::uint64_t>(vm) < t.vms.size());
    const bool vcpu_ok = vcpu == kUnknownVcpu.value() || (vcpu >= 0 && vcpu <= kMaxStoredVcpuId);
    if (!vm_ok || !vcpu_ok)
        throw StorageError(where_ + ", record " + std::to_string(e.record) + ": " + (vm_ok ? "vCPU " + std::to_string(vcpu) : "VM " + std::to_string(vm)) +
                           " is not one the session lists (damaged database?)");
    e.vm = VmId(static_cast<std::int32_t>(vm));
    e.vcpu = VcpuId(static_cast<std::int32_t>(vcpu));
    e.kind = r.kind;
    const int nfields = static_cast<int>(kind_info(r.kind).nfields);
    for (int f = 0; f < nfields; ++f)
        if (r.fields[static_cast<std::size_t>(f)]) e.set(f, *r.fields[static_cast<std::size_t>(f)]);
    const std::int64_t name = r.kind == EventKind::Other ? r.name_id : name_of_kind_[static_cast<std::size_t>(r.kind)];
    if (name < 0 || static_cast<std::size_t>(name) >= t.name_count())
        throw StorageError(where_ + ", record " + std::to_string(e.record) + ": " +
                           (r.kind == EventKind::Other ? "unknown event name id " + std::to_string(name) : "no event name for " + std::string(table)) +
                           " (damaged database?)");
    e.name_id = static_cast<std::uint16_t>(name);
    t.events.push_back(e);
    ++events_;
    if (each_) each_(e);
}

void SessionBuilder::serial_line(std::int64_t line, std::optional<std::int64_t> ts, const std::string& alignment, std::string text) {
    SerialLine l;
    l.line = static_cast<std::uint64_t>(line);
    if (ts) l.host_ts = TimestampNs(*ts);
    l.alignment = alignment_from(alignment);
    l.text = std::move(text);
    out_.serial.lines.push_back(std::move(l));
}

void SessionBuilder::finish() {
    if (!kinds_named_) lost_name_ = out_.trace.intern("lost_events");
    kinds_named_ = true;
    gaps_before(UINT64_MAX);
    find_drop_windows(out_.trace);
    out_.serial.source = where_;
}

}  // namespace irqflow::storage
