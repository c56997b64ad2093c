#include "search_model.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "events_model.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/field_values.hpp"

namespace irqflow::gui {
namespace {

std::optional<std::int64_t> number(std::string_view t) {
    int base = 10;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        base = 16;
        t.remove_prefix(2);
    }
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
    return v;
}

bool same_letters(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// "HLT" names EXIT_HLT, "init" names INIT: the whole name or its last _-separated part.
bool names(std::string_view name, std::string_view wanted) {
    if (same_letters(name, wanted)) return true;
    return name.size() > wanted.size() && name[name.size() - wanted.size() - 1] == '_' && same_letters(name.substr(name.size() - wanted.size()), wanted);
}

bool known_field(std::string_view f) {
    for (const auto& k : all_kinds())
        for (std::size_t i = 0; i < k.nfields; ++i)
            if (k.fields[i] == f) return true;
    return false;
}

bool matches(const SearchTerm& t, const Event& e) {
    switch (t.kind) {
    case SearchTerm::Name: return e.name_id == t.name_id;
    case SearchTerm::Vector: return event_vector(e) == t.number;
    case SearchTerm::Rule: return false;  // by record, in search_events
    case SearchTerm::Field: {
        const int slot = field_slot(e.kind, t.field);
        const auto v = e.get(slot);
        if (!v) return false;
        if (t.number) return *v == *t.number;
        const std::string_view name = e.kind == EventKind::Exit && slot == slot::exit_reason ? exit_reason_name(e) : field_value_name(e, slot);
        return !name.empty() && names(name, t.value_name);
    }
    }
    return false;
}

}  // namespace

std::optional<std::vector<SearchTerm>> parse_search(const Session& s, std::string_view text, std::string& error) {
    std::vector<SearchTerm> terms;
    std::size_t at = 0;
    while (at < text.size()) {
        while (at < text.size() && text[at] == ' ') ++at;
        std::size_t end = at;
        while (end < text.size() && text[end] != ' ') ++end;
        if (end == at) break;
        const std::string_view w = text.substr(at, end - at);
        at = end;
        SearchTerm t;
        t.text = std::string(w);
        if (const auto eq = w.find('='); eq != std::string_view::npos) {
            t.kind = SearchTerm::Field;
            t.field = std::string(w.substr(0, eq));
            const std::string_view value = w.substr(eq + 1);
            if (!known_field(t.field)) {
                error = "no event has a field '" + t.field + "' (fields as `irqflow events` prints them: reason, vec, dm, rip, ...)";
                return std::nullopt;
            }
            if (value.empty()) {
                error = "'" + t.text + "': a value after '='";
                return std::nullopt;
            }
            t.number = number(value);
            if (!t.number) t.value_name = std::string(value);
        } else if (const auto v = number(w)) {
            if (*v < 0 || *v > 255) {
                error = "'" + t.text + "': a vector is 0..255 (0x00..0xff)";
                return std::nullopt;
            }
            t.kind = SearchTerm::Vector;
            t.number = v;
        } else if (const auto r = replay::rule_by_id(w)) {
            t.kind = SearchTerm::Rule;
            t.rule = *r;
        } else {
            bool found = false;
            for (std::size_t n = 0; n < s.trace.name_count() && !found; ++n)
                if (s.trace.name(static_cast<std::uint16_t>(n)) == w) {
                    t.name_id = static_cast<std::uint16_t>(n);
                    found = true;
                }
            if (!found) {
                error = "'" + t.text + "' is not an event of this trace, a field=value, a vector (0xec) or a rule id (INJ-NOT-PENDING)";
                return std::nullopt;
            }
        }
        terms.push_back(std::move(t));
    }
    if (terms.empty()) error = "type an event name, field=value, a vector or a rule id";
    if (terms.empty()) return std::nullopt;
    return terms;
}

std::vector<std::size_t> search_events(const Session& s, const std::vector<SearchTerm>& terms) {
    std::vector<std::size_t> out;
    const auto& ev = s.trace.events;
    // a rule term narrows the search to its findings' events first
    const SearchTerm* rule = nullptr;
    for (const auto& t : terms)
        if (t.kind == SearchTerm::Rule) {
            if (rule && rule->rule != t.rule) return out;  // one finding has one rule
            rule = &t;
        }
    auto keep = [&](std::size_t i) {
        const Event e = ev[i];
        for (const auto& t : terms)
            if (t.kind != SearchTerm::Rule && !matches(t, e)) return false;
        return true;
    };
    if (rule) {
        for (const auto& f : s.replay.findings)
            if (f.rule == rule->rule)
                if (const auto i = event_of_record(s.trace, f.record); i && keep(*i)) out.push_back(*i);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }
    for (std::size_t i = 0; i < ev.size(); ++i)
        if (keep(i)) out.push_back(i);
    return out;
}

std::optional<std::size_t> step_match(const Trace& trace, const std::vector<std::size_t>& matches, std::optional<std::size_t> current,
                                      std::int64_t from, bool forward) {
    if (matches.empty()) return std::nullopt;
    if (current && *current < matches.size()) {
        if (forward) return *current + 1 < matches.size() ? std::optional<std::size_t>(*current + 1) : std::nullopt;
        return *current > 0 ? std::optional<std::size_t>(*current - 1) : std::nullopt;
    }
    // events are in time order, so their indices are too: the first event at `from`
    const std::size_t at = trace.events.lower_bound_ts(TimestampNs(from));
    const auto it = std::lower_bound(matches.begin(), matches.end(), at);
    if (forward) return it != matches.end() ? std::optional<std::size_t>(static_cast<std::size_t>(it - matches.begin())) : std::nullopt;
    return it != matches.begin() ? std::optional<std::size_t>(static_cast<std::size_t>(it - matches.begin()) - 1) : std::nullopt;
}

}  // namespace irqflow::gui
