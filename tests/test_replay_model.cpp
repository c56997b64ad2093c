// The replay's model, one operation at a time: the local APIC, KVM's PV EOI, the
// IOAPIC, the 8259, the SynIC, and the whole model's reading of events (what decide()
// makes of them, what commit() changes, where IPIs go).
#include <catch2/catch.hpp>

#include "drop_windows.hpp"
#include "model/clock_skew.hpp"
#include "model/ioapic.hpp"
#include "model/kvm_pv_eoi.hpp"
#include "model/lapic.hpp"
#include "model/late_irr.hpp"
#include "model/model.hpp"
#include "model/pic8259.hpp"
#include "model/registers.hpp"
#include "model/synic.hpp"
#include "trace_builder.hpp"

using namespace irqflow;
using namespace irqflow::replay;
using irqflow::test::TraceBuilder;

TEST_CASE("Lapic: accept sets IRR and the trigger mode in TMR, a second edge coalesces", "[replay][model][lapic]") {
    Lapic a;
    CHECK_FALSE(a.accept(0x41, false));
    CHECK(a.irr().test(0x41));
    CHECK_FALSE(a.tmr().test(0x41));
    CHECK(a.accept(0x41, false));  // already pending: merged
    CHECK(a.irr().count() == 1);
    a.accept(0x22, true);
    CHECK(a.tmr().test(0x22));
    a.accept(0x22, false);  // re-routed as edge: TMR follows the last accept
    CHECK_FALSE(a.tmr().test(0x22));
}

TEST_CASE("Lapic: inject moves IRR to ISR, auto-EOI only leaves IRR, EOI clears one vector, eoi_nothing all", "[replay][model][lapic]") {
    Lapic a;
    a.accept(0x31, false);
    a.accept(0xd1, false);
    a.inject(0x31, false);
    CHECK_FALSE(a.irr().test(0x31));
    CHECK(a.isr().test(0x31));
    a.inject(0xd1, true);
    CHECK(a.irr().empty());
    CHECK_FALSE(a.isr().test(0xd1));
    a.accept(0x61, false);
    a.inject(0x61, false);
    a.eoi(0x61);
    CHECK(a.isr().highest() == 0x31);
    a.eoi_nothing();
    CHECK(a.isr().empty());
}

TEST_CASE("Lapic: PPR is the higher of TPR and the class in service, deliverable needs a class above it", "[replay][model][lapic]") {
    Lapic a;
    a.accept(0x41, false);
    CHECK(a.ppr() == 0);
    CHECK(a.deliverable() == 0x41);
    a.write_msr(apic::kMsrTpr, 0x50);
    CHECK(a.tpr() == 0x50);
    CHECK(a.ppr() == 0x50);
    CHECK(a.deliverable() == -1);
    a.write_register(apic::kRegTpr, 0x00);
    a.inject(0x41, false);
    a.accept(0x45, false);  // same class as the one in service: blocked
    CHECK(a.ppr() == 0x40);
    CHECK(a.deliverable() == -1);
    a.accept(0x51, false);
    CHECK(a.deliverable() == 0x51);
}

TEST_CASE("Lapic: the IRR count it keeps follows every operation on IRR", "[replay][model][lapic]") {
    Lapic a;
    auto same = [&](const char* step) {
        INFO(step);
        CHECK(a.irr_count() == a.irr().count());
    };
    same("fresh");
    for (int v : {0x31, 0xec, 0x61, 0x61, 0xd1}) a.accept(v, v == 0xd1);  // 0x61 twice: coalesced
    same("four pending");
    CHECK(a.irr_count() == 4);
    a.inject(0xec, false);
    same("injected");
    a.inject(0x40, false);  // not pending (an ExtINT, a late IRR write): IRR unchanged
    same("injected without being pending");
    a.inject(0x31, true);  // auto-EOI
    same("auto-EOI");
    VectorSet drop;
    drop.set(0x61);
    drop.set(0x99);  // not pending
    a.drop_pending(drop);
    same("dropped");
    CHECK(a.irr_count() == 1);
    VectorSet since;
    since.set(0x41);
    since.set(0x42);
    a.idle_since(since);
    same("idle");
    CHECK(a.irr_count() == 2);
    a.reset();
    same("reset");
    CHECK(a.irr_count() == 0);
}

