// The latency tab: accept → inject and inject → EOI histograms of the shown lanes and
// vector.
#include <imgui.h>

#include <cstdio>

#include "latency_model.hpp"
#include "panels_view.hpp"

namespace irqflow::gui {
namespace {

void histogram(const char* title, const LatencyHistogram& h) {
    ImGui::Text("%s: %llu samples", title, static_cast<ull>(h.samples));
    if (h.samples == 0) return;
    std::vector<float> v;
    for (int k = h.first; k <= h.last; ++k) v.push_back(static_cast<float>(h.count[static_cast<std::size_t>(k)]));
    auto unit = [](int k, char* buf, std::size_t n) {
        const double ns = static_cast<double>(std::uint64_t{1} << k);
        if (ns < 1e3) std::snprintf(buf, n, "%.0fns", ns);
        else if (ns < 1e6) std::snprintf(buf, n, "%.0fus", ns / 1e3);
        else if (ns < 1e9) std::snprintf(buf, n, "%.0fms", ns / 1e6);
        else std::snprintf(buf, n, "%.0fs", ns / 1e9);
    };
    char lo[16], hi[16], overlay[64];
    unit(h.first, lo, sizeof lo);
    unit(h.last + 1, hi, sizeof hi);
    std::snprintf(overlay, sizeof overlay, "%s .. %s (log2 buckets)", lo, hi);
    ImGui::PushID(title);
    ImGui::PlotHistogram("##h", v.data(), static_cast<int>(v.size()), 0, overlay, 0, FLT_MAX, ImVec2(ImGui::GetContentRegionAvail().x, 70));  // 1.86: no -1 width here
    if (ImGui::IsItemHovered()) {
        const float rel = (ImGui::GetIO().MousePos.x - ImGui::GetItemRectMin().x) / ImGui::GetItemRectSize().x;
        const int k = h.first + std::clamp(static_cast<int>(rel * static_cast<float>(v.size())), 0, static_cast<int>(v.size()) - 1);
        unit(k, lo, sizeof lo);
        unit(k + 1, hi, sizeof hi);
        ImGui::SetTooltip("%s .. %s: %llu", lo, hi, static_cast<ull>(h.count[static_cast<std::size_t>(k)]));
    }
    ImGui::PopID();
}

}  // namespace

void latency_tab(const Session& s, UiState& u) {
    if (!u.latency)
        u.latency = {latency_histogram(s.replay, u.lanes, u.filter, LatencyStage::AcceptToInject),
                     latency_histogram(s.replay, u.lanes, u.filter, LatencyStage::InjectToEoi)};
    if (u.filter.vector >= 0) ImGui::Text("vector 0x%02x, shown vCPUs", u.filter.vector);
    else ImGui::TextUnformatted("all vectors, shown vCPUs (set a vector above to narrow)");
    histogram("accept -> inject", u.latency->first);
    histogram("inject -> EOI", u.latency->second);
}

}  // namespace irqflow::gui
