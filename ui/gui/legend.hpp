// The key of every colour and glyph the timeline draws, built from the same constants
// and colour functions the renderer uses (timeline_model.hpp), so the key cannot drift from
// the picture. No ImGui here: overlays.cpp draws it, tests read it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "timeline_model.hpp"

namespace irqflow::gui {

enum class Glyph : std::uint8_t { Band, Tick, Bar, Injection, NestedInjection, RealEoi, PvEoi, Strip, IpiLine, Finding, Cursor, Lost };

struct LegendEntry {
    Glyph glyph;
    std::uint32_t colour;
    std::string label;
};
struct LegendGroup {
    std::string title;
    std::vector<LegendEntry> entries;
};

// Groups in lane order: states, exits (each reason the trace has), ISR bars (each
// vector the trace has), injections and EOIs, IPIs, findings and the cursor.
std::vector<LegendGroup> legend(const Timeline& tl);

}  // namespace irqflow::gui