TEST_CASE("Lapic: the ISR's top vector and count it keeps follow every operation on ISR", "[replay][model][lapic]") {
    Lapic a;
    // after each step, what the kept figures say equals ISR recounted
    auto same = [&](const char* step) {
        INFO(step);
        CHECK(a.isr_top() == a.isr().highest());
        CHECK(a.isr_count() == a.isr().count());
        CHECK(a.ppr() == apic_ppr(a.tpr(), a.isr()));
    };
    same("fresh");
    for (int v : {0x31, 0xec, 0x61, 0x61, 0xd1}) {  // 0x61 twice: served once
        a.accept(v, false);
        a.inject(v, false);
    }
    same("four in service");
    CHECK(a.isr_count() == 4);
    a.inject(0x22, true);  // auto-EOI: never in service
    same("auto-EOI");
    a.eoi(0xec);
    same("EOI of the top");
    CHECK(a.isr_top() == 0xd1);
    a.eoi(0x40);  // not in service: nothing changes
    same("EOI of a vector not in service");
    a.eoi(0x31);
    same("EOI below the top");
    a.retire_from(0x62);
    same("retired from 0x62");
    CHECK(a.isr_top() == 0x61);
    a.idle_since(VectorSet{});
    same("idle");
    a.accept(0x71, false);
    a.inject(0x71, false);
    a.eoi_nothing();
    same("EOI with nothing in service");
    a.accept(0x81, false);
    a.inject(0x81, false);
    a.reset();
    same("reset");
}

TEST_CASE("Lapic: SPIV, LVT0 and reset", "[replay][model][lapic]") {
    Lapic a;
    CHECK(a.software_enabled());  // a capture that starts mid-flight: assumed enabled
    a.write_register(apic::kRegSpiv, 0xff);
    CHECK_FALSE(a.software_enabled());
    a.write_msr(apic::kMsrSpiv, 0x1ff);
    CHECK(a.software_enabled());
    a.write_register(apic::kRegLvt0, 0x700);  // ExtINT, unmasked
    CHECK(a.lvt0_extint());
    a.write_register(apic::kRegLvt0, 0x10700);  // masked
    CHECK_FALSE(a.lvt0_extint());
    a.write_register(apic::kRegLvt0, 0x700);
    a.write_msr(apic::kMsrTpr, 0x20);
    a.accept(0x41, true);
    a.inject(0x41, false);
    a.reset();
    CHECK(a.irr().empty());
    CHECK(a.isr().empty());
    CHECK(a.tmr().empty());
    CHECK(a.tpr() == 0);
    CHECK_FALSE(a.software_enabled());
    CHECK_FALSE(a.lvt0_extint());
}

TEST_CASE("Lapic: xAPIC logical destinations by LDR and DFR", "[replay][model][lapic]") {
    Lapic a;
    CHECK_FALSE(a.logical_match(0x01).has_value());  // LDR never written: unknown
    a.write_register(apic::kRegLdr, 0x02000000);     // flat model, bit 1
    CHECK(a.logical_match(0x02) == true);
    CHECK(a.logical_match(0x05) == false);
    CHECK(a.logical_match(0xff) == true);  // broadcast
    a.write_register(apic::kRegDfr, 0x0fffffff);  // cluster model
    a.write_register(apic::kRegLdr, 0x12000000);  // cluster 1, member bit 1
    CHECK(a.logical_match(0x12) == true);
    CHECK(a.logical_match(0x22) == false);  // another cluster
    CHECK(a.logical_match(0x11) == false);  // another member
    a.reset();
    CHECK_FALSE(a.logical_match(0x12).has_value());
}

