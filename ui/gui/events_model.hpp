// The events tab's data: the events of the visible range under the current filter,
// and the vector an event is about (the vector filter, search). No ImGui here.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "event_format.hpp"
#include "irqflow/capture/trace.hpp"
#include "navigation_model.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

// The vector an event is about: ui/common/event_format.hpp (the CLI's `events --vector` too).
using ui::event_vector;

// Events with a timestamp in the view, as a range of indices when nothing is filtered
// and as a list otherwise (at most `limit`: beyond it the table asks to zoom in).
struct EventRows {
    std::size_t first = 0, last = 0;       // unfiltered: [first, last)
    bool filtered = false;
    std::vector<std::size_t> picked;       // filtered: indices in time order
    std::size_t in_view = 0;               // events in the view before filtering
    bool too_many = false;                 // filtered and more than `limit` to scan
    std::size_t size() const { return filtered ? picked.size() : last - first; }
    std::size_t at(std::size_t i) const { return filtered ? picked[i] : first + i; }
    // The row listing event `index`, if one does.
    std::optional<std::size_t> row_of(std::size_t index) const {
        if (!filtered) return index >= first && index < last ? std::optional<std::size_t>(index - first) : std::nullopt;
        const auto it = std::lower_bound(picked.begin(), picked.end(), index);
        return it != picked.end() && *it == index ? std::optional<std::size_t>(static_cast<std::size_t>(it - picked.begin())) : std::nullopt;
    }
};
EventRows events_in_view(const Trace& trace, const LaneLookup& lanes, const Filter& f, const ViewRange& v, std::size_t limit = 2'000'000);

}  // namespace irqflow::gui
