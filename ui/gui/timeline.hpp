// The GUI's data side (no ImGui here): per-vCPU lanes built once from the trace and
// the replay, and the fixed layout the view draws them with. Tests use the same
// layout and colours to check pixels.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "irqflow/capture/serial.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::gui {

enum class VcpuState : std::uint8_t { Guest, Host, Halted };

struct Band {
    std::int64_t start, end;
    VcpuState state;
};
struct ExitTick {
    std::int64_t ts;
    std::uint32_t color;
};
struct IsrBar {
    std::int64_t start, end;  // injection → EOI (or the end of the trace)
    int vector, depth;        // depth 1 = outermost
    bool pv_eoi;
};
struct Marker {
    // NestedInjection: L1 injects into L2 (a nested VM entry with event_inj valid)
    enum Kind : std::uint8_t { Injection, RealEoi, PvEoi, NestedInjection } kind;
    bool eoi() const { return kind == RealEoi || kind == PvEoi; }
    std::int64_t ts;
    int vector;
};
struct Lane {
    VmId vm;
    VcpuId vcpu;
    std::vector<Band> bands;      // time order, not overlapping
    std::vector<ExitTick> exits;  // time order
    std::vector<IsrBar> isr;      // by start
    std::vector<Marker> markers;  // time order
    // Level of detail: time spent in each state before band i, so a pixel column's
    // majority state is two searches and at most 2 x kStateBlock additions away at any
    // zoom. Kept per block of bands, not per band: a prefix per band took 24 B per
    // entry and exit (72 MB of a 10 M-event trace).
    static constexpr std::size_t kStateBlock = 16;
    std::vector<std::array<std::int64_t, 3>> state_time;  // before band kStateBlock * k
    std::array<std::int64_t, 3> time_before(std::size_t band) const {
        auto t = state_time[band / kStateBlock];
        for (std::size_t i = band / kStateBlock * kStateBlock; i < band; ++i)
            t[static_cast<std::size_t>(bands[i].state)] += bands[i].end - bands[i].start;
        return t;
    }
    std::array<std::vector<IsrBar>, 3> isr_by_depth;  // depth 1..3, each by start
    std::map<std::string, std::uint64_t> exits_by_reason;
};
struct Arrow {
    std::int64_t ts;
    int from_lane, to_lane;
    int vector;
    bool pv;  // PV IPI hypercall (vs ICR write / Hyper-V)
};
struct FindingMark {
    std::int64_t ts;
    int lane;  // -1: not tied to a vCPU
    std::string rule;
};
struct SerialMark {
    std::int64_t ts;
    std::string text;
};

struct Timeline {
    std::vector<Lane> lanes;
    std::vector<Arrow> arrows;
    std::vector<FindingMark> findings;
    std::vector<SerialMark> serial;
    std::int64_t t0 = 0, t1 = 1;
};

// The vector-dependent layers of every lane (ISR bars, markers) and the IPI arrows,
// restricted to one vector: built when the vector filter changes, so drawing a
// filtered view costs what drawing the whole one does.
struct VectorLayers {
    int vector = -1;
    std::vector<std::array<std::vector<IsrBar>, 3>> isr_by_depth;  // per lane
    std::vector<std::vector<Marker>> markers;                      // per lane
    std::vector<Arrow> arrows;
};
VectorLayers only_vector(const Timeline& tl, int vector);

Timeline build_timeline(const Trace& trace, const replay::ReplayResult& replay, const SerialLog* serial);

// Colours (ImGui's ABGR packing: 0xAABBGGRR).
std::uint32_t vector_color(int vector);
std::uint32_t state_color(VcpuState s);
inline constexpr std::uint32_t kFindingColor = 0xff0000ff;  // red
// exits per pixel column when zoomed out: 1, 2-7, 8-63, 64 and more
inline constexpr std::uint32_t kExitDensity[4] = {0xff505050, 0xff808080, 0xffb0b0b0, 0xffffffff};
inline constexpr std::uint32_t kPvIpiColor = 0xc0ffff00, kIcrIpiColor = 0xc0ff00ff;  // translucent lines
inline constexpr std::uint32_t kInjectionColor = 0xffffffff, kRealEoiColor = 0xff00d7ff, kPvEoiColor = 0xffffc864;
inline constexpr std::uint32_t kNestedInjectionColor = 0xffff50ff;  // pink: L1 → L2
inline constexpr std::uint32_t kBackground = 0xff1e1e1e;

// Where things go in a view `width` x `height` showing [t0, t1].
struct Layout {
    float width, height;
    std::int64_t t0, t1;
    static constexpr float kGutter = 90, kTop = 24, kLaneHeight = 72, kBandHeight = 10, kTickHeight = 8, kIsrRow = 12;
    float x(std::int64_t ts) const { return kGutter + (width - kGutter) * static_cast<float>(ts - t0) / static_cast<float>(t1 - t0); }
    float lane_top(int lane) const { return kTop + static_cast<float>(lane) * kLaneHeight; }
    float band_y(int lane) const { return lane_top(lane) + 2; }
    float tick_y(int lane) const { return band_y(lane) + kBandHeight + 2; }
    float isr_y(int lane, int depth) const { return tick_y(lane) + kTickHeight + 2 + static_cast<float>(depth - 1) * kIsrRow; }
    float serial_y(int lanes) const { return lane_top(lanes) + 4; }
};

}  // namespace irqflow::gui
