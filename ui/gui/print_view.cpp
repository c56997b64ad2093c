#include "print_view.hpp"

#include <cstdio>

#include "time_axis.hpp"

namespace irqflow::gui {

void ViewPrinter::timeline(const UiState& u, const Layout& layout, const Timeline& tl) {
    if (u.nav.view().t0 != view_.t0 || u.nav.view().t1 != view_.t1) {
        view_ = u.nav.view();
        std::printf("view %lld %lld\n", static_cast<long long>(view_.t0), static_cast<long long>(view_.t1));
    }
    if (layout.width != lanes_right_) {  // where the lanes end: the window's edge, or the docked key's left
        lanes_right_ = layout.width;
        std::printf("lanes %.0f %.0f\n", Layout::kGutter, lanes_right_);
    }
    const TimeAxis axis = time_axis(layout.t0, layout.t1, tl.t0, layout.width - Layout::kGutter, !u.absolute_time);
    std::string axis_line = "axis " + axis.base + " |";
    for (const auto& t : axis.ticks) axis_line += " " + t.label;
    if (axis_line != axis_) {
        axis_ = axis_line;
        std::printf("%s\n", axis_line.c_str());
    }
    if (std::pair{u.mark_a, u.mark_b} != marks_) {
        marks_ = {u.mark_a, u.mark_b};
        std::printf("marks %lld %lld\n", static_cast<long long>(marks_.first), static_cast<long long>(marks_.second));
    }
    if (u.pinned && std::pair{u.shown_lane, u.shown_ts} != pin_) {
        pin_ = {u.shown_lane, u.shown_ts};
        std::printf("inspect %d %lld\n", pin_.first, static_cast<long long>(pin_.second));
    }
    std::fflush(stdout);
}

void ViewPrinter::compare(const UiState& u, std::int64_t shift) {
    if (u.nav.view().t0 != view_.t0 || u.nav.view().t1 != view_.t1 || shift != shift_) {
        view_ = u.nav.view();
        shift_ = shift;
        std::printf("view %lld %lld shift %lld\n", static_cast<long long>(view_.t0), static_cast<long long>(view_.t1),
                    static_cast<long long>(shift_));
    }
    std::fflush(stdout);
}

void ViewPrinter::hover(const std::vector<std::string>& tip) {
    const std::string first = tip.empty() ? "" : tip.front();
    if (first != hover_ && !first.empty()) std::printf("hover %s\n", first.c_str());
    hover_ = first;
    std::fflush(stdout);
}

void ViewPrinter::panel_tip(const std::string& tip) {
    if (tip != panel_tip_ && !tip.empty()) std::printf("tip %s\n", tip.c_str());
    panel_tip_ = tip;
    std::fflush(stdout);
}

}  // namespace irqflow::gui