TEST_CASE("KvmPvEoi: current kernels arm before entry only with IRR settled, one cached vector, not IOAPIC-handled", "[replay][model][pveoi]") {
    KvmPvEoi p;
    p.write_msr(0x1001, false);
    CHECK(p.enabled());
    p.injected(0xec, false);
    p.before_entry(true, false, false);
    CHECK(p.armed());
    CHECK(p.peek_use().armed_current);
    p.use();
    CHECK_FALSE(p.armed());
    p.injected(0xec, false);
    p.before_entry(false, false, false);  // something pending
    CHECK_FALSE(p.armed());
    CHECK_FALSE(p.would_arm());
    p.before_entry(true, true, false);  // IOAPIC-handled
    CHECK_FALSE(p.armed());
    p.eoi();  // the cache is gone
    p.before_entry(true, false, false);
    CHECK_FALSE(p.armed());
    p.injected(0xec, false);
    p.write_msr(0, false);  // disabled: the counterfactual still arms
    p.before_entry(true, false, false);
    CHECK_FALSE(p.armed());
    CHECK(p.would_arm());
}

TEST_CASE("KvmPvEoi: a use says whether the Hyper-V VP assist page enabled it (the EOI assist) or KVM's MSR", "[replay][model][pveoi]") {
    KvmPvEoi p;
    p.write_msr(0x11d2001, true);
    CHECK(p.peek_use().hyperv_assist);
    p.write_msr(0x1001, false);
    CHECK_FALSE(p.peek_use().hyperv_assist);
    KvmPvEoi q;  // used before any MSR write: which page is not known, KVM's is assumed
    CHECK_FALSE(q.peek_use().hyperv_assist);
}

TEST_CASE("KvmPvEoi: current kernels arm only on the entry that injects (or re-injects), never on a later one", "[replay][model][pveoi]") {
    KvmPvEoi p;
    p.write_msr(0x1001, false);
    p.injected(0xec, false);
    p.before_entry(true, false, false);
    CHECK(p.armed());
    p.before_entry(true, false, false);  // an exit and an entry that processed no events
    CHECK_FALSE(p.armed());
    CHECK_FALSE(p.would_arm());
    p.reinjected();  // a delivery cut short goes in again: events processed, the cache still holds 0xec
    p.before_entry(true, false, false);
    CHECK(p.armed());
}

TEST_CASE("KvmPvEoi: the 2012 series arms at injection and disarms on nesting, use before any MSR write means enabled before the capture", "[replay][model][pveoi]") {
    KvmPvEoi p;
    p.write_msr(0x1001, false);
    p.injected(0xec, false);
    CHECK(p.peek_use().armed_2012);
    p.before_entry(true, false, true);  // a pending vector blocked by priority
    CHECK_FALSE(p.peek_use().armed_2012);
    p.injected(0x22, true);  // IOAPIC-handled
    CHECK_FALSE(p.peek_use().armed_2012);

    KvmPvEoi q;  // no MSR write in the trace
    q.injected(0xec, false);
    q.before_entry(true, false, false);
    CHECK_FALSE(q.armed());
    const auto use = q.peek_use();
    CHECK(use.enabled);
    CHECK(use.armed_current);  // as the last entry would have armed it
    q.use();
    CHECK(q.enabled());
}

TEST_CASE("Ioapic: level pins and the RTC pin routed to a vCPU make their vector IOAPIC-handled there", "[replay][model][ioapic]") {
    Ioapic io;
    Lapic l0;
    const ApicId id0(0), id1(1);
    io.route(10, {0x22, true, 0, false});  // level, physical APIC 0
    CHECK(io.handles(0x22, l0, id0));
    CHECK_FALSE(io.handles(0x22, l0, id1));
    io.route(4, {0x23, false, 0, false});  // edge
    CHECK_FALSE(io.handles(0x23, l0, id0));
    io.route(Ioapic::kRtcPin, {0x28, false, 0, false});  // RTC: tracked whatever the trigger
    CHECK(io.handles(0x28, l0, id0));
    io.route(11, {0x24, true, 0x01, true});  // logical: the guest's LDR decides
    CHECK_FALSE(io.handles(0x24, l0, id0));  // LDR unknown: not handled
    l0.write_register(apic::kRegLdr, 0x01000000);
    CHECK(io.handles(0x24, l0, id0));
    io.route(99, {0x30, true, 0, false});  // no such pin
    CHECK_FALSE(io.handles(0x30, l0, id0));
}

