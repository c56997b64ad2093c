#include "guest_spans.hpp"

#include <algorithm>
#include <map>

namespace irqflow::gui {
namespace {

std::string hex(int v) {
    char b[8];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

}  // namespace

void add_guest_spans(Timeline& tl, const GuestTrace& guest, VmId vm) {
    LaneLookup lane_of(tl);
    std::map<std::string, std::uint32_t> name_ids;
    auto name = [&](const std::string& n) {
        const auto [it, added] = name_ids.try_emplace(n, static_cast<std::uint32_t>(tl.guest_names.size()));
        if (added) tl.guest_names.push_back(n);
        return it->second;
    };
    GuestVectorMap vectors;  // the guest's IRQ → vector map so far
    struct Open {
        std::int64_t start;
        int vector;
        std::uint32_t name;
        GuestEventKind exit;
    };
    std::map<int, std::vector<Open>> open;  // per CPU: handlers entered, innermost last
    auto close = [&](int cpu, Open o, std::int64_t end) {
        const int l = lane_of(vm, VcpuId(cpu));
        if (l < 0) return;
        tl.lanes[static_cast<std::size_t>(l)].guest.push_back({o.start, end, o.vector, o.name, 0});
    };
    for (const GuestEvent& g : guest.events) {
        if (!g.aligned) continue;
        const int cpu = g.vcpu.value();
        switch (g.kind) {
        case GuestEventKind::VectorConfig:
        case GuestEventKind::VectorUpdate:
            vectors.apply(g);
            break;
        case GuestEventKind::VectorEntry: {
            std::string n = g.name_id < guest.names.size() ? guest.names[g.name_id] : "handler";
            if (n.size() > 6 && n.ends_with("_entry")) n.resize(n.size() - 6);
            open[cpu].push_back({g.ts.value(), g.vector.value(), name(n), GuestEventKind::VectorExit});
            break;
        }
        case GuestEventKind::IrqEntry: {
            const int vector = vectors.vector_of(cpu, g.irq).value_or(-1);
            const auto irq_name = guest.irq_names.find(g.irq);
            const std::string n = (irq_name == guest.irq_names.end() ? "irq" : irq_name->second) + " (irq " + std::to_string(g.irq) +
                                  (vector >= 0 ? ", " + hex(vector) : "") + ")";
            open[cpu].push_back({g.ts.value(), vector, name(n), GuestEventKind::IrqExit});
            break;
        }
        case GuestEventKind::VectorExit:
        case GuestEventKind::IrqExit: {
            auto& stack = open[cpu];
            // the innermost open handler of this kind ends (an exit whose entry came before
            // the guest's trace began ends nothing)
            for (auto it = stack.rbegin(); it != stack.rend(); ++it)
                if (it->exit == g.kind) {
                    close(cpu, *it, g.ts.value());
                    stack.erase(std::next(it).base());
                    break;
                }
            break;
        }
        }
    }
    std::int64_t end = tl.t0;  // the guest's last aligned event (the unaligned come last, on their own clock)
    for (const GuestEvent& g : guest.events)
        if (g.aligned) end = std::max(end, g.ts.value());
    for (auto& [cpu, stack] : open)
        for (const auto& o : stack) close(cpu, o, end);
    for (auto& L : tl.lanes) {
        std::sort(L.guest.begin(), L.guest.end(), [](const GuestSpan& a, const GuestSpan& b) { return a.start < b.start; });
        // the arrow's start: the last injection of the span's vector before it
        std::map<int, std::int64_t> last_injection;
        std::size_t m = 0;
        for (auto& s : L.guest) {
            for (; m < L.markers.size() && L.markers[m].ts <= s.start; ++m)
                if (L.markers[m].kind == Marker::Injection) last_injection[L.markers[m].vector] = L.markers[m].ts;
            if (const auto it = last_injection.find(s.vector); it != last_injection.end()) s.inject_ts = it->second;
        }
        L.guest_index.build(L.guest, [](const GuestSpan& s) { return s.start; }, tl.t0, tl.t1);
    }
    tl.guest = true;
}

}  // namespace irqflow::gui
