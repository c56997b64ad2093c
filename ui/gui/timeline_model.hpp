// The GUI's data side (no ImGui here): per-vCPU lanes built once from the trace and
// the replay, and the fixed layout the view draws them with. Tests use the same
// layout and colours to check pixels.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
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
// A uniform grid of `steps` steps over [t0, t1]: point g is at t0 + g * width.
struct TimeGrid {
    std::int64_t t0 = 0, width = 1;
    std::size_t steps = 0;
    TimeGrid() = default;
    TimeGrid(std::int64_t from, std::int64_t to, std::size_t n)
        : t0(from), width(std::max<std::int64_t>(1, (to - from) / static_cast<std::int64_t>(n) + 1)), steps(n) {}
    std::int64_t at(std::size_t g) const { return t0 + static_cast<std::int64_t>(g) * width; }
    // The last point at or before ts (0 before t0, `steps` after the end).
    std::size_t point(std::int64_t ts) const {
        return ts <= t0 ? 0 : static_cast<std::size_t>(std::min<std::int64_t>((ts - t0) / width, static_cast<std::int64_t>(steps)));
    }
};

// Where a time falls in a time-sorted array, to a grid of up to 65536 steps: a place to
// start searching from that no element before it reaches. Drawing gallops from one
// pixel column to the next; on 100 M events, zoomed out, a column is ~10 000 exits
// further on, and each gallop step was a cache miss: the grid takes it to within one
// step's worth of elements at once.
class TimeIndex {
public:
    template <class T, class Key>
    void build(const std::vector<T>& v, Key key, std::int64_t t0, std::int64_t t1) {
        grid_ = TimeGrid(t0, t1, std::clamp<std::size_t>(std::bit_ceil(v.size() / 16 + 1), 1, 65536));
        first_.assign(grid_.steps + 1, 0);
        std::size_t i = 0;
        for (std::size_t b = 0; b <= grid_.steps; ++b) {
            const std::int64_t at = grid_.at(b);
            while (i < v.size() && key(v[i]) < at) ++i;
            first_[b] = static_cast<std::uint32_t>(i);
        }
    }
    std::int64_t step_ns() const { return grid_.width; }
    // Every element before the index returned has a key below ts; those from it up to
    // the first at ts or later lie within one step before ts.
    std::size_t lower(std::int64_t ts) const { return first_.empty() || ts <= grid_.t0 ? 0 : first_[grid_.point(ts)]; }

private:
    TimeGrid grid_;
    std::vector<std::uint32_t> first_;
};

// Zoomed out on 100 M events a pixel column covers thousands of bands, and finding them
// (two searches and a block sum per column) is one cache and TLB miss after another:
// most of a frame. The time spent in each state before every point of a uniform time
// grid answers a column that spans many steps with two reads, neighbours in memory for
// neighbouring columns. Sums are additive, so one prefix array serves every zoom
// (power-of-two levels of per-bucket totals would need one array per level).
class StateGrid {
public:
    void build(const std::vector<Band>& bands, std::int64_t t0, std::int64_t t1);
    std::int64_t step_ns() const { return grid_.width; }
    // Time in each state from t0 to the grid point at or before t (exact there).
    const std::array<std::int64_t, 3>& before(std::int64_t t) const { return before_[grid_.point(t)]; }
    std::size_t steps() const { return grid_.steps; }

private:
    TimeGrid grid_;
    std::vector<std::array<std::int64_t, 3>> before_{{}};
};

