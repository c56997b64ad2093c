#include "legend.hpp"

#include <cstdio>
#include <set>

namespace irqflow::gui {

std::vector<LegendGroup> legend(const Timeline& tl) {
    std::vector<LegendGroup> g;
    g.push_back({"vCPU state (top band)",
                 {{Glyph::Band, state_color(VcpuState::Guest), "in the guest"},
                  {Glyph::Band, state_color(VcpuState::Host), "in the host (after an exit)"},
                  {Glyph::Band, state_color(VcpuState::Halted), "halted (HLT exit until the next entry)"}}});
    LegendGroup exits{"exits (tick row), by reason", {}};
    for (const auto& [reason, colour] : tl.exit_colors) exits.entries.push_back({Glyph::Tick, colour, reason});
    const char* shades[4] = {"1 exit per pixel", "2-7 exits per pixel", "8-63 exits per pixel", "64+ exits per pixel"};
    for (int i = 0; i < 4; ++i) exits.entries.push_back({Glyph::Tick, kExitDensity[i], std::string("zoomed out: ") + shades[i]});
    g.push_back(std::move(exits));
    std::set<int> vectors;
    for (const auto& lane : tl.lanes)
        for (const auto& bar : lane.isr) vectors.insert(bar.vector);
    LegendGroup isr{"in service (ISR rows by nesting depth), by vector", {}};
    for (int v : vectors) {
        char name[16];
        std::snprintf(name, sizeof name, "0x%02x", v);
        isr.entries.push_back({Glyph::Bar, vector_color(v), name});
    }
    g.push_back(std::move(isr));
    g.push_back({"injections and EOIs (marker row)",
                 {{Glyph::Injection, kInjectionColor, "injection (kvm_inj_virq)"},
                  {Glyph::NestedInjection, kNestedInjectionColor, "L1 injects into L2 (nested entry)"},
                  {Glyph::RealEoi, kRealEoiColor, "EOI that exited (APIC write or MSR)"},
                  {Glyph::PvEoi, kPvEoiColor, "PV EOI (no exit)"},
                  {Glyph::Strip, kInjectionColor, "zoomed out: injections in the pixel"},
                  {Glyph::Strip, kRealEoiColor, "zoomed out: EOIs in the pixel (PV EOI blue)"}}});
    g.push_back({"IPIs (sender to receiver)",
                 {{Glyph::IpiLine, kPvIpiColor, "PV IPI hypercall"},
                  {Glyph::IpiLine, kIcrIpiColor, "ICR write or Hyper-V IPI"},
                  {Glyph::Strip, kPvIpiColor | 0xff000000u, "zoomed out: the sender's sends"}}});
    g.push_back({"checks", {{Glyph::Finding, kFindingColor, "finding (N / P to step)"}, {Glyph::Cursor, kCursorColor, "inspector's pinned time"},
                            {Glyph::Cursor, kMarkAColor, "marker A (Ctrl+click)"},
                            {Glyph::Cursor, kMarkBColor, "marker B (Ctrl+right-click)"},
                            {Glyph::Lost, kLostColor, "lost events (ring-buffer drop): every vCPU unsynced"},
                            {Glyph::Strip, kUnsyncedColor, "vCPU state not proven (unsynced): its events not checked"}}});
    return g;
}

}  // namespace irqflow::gui
