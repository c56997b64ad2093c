// The guest's clock onto the host's when the TSC cannot say (capture/README.md, "Guest
// traces"): both traces in ns on clocks of their own (the host's `local`, the guest's
// `local` or another ns clock), one unknown offset between them. Every guest event
// happens while its vCPU runs guest code, which on the host is between a kvm_entry of
// that vCPU and its next kvm_exit; an offset is possible only if it puts every guest
// event inside such a stretch. Each guest event narrows the offsets left; what remains is
// the estimate, its width the bound. On samples/hostguest*, whose TSC gives the truth,
// the offsets that fit span 25.8 µs around it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "guest_clock_methods.hpp"

namespace irqflow {
namespace {

struct Span {
    std::int64_t lo, hi;
};

// Stops a search that keeps many offsets alive for long (a trace with few exits): past
// this many steps the clocks are called ambiguous rather than searched on.
constexpr std::uint64_t kMaxSteps = 200'000'000;
// Offsets that still fit after every event but lie further apart than this are not one
// answer (a periodic pattern can fit twice).
constexpr std::int64_t kMaxWidthNs = 1'000'000;

std::string us(std::int64_t ns) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f µs", static_cast<double>(ns) / 1e3);
    return b;
}

}  // namespace

GuestClock align_by_guest_time(const Trace& host, GuestTrace& guest) {
    auto none = [&](std::string why) { return not_aligned(guest, std::move(why)); };
    // each vCPU's stretches in guest mode: a kvm_entry to its vCPU's next kvm_exit (an
    // entry whose exit was lost runs to the vCPU's next entry: lenient, never wrong)
    std::set<std::int32_t> vms;
    std::map<int, std::vector<Span>> bands;
    std::map<int, std::int64_t> open;
    for (const Event& e : host.events) {
        if ((e.kind != EventKind::Entry && e.kind != EventKind::Exit) || e.vcpu == kUnknownVcpu || e.vm == kUnknownVm) continue;
        vms.insert(e.vm.value());
        const int v = e.vcpu.value();
        const auto it = open.find(v);
        if (e.kind == EventKind::Entry) {
            if (it != open.end()) bands[v].push_back({it->second, e.ts.value()});
            open[v] = e.ts.value();
        } else if (it != open.end()) {
            bands[v].push_back({it->second, e.ts.value()});
            open.erase(it);
        }
    }
    if (vms.size() != 1)
        return none(vms.empty() ? "the host trace shows no vCPU entering the guest (kvm_entry/kvm_exit): nothing to put the guest's events in"
                                : "the host trace runs " + std::to_string(vms.size()) + " VMs: which one the guest trace is from is not known");
    std::vector<const GuestEvent*> events;  // on a vCPU the host shows, in guest time order
    for (const GuestEvent& g : guest.events)
        if (bands.count(g.vcpu.value())) events.push_back(&g);
    if (events.empty()) return none("no guest event is on a vCPU the host trace shows running");
    std::stable_sort(events.begin(), events.end(), [](const GuestEvent* a, const GuestEvent* b) { return a->guest_ts < b->guest_ts; });

    // host = guest + s. The first event gives one candidate range of s per stretch of its
    // vCPU; each later event keeps of a range what puts it inside a stretch of its own.
    std::uint64_t steps = 0;
    auto narrow = [&](std::vector<Span> alive) {
        for (std::size_t i = 1; i < events.size() && !alive.empty(); ++i) {
            const auto& b = bands[events[i]->vcpu.value()];
            const std::int64_t g = events[i]->guest_ts.value();
            std::vector<Span> next;
            for (const Span& s : alive) {
                // stretches overlapping [g + s.lo, g + s.hi]
                auto it = std::lower_bound(b.begin(), b.end(), g + s.lo, [](const Span& x, std::int64_t t) { return x.hi < t; });
                for (; it != b.end() && it->lo <= g + s.hi; ++it) {
                    ++steps;
                    const Span kept{std::max(s.lo, it->lo - g), std::min(s.hi, it->hi - g)};
                    if (kept.lo <= kept.hi) next.push_back(kept);
                }
            }
            alive = std::move(next);
            if (steps > kMaxSteps) return std::vector<Span>{{INT64_MIN, INT64_MAX}};
        }
        return alive;
    };
    std::vector<Span> fits;
    const std::int64_t g0 = events.front()->guest_ts.value();
    for (const Span& b : bands[events.front()->vcpu.value()]) {
        for (const Span& s : narrow({{b.lo - g0, b.hi - g0}})) fits.push_back(s);
        if (steps > kMaxSteps) return none("the host's trace leaves too many offsets possible for long (few exits?): not aligned");
    }
    if (fits.empty())
        return none("no single offset puts every guest event inside its vCPU's time in the guest (kvm_entry to kvm_exit): the clocks drift "
                    "apart, or the host trace lost entries and exits; trace both on x86-tsc for the exact method");
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (const Span& s : fits) {
        lo = std::min(lo, s.lo);
        hi = std::max(hi, s.hi);
    }
    if (hi - lo > kMaxWidthNs)
        return none("offsets " + us(hi - lo) + " apart both put every guest event inside its vCPU's time in the guest: ambiguous");
    const std::int64_t s = lo + (hi - lo) / 2;
    GuestClock c;
    std::set<int> covered;
    for (GuestEvent& g : guest.events) {
        if (!bands.count(g.vcpu.value())) {
            ++c.unaligned;
            continue;
        }
        g.ts = TimestampNs(g.guest_ts.value() + s);
        g.aligned = true;
        covered.insert(g.vcpu.value());
        ++c.aligned;
    }
    sort_by_host_time(guest);
    c.method = GuestClock::Method::GuestTime;
    c.vm = VmId(*vms.begin());
    c.bound_ns = (hi - lo + 1) / 2;
    c.detail = "guest time: offset " + std::to_string(s) + " ns ±" + us(c.bound_ns) + " (the offsets that put all " + std::to_string(events.size()) +
               " guest events inside their vCPU's time in the guest span " + us(hi - lo) + "); " + std::to_string(c.aligned) +
               " guest events on vCPUs " + vcpu_list(covered) + " aligned";
    if (c.unaligned) c.detail += ", " + std::to_string(c.unaligned) + " on vCPUs the host trace never shows running not";
    return c;
}

}  // namespace irqflow
