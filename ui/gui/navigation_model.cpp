#include "navigation_model.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "time_text.hpp"

namespace irqflow::gui {

void Navigator::set(std::int64_t t0, std::int64_t t1) {
    if (t1 - t0 < kMinSpan) {
        const std::int64_t mid = t0 + (t1 - t0) / 2;
        t0 = mid - kMinSpan / 2;
        t1 = t0 + kMinSpan;
    }
    v_ = {t0, t1};
}

void Navigator::zoom(double factor, double at) {
    at = std::clamp(at, 0.0, 1.0);
    const double centre = static_cast<double>(v_.t0) + at * v_.span();
    const double nspan = std::max(static_cast<double>(kMinSpan), v_.span() * factor);
    set(static_cast<std::int64_t>(centre - at * nspan), static_cast<std::int64_t>(centre + (1 - at) * nspan));
}

void Navigator::pan(double frac) {
    const auto d = static_cast<std::int64_t>(frac * v_.span());
    v_.t0 += d;
    v_.t1 += d;
}

bool Navigator::box(double from, double to) {
    if (from > to) std::swap(from, to);
    if (to - from < 0.002) return false;  // a click, not a box
    set(v_.at(std::max(from, 0.0)), v_.at(std::min(to, 1.0)));
    return true;
}

void Navigator::centre_on(std::int64_t ts) {
    const std::int64_t half = (v_.t1 - v_.t0) / 2;
    v_ = {ts - half, ts - half + (v_.t1 - v_.t0)};
}

std::vector<int> Filter::rows() const {
    std::vector<int> r(lane_shown.size(), -1);
    int next = 0;
    for (std::size_t i = 0; i < lane_shown.size(); ++i)
        if (lane_shown[i]) r[i] = next++;
    return r;
}

int Filter::row_count() const { return static_cast<int>(std::count(lane_shown.begin(), lane_shown.end(), true)); }

namespace {

std::optional<std::int64_t> parse_int(std::string_view s) {
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

}  // namespace

std::optional<Filter> parse_filter(const Timeline& tl, std::string_view vcpus, std::string_view vector, std::string& error) {
    Filter f = Filter::all(tl);
    if (!vcpus.empty()) {
        std::fill(f.lane_shown.begin(), f.lane_shown.end(), false);
        while (!vcpus.empty()) {
            const auto comma = vcpus.find(',');
            const auto item = vcpus.substr(0, comma);
            vcpus = comma == std::string_view::npos ? std::string_view() : vcpus.substr(comma + 1);
            auto id = parse_int(item);
            if (!id) {
                error = "--vcpu wants vCPU ids separated by commas, not \"" + std::string(item) + "\"";
                return std::nullopt;
            }
            bool found = false;
            for (std::size_t l = 0; l < tl.lanes.size(); ++l)
                if (tl.lanes[l].vcpu.value() == *id) f.lane_shown[l] = found = true;
            if (!found) {
                error = "the trace has no vCPU " + std::string(item);
                return std::nullopt;
            }
        }
    }
    if (!vector.empty()) {
        auto v = parse_int(vector);
        if (!v || *v < 0 || *v > 255) {
            error = "--vector wants a vector 0..255 (0xec or 236), not \"" + std::string(vector) + "\"";
            return std::nullopt;
        }
        f.vector = static_cast<int>(*v);
    }
    return f;
}

std::optional<std::int64_t> find_next(const Timeline& tl, const Filter& f, JumpTarget what, std::int64_t from, bool forward) {
    std::optional<std::int64_t> best;
    auto consider = [&](std::int64_t ts) {
        if (forward ? ts <= from : ts >= from) return;
        if (!best || (forward ? ts < *best : ts > *best)) best = ts;
    };
    if (what == JumpTarget::Finding) {
        for (const auto& m : tl.findings)
            if (m.lane < 0 || f.shows(m.lane)) consider(m.ts);
        return best;
    }
    for (std::size_t l = 0; l < tl.lanes.size(); ++l) {
        if (!f.shows(static_cast<int>(l))) continue;
        const auto& ms = tl.lanes[l].markers;  // time order: search from `from` in the right direction
        auto it = std::upper_bound(ms.begin(), ms.end(), from, [](std::int64_t t, const Marker& m) { return t < m.ts; });
        auto wanted = [&](const Marker& m) {
            return f.shows_vector(m.vector) && (what == JumpTarget::Injection ? !m.eoi() : m.eoi());
        };
        if (forward) {
            for (; it != ms.end(); ++it)
                if (wanted(*it)) {
                    consider(it->ts);
                    break;
                }
        } else {
            auto rit = std::make_reverse_iterator(it);
            for (; rit != ms.rend(); ++rit)
                if (rit->ts < from && wanted(*rit)) {
                    consider(rit->ts);
                    break;
                }
        }
    }
    return best;
}

std::optional<std::size_t> event_of_record(const Trace& trace, std::uint64_t record) {
    const auto& ev = trace.events;
    std::size_t i = ev.lower_bound_record(record);
    while (i < ev.size() && ev.kind(i) == EventKind::Lost) ++i;  // a gap marker shares its record's number
    if (i == ev.size() || ev.record(i) != record) return std::nullopt;
    return i;
}

std::optional<std::int64_t> record_time(const Trace& trace, std::uint64_t record) {
    const auto i = event_of_record(trace, record);
    if (!i) return std::nullopt;
    return trace.events.ts(*i).value();
}

std::optional<GoToTarget> go_to_target(const Trace& trace, std::string_view text) {
    if (text.empty() || text[0] != '#') {
        const auto ts = ui::parse_time(text, trace.events.empty() ? 0 : trace.events.ts(0).value());
        if (!ts) return std::nullopt;
        return GoToTarget{*ts, std::nullopt};
    }
    const auto record = parse_int(text.substr(1));
    if (!record || *record < 0) return std::nullopt;
    const auto i = event_of_record(trace, static_cast<std::uint64_t>(*record));
    if (!i) return std::nullopt;
    return GoToTarget{trace.events.ts(*i).value(), *i};
}

}  // namespace irqflow::gui
