// The guest's clock onto the host's (capture/README.md, "Guest traces").
//
// A guest that traces with x86-tsc stamps its events with the TSC it reads, which is the
// host's TSC plus the offset KVM programs for its vCPU (kvm_write_tsc_offset says which,
// and when). A host that records with `-C tsc2nsec` stamps with its own TSC and stores
// how libtracecmd turns that into ns (TSC2NSEC). So guest cycles − offset = host cycles,
// and host cycles × mult >> shift = the host trace's time of the same instant: exact. A
// host recorded with `-C x86-tsc` keeps the cycles themselves (mult 1, shift 0).
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "irqflow/capture/guest.hpp"
#include "guest_clock_methods.hpp"
#include "printed_fields.hpp"

namespace irqflow {
namespace {

struct OffsetChange {
    TimestampNs at;       // host time of the write
    std::uint64_t offset; // the vCPU's TSC offset from then on (two's complement)
};

constexpr std::string_view kTscOffsetKeys[] = {"vcpu", "prev", "next"};  // kvm_write_tsc_offset

std::int64_t tsc_to_ns(std::uint64_t cycles, const TscToNs& t) {
    return static_cast<std::int64_t>((static_cast<unsigned __int128>(cycles) * t.mult) >> t.shift);
}

}  // namespace

// "0-3" or "0, 2, 5" for the vCPUs a message names.
std::string vcpu_list(const std::set<int>& v) {
    if (v.empty()) return "none";
    if (*v.rbegin() - *v.begin() + 1 == static_cast<int>(v.size()))
        return v.size() == 1 ? std::to_string(*v.begin()) : std::to_string(*v.begin()) + "-" + std::to_string(*v.rbegin());
    std::string s;
    for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
}


GuestClock not_aligned(const GuestTrace& guest, std::string why) {
    GuestClock c;
    c.detail = std::move(why);
    c.unaligned = guest.events.size();
    return c;
}

void sort_by_host_time(GuestTrace& guest) {
    std::stable_sort(guest.events.begin(), guest.events.end(), [](const GuestEvent& a, const GuestEvent& b) {
        return a.aligned != b.aligned ? a.aligned : a.ts < b.ts;
    });
}

GuestClock align_guest_clock(const Trace& host, GuestTrace& guest) {
    GuestClock c;
    auto none = [&](std::string why) { return not_aligned(guest, std::move(why)); };
    // A host recorded (or reported) in x86-tsc cycles: its times are the TSC itself.
    const bool cycles = !host.meta.tsc2nsec && host.meta.clock == "x86-tsc";
    const bool guest_cycles = guest.meta.clock == "x86-tsc";
    if (!host.meta.tsc2nsec && !cycles) {
        // both in ns on clocks of their own: the offset from where the guest's events can be
        if (!guest_cycles && guest.meta.clock != "counter") return align_by_guest_time(host, guest);
        return none("the host trace's times are not TSC cycles (clock '" + host.meta.clock +
                    "', no TSC2NSEC) while the guest's are: record the host with `trace-cmd record -C tsc2nsec` (or -C x86-tsc)");
    }
    if (!guest_cycles && !cycles && guest.meta.clock != "counter") return align_by_guest_time(host, guest);
    const TscToNs conv = cycles ? TscToNs{.mult = 1, .shift = 0, .offset = 0} : *host.meta.tsc2nsec;
    // trace-cmd writes 0 here; what libtracecmd does with another offset was never seen
    // in a capture, so it is not guessed at
    if (conv.offset != 0 || conv.mult == 0 || conv.shift > 63)
        return none("the host trace's TSC2NSEC option (×" + std::to_string(conv.mult) + " >> " + std::to_string(conv.shift) +
                    ", offset " + std::to_string(conv.offset) + ") is not one irqflow knows how to apply");
    if (guest.meta.clock != "x86-tsc")
        return none("the guest trace's clock is '" + guest.meta.clock + "', not x86-tsc: trace the guest with trace_clock=x86-tsc");

    std::map<int, std::vector<OffsetChange>> changes;  // vCPU → writes in host time order
    std::set<std::int32_t> vms;
    std::uint64_t writes = 0;
    const auto write_name = [&] {
        for (std::size_t i = 0; i < host.name_count(); ++i)
            if (host.name(static_cast<std::uint16_t>(i)) == "kvm_write_tsc_offset") return static_cast<int>(i);
        return -1;
    }();
    for (const Event& e : host.events) {
        if (e.kind != EventKind::Other || static_cast<int>(e.name_id) != write_name) continue;
        const PrintedFields f(host.raw_of(e), kTscOffsetKeys);
        const auto vcpu = f.number<int>("vcpu");
        const auto next = f.number<std::uint64_t>("next");
        if (!vcpu || !next || *vcpu < 0) continue;
        changes[*vcpu].push_back({e.ts, *next});
        vms.insert(e.vm.value());
        ++writes;
    }
    if (changes.empty())
        return none("the host trace has no kvm_write_tsc_offset (its info kept): record the host's kvm events from before "
                    "the VM starts");
    if (vms.size() > 1)
        return none("the host trace sets TSC offsets for " + std::to_string(vms.size()) +
                    " VMs: which one the guest trace is from is not known");

    std::set<int> covered, missing;
    for (GuestEvent& g : guest.events) {
        const auto it = changes.find(g.vcpu.value());
        if (it == changes.end()) {
            missing.insert(g.vcpu.value());
            ++c.unaligned;
            continue;
        }
        const auto& list = it->second;
        // the offset in force when the event happened: the last write before the host
        // time it maps to under that very offset
        std::int64_t ns = 0;
        for (std::size_t i = list.size(); i-- > 0;) {
            ns = tsc_to_ns(static_cast<std::uint64_t>(g.guest_ts.value()) - list[i].offset, conv);
            if (i == 0 || ns >= list[i].at.value()) break;
        }
        g.ts = TimestampNs(ns);
        g.aligned = true;
        covered.insert(g.vcpu.value());
        ++c.aligned;
    }
    sort_by_host_time(guest);

    std::set<std::uint64_t> distinct;
    for (const auto& [v, list] : changes)
        for (const auto& w : list) distinct.insert(w.offset);
    std::string offsets = distinct.size() == 1 ? "offset " + std::to_string(static_cast<std::int64_t>(*distinct.begin())) + " cycles"
                                               : std::to_string(distinct.size()) + " offsets";
    std::set<int> with_offsets;
    for (const auto& [v, list] : changes) with_offsets.insert(v);
    c.method = GuestClock::Method::Tsc;
    c.vm = VmId(*vms.begin());
    c.detail = "tsc: exact; " + offsets + " (" + std::to_string(writes) + " kvm_write_tsc_offset on vCPUs " + vcpu_list(with_offsets) +
               (cycles ? std::string("), host times in TSC cycles") : "), host TSC2NSEC x" + std::to_string(conv.mult) + " >> " + std::to_string(conv.shift)) +
               "; " + std::to_string(c.aligned) +
               " guest events on vCPUs " + vcpu_list(covered) + " aligned";
    if (!missing.empty())
        c.detail += ", " + std::to_string(c.unaligned) + " on vCPUs " + vcpu_list(missing) + " not (no offset for them in the host trace)";
    return c;
}

}  // namespace irqflow
