// Builds small traces by hand for the replay unit tests: one VM, vCPUs on threads
// 100+i with APIC id = index, events in the order they are added, 1 µs apart.
#pragma once
#include <initializer_list>
#include <vector>

#include "irqflow/capture/readers.hpp"

namespace irqflow::test {

class TraceBuilder {
public:
    // APIC ids listed here get a vCPU (index = position); others are absent.
    explicit TraceBuilder(std::vector<std::uint32_t> apic_ids, bool from_boot = true) : apics_(std::move(apic_ids)) {
        for (std::size_t i = 0; i < apics_.size(); ++i) {
            entry(static_cast<int>(i), from_boot && i == 0 ? 0xfff0 : 0x1000);
            exit(static_cast<int>(i), 0x7c);
            msr(static_cast<int>(i), 0x80f, 0x1ff);  // software-enable the local APIC
        }
    }
    explicit TraceBuilder(int vcpus, bool from_boot = true) : TraceBuilder(ids(vcpus), from_boot) {}

    TraceBuilder& entry(int vcpu, std::int64_t rip = 0x1000) { return add(vcpu, EventKind::Entry, {{0, vcpu}, {1, rip}}); }
    TraceBuilder& exit(int vcpu, std::int64_t reason = 0x7c) {  // SVM codes: 0x7c msr, 0x78 hlt, 0x64 vintr
        return add(vcpu, EventKind::Exit, {{0, reason}, {1, 2}, {7, vcpu}});
    }
    // Accept emitted on `from`'s thread (default: the destination's own).
    TraceBuilder& accept(std::uint32_t apic, int vec, int from = -1, bool level = false, int dm = 0) {
        int thread = from >= 0 ? from : index_of(apic);
        return add(thread, EventKind::ApicAcceptIrq, {{0, apic}, {1, dm}, {2, level}, {3, vec}});
    }
    TraceBuilder& inject(int vcpu, int vec, bool reinjected = false) {
        return add(vcpu, EventKind::InjVirq, {{0, vec}, {1, 0}, {2, reinjected}});
    }
    TraceBuilder& eoi(int vcpu, int vec) { return add(vcpu, EventKind::Eoi, {{0, apics_[static_cast<std::size_t>(vcpu)]}, {1, vec}}); }
    TraceBuilder& pv_eoi(int vcpu, int vec) {
        return add(vcpu, EventKind::PvEoi, {{0, apics_[static_cast<std::size_t>(vcpu)]}, {1, vec}});
    }
    TraceBuilder& msr(int vcpu, std::int64_t ecx, std::int64_t data) {
        return add(vcpu, EventKind::Msr, {{0, 1}, {1, ecx}, {2, data}, {3, 0}});
    }
    TraceBuilder& x2apic_eoi(int vcpu, int vec) { eoi(vcpu, vec); return msr(vcpu, 0x80b, 0); }
    TraceBuilder& hypercall(int vcpu, std::int64_t nr, std::uint64_t a0, std::uint64_t a1, std::uint64_t a2, std::uint64_t a3) {
        return add(vcpu, EventKind::Hypercall,
                   {{0, nr}, {1, static_cast<std::int64_t>(a0)}, {2, static_cast<std::int64_t>(a1)},
                    {3, static_cast<std::int64_t>(a2)}, {4, static_cast<std::int64_t>(a3)}});
    }
    // kvm_apic_ipi: dest, vector, delivery mode, logical?, shorthand
    TraceBuilder& icr(int vcpu, std::uint32_t dest, int vec, int dm = 0, bool logical = false, int shorthand = 0) {
        return add(vcpu, EventKind::ApicIpi, {{0, dest}, {1, vec}, {2, dm}, {3, logical}, {4, 1}, {5, 0}, {6, shorthand}});
    }
    TraceBuilder& ioapic(int pin, std::uint32_t dst, int vec, bool level) {
        return add(-1, EventKind::IoapicSetIrq, {{0, pin}, {1, dst}, {2, vec}, {3, 0}, {4, 0}, {5, level}, {6, 0}, {7, 0}});
    }
    // HvCallSendSyntheticClusterIpi (processor mask = VP indices) and its _ex form, whose
    // sparse banks the tracepoint does not show
    TraceBuilder& hv_send_ipi(int vcpu, int vec, std::uint64_t mask) {
        return add(vcpu, EventKind::HvSendIpi, {{slot::hv_ipi_vector, vec}, {slot::hv_ipi_processor_mask, static_cast<std::int64_t>(mask)}});
    }
    TraceBuilder& hv_send_ipi_ex(int vcpu, int vec) { return add(vcpu, EventKind::HvSendIpiEx, {{slot::hv_ipi_vector, vec}}); }
    TraceBuilder& wakeup(int vcpu) { return add(vcpu, EventKind::VcpuWakeup, {{0, 1000}, {1, 1}, {2, 1}}); }
    TraceBuilder& lost(int cpu) {
        Event e;
        e.kind = EventKind::Lost;
        e.cpu = HostCpu(cpu);
        e.ts = TimestampNs(now());
        e.record = record_;
        e.name_id = t_.intern("lost_events");
        e.set(0, 10);
        t_.events.push_back(e);
        return *this;
    }
    // Moves the clock forward (liveness tests).
    TraceBuilder& wait_ns(std::int64_t ns) {
        ts_ += ns;
        return *this;
    }
    Trace build() {
        Trace t = t_;
        attribute(t);
        for (auto& vm : t.vms)
            for (auto& v : vm.vcpus) {
                v.apic = ApicId(apics_[static_cast<std::size_t>(v.id.value())]);
                v.apic_from_trace = true;
            }
        return t;
    }

private:
    static std::vector<std::uint32_t> ids(int n) {
        std::vector<std::uint32_t> v;
        for (int i = 0; i < n; ++i) v.push_back(static_cast<std::uint32_t>(i));
        return v;
    }
    int index_of(std::uint32_t apic) const {
        for (std::size_t i = 0; i < apics_.size(); ++i)
            if (apics_[i] == apic) return static_cast<int>(i);
        return -1;
    }
    std::int64_t now() { return ts_ += 1000; }
    TraceBuilder& add(int thread, EventKind k, std::initializer_list<std::pair<int, std::int64_t>> fields) {
        Event e;
        e.kind = k;
        e.name_id = t_.intern(kind_info(k).name);
        e.tid = Tid(thread >= 0 ? 100 + thread : 50);  // 50: the VMM's I/O thread
        e.cpu = HostCpu(thread >= 0 ? thread % 2 : 0);
        e.ts = TimestampNs(now());
        e.record = record_++;
        for (auto [slot, v] : fields) e.set(slot, v);
        t_.events.push_back(e);
        return *this;
    }

    std::vector<std::uint32_t> apics_;
    Trace t_;
    std::int64_t ts_ = 1'000'000'000;
    std::uint64_t record_ = 0;
};

}  // namespace irqflow::test
