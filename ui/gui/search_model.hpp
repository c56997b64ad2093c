// Search: which events match a query, for the search box, its next / previous match and
// the events tab's list of results. No ImGui here.
//
// A query is terms separated by spaces, all of which an event must match:
//   kvm_exit          an event name (as the trace names it)
//   exit_reason=HLT        a field (as `irqflow events` prints it) and its value: a number
//   vec=0xec          (0x... hex or decimal) or the value's name (HLT matches EXIT_HLT)
//   0xec              a vector: accepts, injections, EOIs and ICR IPIs of it
//   INJ-NOT-PENDING   a rule: the events its findings point at
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "session.hpp"

namespace irqflow::gui {

struct SearchTerm {
    enum Kind { Name, Field, Vector, Rule } kind = Name;
    std::string text;        // as typed
    std::uint16_t name_id = 0;  // Name
    std::string field;       // Field: its name
    std::optional<std::int64_t> number;  // Field or Vector: the value as a number
    std::string value_name;  // Field: the value as a name, when not a number
    replay::RuleId rule{};   // Rule
};

// The terms of `text`; nullopt with `error` saying which term is not understood.
std::optional<std::vector<SearchTerm>> parse_search(const Session& s, std::string_view text, std::string& error);

// Indices into s.trace.events of every event matching all terms, in time order.
std::vector<std::size_t> search_events(const Session& s, const std::vector<SearchTerm>& terms);

// The match to go to (a position in `matches`): the one after `current` when a match was
// gone to, else the first at or after `from` (the view's centre); backwards the one
// before, or the last before `from`. nullopt past either end.
std::optional<std::size_t> step_match(const Trace& trace, const std::vector<std::size_t>& matches, std::optional<std::size_t> current,
                                      std::int64_t from, bool forward);

}  // namespace irqflow::gui
