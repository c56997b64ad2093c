// The compact event store gives back exactly the events it was given, whatever their
// values, and stays within its size budget on real captures.
#include <catch2/catch.hpp>

#include <limits>
#include <string>

#include "irqflow/capture/event_store.hpp"
#include "irqflow/capture/readers.hpp"

using namespace irqflow;

namespace {

bool same(const Event& a, const Event& b) {
    return a.ts == b.ts && a.record == b.record && a.tid == b.tid && a.cpu == b.cpu && a.vcpu == b.vcpu && a.vm == b.vm &&
           a.kind == b.kind && a.name_id == b.name_id && a.present == b.present && a.f == b.f &&
           (a.kind != EventKind::Other || (a.raw_off == b.raw_off && a.raw_len == b.raw_len));
}

Event event(std::int64_t ts, std::uint64_t record, EventKind kind) {
    Event e;
    e.ts = TimestampNs(ts);
    e.record = record;
    e.kind = kind;
    e.tid = Tid(100);
    e.cpu = HostCpu(1);
    return e;
}

}  // namespace

TEST_CASE("the event store round-trips extreme values in every column", "[capture][event-store]") {
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();
    std::vector<Event> in;
    in.push_back(event(5'000'000'000, 0, EventKind::Exit));
    in.back().set(slot::exit_reason, 0x7b);
    in.back().set(slot::exit_rip, static_cast<std::int64_t>(0xffffffff81000000ull));
    in.back().set(slot::exit_info2, kMin);
    in.back().set(slot::exit_vcpu_id, kMax);
    in.push_back(event(5'000'000'000 + 10'000'000'000, 1, EventKind::Entry));  // > 4.29 s later: a wide timestamp
    in.push_back(event(4'999'999'999, 70'000, EventKind::Eoi));                // earlier than its chunk, record far ahead
    in.back().set(slot::eoi_vector, -1);
    in.push_back(event(kMin, 70'001, EventKind::Lost));
    in.back().cpu = HostCpu(-1);
    in.back().set(slot::lost_count, -1);
    in.push_back(event(kMax, std::numeric_limits<std::uint64_t>::max(), EventKind::Other));
    in.back().cpu = HostCpu(std::numeric_limits<std::int32_t>::max());
    in.back().tid = Tid(std::numeric_limits<std::int32_t>::min());
    in.back().raw_off = 1ull << 40;
    in.back().raw_len = 4096;
    in.back().name_id = 65535;
    for (int i = 0; i < 1000; ++i) {  // several chunks, fields absent and present
        Event e = event(6'000'000'000 + i, 70'002 + static_cast<std::uint64_t>(i), i % 3 ? EventKind::InjVirq : EventKind::Pio);
        if (i % 2) e.set(0, i);
        e.vm = VmId(i % 5);
        e.vcpu = VcpuId(i % 7);
        in.push_back(e);
    }
    EventStore s;
    s.assign(in);
    REQUIRE(s.size() == in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        INFO("event " << i);
        CHECK(same(s[i], in[i]));
        CHECK(s.ts(i) == in[i].ts);
        CHECK(s.record(i) == in[i].record);
        CHECK(s.cpu(i) == in[i].cpu);
        CHECK(s.vcpu(i) == in[i].vcpu);
    }
    const EventStore copy = s;  // copies are deep
    s.set_owner(0, VmId(3), VcpuId(9));
    CHECK(copy[0].vm == kUnknownVm);
    CHECK(s[0].vm == VmId(3));
    CHECK(s[0].vcpu == VcpuId(9));
    std::size_t n = 0;
    for (const Event e : copy) CHECK(same(e, in[n++]));
    CHECK(n == in.size());
    // The chunked pass decodes what indexing does, from any start to any end.
    for (auto [first, last] : {std::pair<std::size_t, std::size_t>{0, in.size()}, {3, 300}, {255, 257}, {700, in.size() + 5}}) {
        n = first;
        copy.for_each(first, last, [&](const Event& e) { CHECK(same(e, in[n++])); });
        CHECK(n == std::min(last, in.size()));
    }
}

TEST_CASE("the event store keeps more than 65535 distinct owners and searches its ordered columns", "[capture][event-store]") {
    EventStore s;
    for (int i = 0; i < 70'000; ++i) {
        Event e = event(i * 10, static_cast<std::uint64_t>(i), EventKind::Entry);
        e.vm = VmId(i / 1000);
        e.vcpu = VcpuId(i);
        s.push_back(e);
    }
    for (std::size_t i : {std::size_t{0}, std::size_t{65534}, std::size_t{65535}, std::size_t{69'999}}) {
        CHECK(s.vcpu(i) == VcpuId(static_cast<std::int32_t>(i)));
        CHECK(s.vm(i) == VmId(static_cast<std::int32_t>(i / 1000)));
    }
    s.set_owner(69'999, kUnknownVm, kUnknownVcpu);  // back from a wide owner to a narrow one
    CHECK(s[69'999].vcpu == kUnknownVcpu);
    s.set_owner(100, VmId(69), VcpuId(69'998));  // a wide owner in a chunk that had none
    std::size_t n = 0;
    s.for_each([&](const Event& e) {
        const std::size_t i = n++;
        const VcpuId want = i == 100 ? VcpuId(69'998) : i == 69'999 ? kUnknownVcpu : VcpuId(static_cast<std::int32_t>(i));
        if (e.vcpu != want || e.ts != TimestampNs(static_cast<std::int64_t>(i) * 10)) FAIL("event " << i << " decoded wrong");
    });
    CHECK(n == 70'000);
    CHECK(s[100].vm == VmId(69));
    CHECK(s.lower_bound_ts(TimestampNs(55)) == 6);
    CHECK(s.lower_bound_ts(TimestampNs(-1)) == 0);
    CHECK(s.lower_bound_ts(TimestampNs(1'000'000)) == s.size());
    CHECK(s.lower_bound_record(65'536) == 65'536);
}

TEST_CASE("a loaded capture takes at most 40 bytes per event, and trace.dat payloads are not copied",
          "[capture][event-store][samples]") {
    const Trace t = load_trace(std::string(IRQFLOW_SAMPLES) + "/pvspin.dat");
    // Block granularity (64 Ki events per column block) is charged in full: a small
    // capture pays for a whole last block.
    const double per_event = static_cast<double>(t.events.memory_bytes() + t.raw.capacity()) / static_cast<double>(t.events.size());
    INFO(per_event << " bytes per event over " << t.events.size() << " events");
    CHECK(per_event <= 40);
    CHECK(t.raw.empty());
}

TEST_CASE("a small store costs kilobytes, and one grown past each doubling of its first block keeps every event",
          "[capture][event-store]") {
    EventStore few;
    for (int i = 0; i < 50; ++i) few.push_back(event(1000 + i, static_cast<std::uint64_t>(i), EventKind::Exit));
    INFO(few.memory_bytes() << " bytes for 50 events");
    CHECK(few.memory_bytes() < 16 * 1024);  // a whole 64 Ki-event block per column was ~1.4 MB

    // Sizes on both sides of 256, 512, … 65536 (where the first block stops doubling)
    // and of the second block; each store checked as built, copied and moved.
    for (const std::size_t n : {255u, 256u, 257u, 4096u, 4097u, 65535u, 65536u, 65537u, 131073u}) {
        EventStore s;
        for (std::size_t i = 0; i < n; ++i) {
            Event e = event(static_cast<std::int64_t>(i) * 7, i, i % 3 ? EventKind::Exit : EventKind::Entry);
            e.set(0, static_cast<std::int64_t>(i) * 1000003);  // field bytes grow with i
            s.push_back(e);
        }
        const EventStore copy = s;
        const EventStore moved = EventStore(copy);
        REQUIRE(moved.size() == n);
        for (const EventStore* st : std::initializer_list<const EventStore*>{&s, &copy, &moved})
            for (std::size_t i = 0; i < n; i += (i < 70000 ? 1 : 13)) {
                Event want = event(static_cast<std::int64_t>(i) * 7, i, i % 3 ? EventKind::Exit : EventKind::Entry);
                want.set(0, static_cast<std::int64_t>(i) * 1000003);
                const Event got = (*st)[i];
                INFO("n=" << n << " i=" << i);
                REQUIRE(same(got, want));
            }
    }
}