// A handler the guest ran, from its own trace (guest_spans.hpp): entry → exit on the
// host's clock.
struct GuestSpan {
    std::int64_t start, end;
    int vector;               // -1: a device IRQ whose vector the guest's trace never said
    std::uint32_t name;       // in Timeline::guest_names ("local_timer", "virtio0 (irq 10, 0x22)")
    std::int64_t inject_ts;   // the injection of its vector before it on this vCPU, 0 if none
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
    TimeIndex band_index, exit_index, marker_index;    // by start / ts
    StateGrid state_grid;
    std::array<TimeIndex, 3> isr_index;
    std::map<std::string, std::uint64_t> exits_by_reason;
    // where the replay did not know this vCPU's state (replay::UnsyncedSpan), by start
    struct Span {
        std::int64_t start, end;
    };
    std::vector<Span> unsynced;
    std::vector<GuestSpan> guest;  // by start; empty without the guest's trace
    TimeIndex guest_index;
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
// A ring-buffer drop: its events were lost somewhere between the CPU's previous event
// and the marker; from its start every vCPU is unsynced (replay/README.md).
struct LostGap {
    std::int64_t start, end;
    int cpu;
    std::int64_t lost;  // -1: the kernel did not count them
};
struct SerialMark {
    std::int64_t ts;
    std::string text;
};

struct Timeline {
    std::vector<Lane> lanes;
    std::vector<Arrow> arrows;
    TimeIndex arrow_index;
    std::vector<FindingMark> findings;
    std::vector<SerialMark> serial;
    std::map<std::string, std::uint32_t> exit_colors;  // each exit reason in the trace, its tick colour
    std::vector<LostGap> gaps;  // by end (the markers' order)
    std::vector<std::string> guest_names;  // of the guest spans
    bool guest = false;                    // the guest's trace is there: every lane has a row for its handlers
    std::int64_t t0 = 0, t1 = 1;
    bool has_guest() const { return guest; }
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
// The shade of a column holding `exits` exits (at least one; the overview's are
// fractions of buckets, rounded).
constexpr std::uint32_t exit_density_color(double exits) {
    return exits < 1.5 ? kExitDensity[0] : exits < 8 ? kExitDensity[1] : exits < 64 ? kExitDensity[2] : kExitDensity[3];
}
inline constexpr std::uint32_t kPvIpiColor = 0xc0ffff00, kIcrIpiColor = 0xc0ff00ff;  // translucent lines
inline constexpr std::uint32_t kInjectionColor = 0xffffffff, kRealEoiColor = 0xff00d7ff, kPvEoiColor = 0xffffc864;
inline constexpr std::uint32_t kNestedInjectionColor = 0xffff50ff;  // pink: L1 → L2
inline constexpr std::uint32_t kBackground = 0xff1e1e1e;
inline constexpr std::uint32_t kLaneRuleColor = 0xff3c3c3c;  // the line under each lane
inline constexpr std::uint32_t kCursorColor = 0xff00ff80;  // green: the inspector's pinned time
inline constexpr std::uint32_t kMarkAColor = 0xff0080ff, kMarkBColor = 0xffff40a0;  // orange A, purple B
inline constexpr std::uint32_t kSelectionShade = 0x20ffffff;  // the range between A and B
inline constexpr std::uint32_t kUnsyncedColor = 0xff00a0ff;  // amber strip under a lane whose state is unknown
inline constexpr std::uint32_t kUnsyncedShade = 0x2000a0ff;  // and a faint wash over the lane there
inline constexpr std::uint32_t kLostColor = 0xff3030ff;        // red hatching over a lost-event gap

// Where things go in a view `width` x `height` showing [t0, t1]. A lane is
// `lane_height` tall (kLaneHeight at least: more when the window has room, see
// fit_lane_height); its band, tick strip and ISR rows grow with it, so a taller window
// shows the same lanes larger instead of empty space below them.
struct Layout {
    float width, height;
    std::int64_t t0, t1;
    float lane_height = kLaneHeight;
    bool guest = false;  // each lane has a row for the guest's handlers (Timeline::has_guest)
    static constexpr float kGutter = 90, kTop = 24, kLaneHeight = 72, kBandHeight = 10, kTickHeight = 8, kIsrRow = 12;
    static constexpr float kGuestRow = 12;  // added under the markers when there is a guest row
    static constexpr float kSerialRoom = 40;  // below the lanes: the serial row
    float x(std::int64_t ts) const { return kGutter + (width - kGutter) * static_cast<float>(ts - t0) / static_cast<float>(t1 - t0); }
    // The time at pixel column x (x from the window's left edge).
    std::int64_t time_at(float px) const {
        return t0 + static_cast<std::int64_t>(static_cast<double>(px - kGutter) / static_cast<double>(width - kGutter) * static_cast<double>(t1 - t0));
    }
    // A lane's height at scale 1.
    static constexpr float base(bool guest) { return kLaneHeight + (guest ? kGuestRow : 0); }
    float scale() const { return lane_height / base(guest); }
    float band_height() const { return kBandHeight * scale(); }
    float tick_height() const { return kTickHeight * scale(); }
    float isr_row() const { return kIsrRow * scale(); }
    float lane_top(int lane) const { return kTop + static_cast<float>(lane) * lane_height; }
    // The lane row under y, or -1 above the first (rows past the last are the caller's to reject).
    int row_at(float y) const { return y >= kTop ? static_cast<int>((y - kTop) / lane_height) : -1; }
    float band_y(int lane) const { return lane_top(lane) + 2; }
    float tick_y(int lane) const { return band_y(lane) + band_height() + 2; }
    float isr_y(int lane, int depth) const { return tick_y(lane) + tick_height() + 2 + static_cast<float>(depth - 1) * isr_row(); }
    float serial_y(int lanes) const { return lane_top(lanes) + 4; }
    float unsynced_y(int lane) const { return lane_top(lane + 1) - 5; }  // a 2-pixel strip above the rule under the lane
    // the guest's handler spans: under the markers (isr_y(lane, 4) holds them), above the unsynced strip
    float guest_y(int lane) const { return isr_y(lane, 4) + 8 * scale(); }
    float guest_height() const { return (kGuestRow - 2) * scale(); }
    // The lane height that fills `plot_height` with `rows` lanes and the serial row:
    // never below kLaneHeight, never above three times it (rows that tall only spread out).
    static float fit_lane_height(float plot_height, int rows, bool guest = false) {
        if (rows <= 0) return base(guest);
        return std::clamp((plot_height - kTop - kSerialRoom) / static_cast<float>(rows), base(guest), 3 * base(guest));
    }
    // The plot height that fits `rows` lanes of kLaneHeight.
    static float fitted_height(int rows, bool guest = false) { return kTop + base(guest) * static_cast<float>(rows) + kSerialRoom; }
};

// Lane of each (vm, vcpu) the trace attributes events to; -1 for host-only events.
class LaneLookup {
public:
    explicit LaneLookup(const Timeline& tl);
    int operator()(VmId vm, VcpuId vcpu) const;

private:
    std::vector<std::vector<int>> by_vm_;  // [vm][vcpu] → lane
};

}  // namespace irqflow::gui
