#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "column_runs.hpp"
#include "timeline_view.hpp"

namespace irqflow::gui {

void draw_overview(ImDrawList* dl, const Overview& o, const Layout& L, ColumnImage* strips) {
    const int columns = static_cast<int>(L.width - Layout::kGutter);
    if (columns <= 0 || o.events == 0) return;
    const double ns_per_px = static_cast<double>(L.t1 - L.t0) / columns;
    const auto nb = static_cast<std::int64_t>(Overview::kBuckets);
    char label[64];
    for (std::size_t l = 0; l < o.lanes.size(); ++l) {
        const auto& lane = o.lanes[l];
        const int row = static_cast<int>(l);
        if (lane.vcpu_id >= 0) std::snprintf(label, sizeof label, "vcpu%d", lane.vcpu_id);
        else std::snprintf(label, sizeof label, "tid %d", lane.tid.value());
        dl->AddText(ImVec2(4, L.band_y(row)), 0xffdcdcdc, label);
        ColumnRuns bands(dl, L.band_y(row), L.band_y(row) + L.band_height(), strips);
        ColumnRuns ticks(dl, L.tick_y(row), L.tick_y(row) + L.tick_height(), strips);
        for (int c = 0; c < columns; ++c) {
            const std::int64_t ta = L.t0 + static_cast<std::int64_t>(c * ns_per_px), tb = L.t0 + static_cast<std::int64_t>((c + 1) * ns_per_px);
            if (tb <= o.t0 || ta >= o.last_ts) continue;
            // the buckets the column overlaps, each weighted by how much of it the column covers
            const std::int64_t first = std::max<std::int64_t>(0, (ta - o.t0) / o.bucket_ns);
            const std::int64_t last = std::min<std::int64_t>(nb - 1, (tb - 1 - o.t0) / o.bucket_ns);
            std::array<double, 3> time{};
            double exits = 0;
            for (std::int64_t i = first; i <= last; ++i) {
                const std::int64_t bs = o.t0 + i * o.bucket_ns, be = bs + o.bucket_ns;
                const double part = static_cast<double>(std::min(be, tb) - std::max(bs, ta)) / static_cast<double>(o.bucket_ns);
                const auto& b = lane.buckets[static_cast<std::size_t>(i)];
                for (std::size_t s = 0; s < 3; ++s) time[s] += part * static_cast<double>(b.time[s]);
                exits += part * b.exits;
            }
            const float x = Layout::kGutter + static_cast<float>(c);
            if (time[0] + time[1] + time[2] > 0)
                bands.put(x, state_color(static_cast<VcpuState>(std::max_element(time.begin(), time.end()) - time.begin())));
            if (exits >= 0.5) ticks.put(x, exit_density_color(exits));
        }
    }
}

}  // namespace irqflow::gui