TEST_CASE("Ioapic: an EOI acking an edge pin nothing else explains marks the pin's ack notifier", "[replay][model][ioapic]") {
    Ioapic io;
    Lapic l0;
    const ApicId id0(0);
    io.route(2, {0x30, false, 0, false});  // the PIT's pin, edge
    CHECK_FALSE(io.handles(0x30, l0, id0));
    io.acked(2, 0x31);  // another vector's EOI: says nothing about this pin
    CHECK_FALSE(io.handles(0x30, l0, id0));
    io.acked(2, 0x30);
    CHECK(io.handles(0x30, l0, id0));
    io.route(2, {0x30, false, 1, false});  // re-routed to APIC 1: the notifier stays with the pin
    CHECK_FALSE(io.handles(0x30, l0, id0));
    CHECK(io.handles(0x30, l0, ApicId(1)));

    Ioapic shared;  // a level pin of the same vector explains the ack of the edge pin
    shared.route(4, {0x22, false, 0, false});
    shared.route(10, {0x22, true, 1, false});
    shared.acked(4, 0x22);
    CHECK_FALSE(shared.handles(0x22, l0, id0));
    shared.acked(-1, 0x22);  // out of range: ignored
    shared.acked(Ioapic::kPins, 0x22);
}

TEST_CASE("ClockSkew: the bound is the larger smallest delay of a CPU pair seen both ways", "[replay][model][skew]") {
    ClockSkew k;
    k.pair(0, 0, 5);  // same CPU: no information
    CHECK(k.pairs() == 0);
    k.pair(0, 1, 40'000);
    CHECK(k.bound_ns() == -1);  // one way only: unbounded
    k.pair(1, 0, 9'000);
    CHECK(k.bound_ns() == 40'000);
    k.pair(0, 1, 12'000);
    CHECK(k.bound_ns() == 12'000);
    k.pair(0, 1, 30'000);  // not a new minimum
    CHECK(k.bound_ns() == 12'000);
    k.pair(2, 3, 70'000);
    k.pair(3, 2, 1'000);
    CHECK(k.bound_ns() == 70'000);  // the worst CPU pair
    CHECK(k.pairs() == 6);
}

TEST_CASE("LateIrr: a raced accept marks its vector only when the injection shows a late request", "[replay][model][lateirr]") {
    LateIrr l;
    // 0xfc accepted again at `accept_ts` (record 7), injected at 160 (record 9) by a thread
    // whose previous event was at 140
    auto race = [&l](std::int64_t accept_ts = 150, std::int64_t skew = 0) {
        l.coalesced_accept(0xfc, accept_ts, 7);
        l.injected(0xfc, 160, 9, /*prev_own_ts*/ 140, skew);
    };
    race();
    l.reinjected(0xfc);  // the entry was cancelled: the request came late
    CHECK(l.mark().vector == 0xfc);
    CHECK(l.mark().accept_record == 7);
    CHECK(l.mark().first_inject_record == 9);
    l.used();
    CHECK(l.mark().vector == -1);

    race();
    l.entered();
    l.exited(true);  // an external-interrupt exit first: the kick of the late request
    CHECK(l.mark().vector == 0xfc);
    l.passed_over();
    CHECK(l.mark().vector == -1);

    race();
    l.entered();
    l.exited(false);  // no late request
    CHECK(l.mark().vector == -1);

    race(130);  // before the thread's previous event...
    l.reinjected(0xfc);
    CHECK(l.mark().vector == -1);
    race(130, 20);  // ...unless within the clock-skew bound of it
    l.reinjected(0xfc);
    CHECK(l.mark().vector == 0xfc);
    l.blocked();
    CHECK(l.mark().vector == -1);

    race();
    l.reinjected(0xfc);
    l.accepted(0xfc);  // accepted again: IRR holds it, no mark needed
    CHECK(l.mark().vector == -1);
}

TEST_CASE("Drop windows: a drop opens after its CPU's previous event, or at the start", "[replay][model][lost]") {
    TraceBuilder b(2, false);  // 6 events: each vCPU's entry, exit, SPIV write, vCPU i on CPU i
    b.exit(0).exit(1).entry(0).lost(1).entry(1).lost(0);
    const Trace t = b.build();
    // 6 exit cpu0, 7 exit cpu1, 8 entry cpu0, 9 lost cpu1, 10 entry cpu1, 11 lost cpu0
    REQUIRE(t.events[9].kind == EventKind::Lost);
    CHECK(t.drop_window_starts == std::vector<std::size_t>{8, 9});  // after CPU 1's exit, after CPU 0's entry
    DropWindows d(t.drop_window_starts);
    CHECK(d.next_start() == 8);
    CHECK(d.opening_before(7) == 0);
    CHECK(d.opening_before(8) == 1);
    CHECK(d.opening_before(9) == 1);
    CHECK(d.opening_before(11) == 0);
    CHECK(d.next_start() == static_cast<std::size_t>(-1));

    TraceBuilder c(1, false);  // CPU 0 only
    c.lost(1).entry(0);
    const Trace u = c.build();
    CHECK(u.drop_window_starts == std::vector<std::size_t>{0});  // nothing earlier on CPU 1: from the start
}

TEST_CASE("Pic8259: ICW1 then ICW2 programs the vector base, unprogrammed, any vector may be the PIC's", "[replay][model][pic]") {
    Pic8259 p;
    CHECK(p.delivers(0xec));
    p.write_port(0x20, 0x11);  // ICW1
    p.write_port(0x21, 0x30);  // ICW2: base 0x30
    CHECK(p.delivers(0x30));
    CHECK(p.delivers(0x37));
    CHECK_FALSE(p.delivers(0x38));
    p.write_port(0x21, 0x08);  // OCW1 (mask), not ICW2
    CHECK(p.delivers(0x30));
    p.write_port(0xa0, 0x11);
    p.write_port(0xa1, 0x38);
    CHECK(p.delivers(0x38));
}

TEST_CASE("Synic: SINT writes with the auto-EOI bit mark their vector", "[replay][model][synic]") {
    Synic s;
    s.write_sint((1 << 17) | 0xd1);
    CHECK(s.auto_eoi(0xd1));
    s.write_sint(0xd1);
    CHECK_FALSE(s.auto_eoi(0xd1));
    s.write_sint((1 << 17) | 0x05);  // a reserved vector is ignored
    CHECK_FALSE(s.auto_eoi(0x05));
}

namespace {

// The outcome of the last event of a built trace, after every event before it.
Effect last_effect(const Trace& t, Model& m) {
    for (std::size_t i = 0; i + 1 < t.events.size(); ++i) m.apply(t.events[i]);
    return m.apply(t.events.back());
}

}  // namespace

TEST_CASE("Model: what an injection is", "[replay][model]") {
    auto outcome = [](TraceBuilder& b) {
        const Trace t = b.build();
        Model m(t);
        return last_effect(t, m).outcome;
    };
    TraceBuilder pending(1);
    pending.accept(0, 0x41).inject(0, 0x41);
    CHECK(outcome(pending) == Outcome::Injected);
    TraceBuilder reinjected(1);
    reinjected.accept(0, 0x41).inject(0, 0x41).entry(0).exit(0).inject(0, 0x41, true);
    CHECK(outcome(reinjected) == Outcome::Reinject);
    TraceBuilder auto_eoi(1);
    auto_eoi.msr(0, 0x40000092, (1 << 17) | 0xd1).accept(0, 0xd1).inject(0, 0xd1);
    CHECK(outcome(auto_eoi) == Outcome::InjectedAutoEoi);
    TraceBuilder extint(1);
    extint.msr(0, apic::kMsrSpiv, 0xff).inject(0, 0x30);  // APIC software-disabled, vector not in IRR
    CHECK(outcome(extint) == Outcome::InjectExtInt);
    TraceBuilder bad(1);
    bad.inject(0, 300);
    CHECK(outcome(bad) == Outcome::InjectBadVector);
}

TEST_CASE("Model: INIT resets the destination's APIC and proves its state", "[replay][model]") {
    TraceBuilder b(2, false);  // mid-flight: nothing known
    b.accept(1, 0x41, 0).accept(1, 0, 0, false, apic::kDmInit);
    const Trace t = b.build();
    Model m(t);
    for (const auto& e : t.events) m.apply(e);
    const auto& v = m.vcpu(VcpuSlot(1));
    CHECK(v.synced);
    CHECK(v.lapic.irr().empty());
    CHECK_FALSE(m.vcpu(VcpuSlot(0)).synced);
}

TEST_CASE("Model: a real block after HLT proves ISR empty and IRR = what arrived since", "[replay][model]") {
    TraceBuilder b(1, false);
    b.inject(0, 0xec)                                 // in service, unknown to the model
        .entry(0).exit(0, 0x78)                       // HLT
        .accept(0, 0x41).wakeup(0);                   // woke up with 0x41 pending
    const Trace t = b.build();
    Model m(t);
    for (const auto& e : t.events) m.apply(e);
    const auto& v = m.vcpu(VcpuSlot(0));
    CHECK(v.synced);
    CHECK(v.lapic.isr().empty());
    CHECK(v.lapic.irr().test(0x41));
    CHECK(v.lapic.irr().count() == 1);
}

TEST_CASE("Model: lost events make every vCPU unknown and drop the IPIs in flight", "[replay][model]") {
    TraceBuilder b(2);
    b.exit(0).icr(0, 1, 0xfb).lost(0).entry(0);
    const Trace t = b.build();
    Model m(t);
    for (const auto& e : t.events) {
        m.apply(e);
        if (e.kind == EventKind::Entry) CHECK(m.completed().empty());
    }
    CHECK_FALSE(m.vcpu(VcpuSlot(0)).synced);
    CHECK_FALSE(m.vcpu(VcpuSlot(1)).synced);
}

TEST_CASE("Model: IPI destination sets and their completion at the sender's entry", "[replay][model][ipi]") {
    auto sent = [](TraceBuilder& b) {
        const Trace t = b.build();
        Model m(t);
        std::vector<IpiSend> done;
        for (const auto& e : t.events) {
            m.apply(e);
            for (const auto& s : m.completed()) done.push_back(s);
        }
        REQUIRE(done.size() == 1);
        return done.front();
    };
    auto ids = [](const ApicIdSet& s) { return std::vector<std::uint32_t>(s.begin(), s.end()); };
    TraceBuilder phys(4);
    phys.exit(0).icr(0, 2, 0xfb).accept(2, 0xfb, 0).entry(0);
    auto s = sent(phys);
    CHECK(ids(s.expected) == std::vector<std::uint32_t>{2});
    CHECK(ids(s.received) == std::vector<std::uint32_t>{2});
    CHECK(s.exact);
    TraceBuilder self(4);
    self.exit(0).icr(0, 0, 0xfd, 0, false, apic::kShorthandAllButSelf).entry(0);
    CHECK(ids(sent(self).expected) == std::vector<std::uint32_t>{1, 2, 3});
    TraceBuilder broadcast(4);
    broadcast.exit(1).icr(1, 0xff, 0xfd).entry(1);
    CHECK(ids(sent(broadcast).expected) == std::vector<std::uint32_t>{0, 1, 2, 3});
    TraceBuilder cluster(4);  // x2APIC cluster 0 (a destination above 0xff): member bits 1, 3 and 8 (no APIC 8 here)
    cluster.exit(0).icr(0, 0x10a, 0xfc, 0, true).entry(0);
    CHECK(ids(sent(cluster).expected) == std::vector<std::uint32_t>{1, 3});
    TraceBuilder cluster1(20);  // cluster 1 = APIC ids 16..31
    cluster1.exit(0).icr(0, (1u << 16) | 0b101, 0xfc, 0, true).entry(0);
    CHECK(ids(sent(cluster1).expected) == std::vector<std::uint32_t>{16, 18});
    TraceBuilder logical(2);  // xAPIC logical with no LDR written: only a lower bound
    logical.exit(0).icr(0, 0x02, 0xfc, 0, true).entry(0);
    CHECK_FALSE(sent(logical).exact);
    TraceBuilder pv(4);  // PV IPI: bitmap from base 1 (ids 1 and 3)
    pv.exit(0).hypercall(0, 10, 0b101, 0, 1, 0xfc).entry(0);
    s = sent(pv);
    CHECK(s.kind == IpiKind::PvIpiHypercall);
    CHECK(ids(s.expected) == std::vector<std::uint32_t>{1, 3});
}
