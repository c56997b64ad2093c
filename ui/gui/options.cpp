#include "options.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <type_traits>

#include "go_to.hpp"
#include "search_model.hpp"
#include "time_axis.hpp"
#include "time_text.hpp"

namespace irqflow::gui {
namespace {

// "A:B" with A < B (--range), "SECONDS:LANE" (--inspect): a CLI11 check and its parse.
template <class T>
std::optional<std::pair<double, T>> pair_of(const std::string& text) {
    double a = 0;
    T b{};
    char tail = 0;
    const char* fmt = std::is_same_v<T, int> ? "%lf:%d%c" : "%lf:%lf%c";
    if (std::sscanf(text.c_str(), fmt, &a, &b, &tail) != 2) return std::nullopt;
    return std::pair<double, T>{a, b};
}

}  // namespace

std::optional<int> parse_args(int argc, char** argv, Options& o) {
    CLI::App app{"irqflow-gui: the timeline of a KVM capture or a stored session — per-vCPU ISR state, exits, IPIs,\n"
                 "serial lines and findings — with an inspector of each vCPU's local APIC at any instant.",
                 "irqflow-gui"};
    auto* trace_arg = app.add_option("TRACE|DB", o.src.path, "a capture (as irqflow reads them), or a database of stored sessions");
    auto* compare_arg =
        app.add_option("--compare", o.compare,
                       "two runs (captures, or DB:SESSION) one above the other, zoom and pan locked, with the diff table of `irqflow diff A B`")
            ->type_name("A B")
            ->expected(2)
            ->excludes(trace_arg);
    trace_arg->excludes(compare_arg);
    app.add_option("--align", o.align,
                   "with --compare: line the two timelines up at these places instead of their starts, one in each run "
                   "(TIME in seconds, or #RECORD)")
        ->type_name("TA TB")
        ->expected(2)
        ->needs(compare_arg);
    app.add_option("SESSION", o.src.db_session, "with a database: the session's id or name (left out: pick one)");
    app.add_option("--serial", o.src.serial, "the guest's serial console log of the same run")->type_name("LOG")->excludes(compare_arg);
    app.add_option("--guest", o.src.guest,
                   "the guest's own trace of the same run (irq_vectors, irq_handler_*): its handlers drawn in each vCPU's lane")
        ->type_name("GUEST")
        ->excludes(compare_arg);
    app.add_option("--range", o.range, std::string("show this time span first: A:B, each ") + ui::kTimeSyntax + ", A < B")
        ->type_name("A:B")
        ->check(CLI::Validator(
            [](std::string& v) { return ui::parse_time_range(v) ? std::string() : "A:B with A < B, e.g. 12.5:13 or +4.5s:+4.7s"; }, "",
            ""));
    app.add_option("--goto", o.go_to,
                   std::string("zoom to this time (") + ui::kTimeSyntax + ") or #RECORD (a line of trace-cmd report): the cursor there, its row selected")
        ->type_name("TIME|#RECORD");
    app.add_option("--search", o.search,
                   "search (an event name, field=value, a vector, a rule id; terms are ANDed) and go to the first match")
        ->type_name("QUERY");
    app.add_option("--vcpu", o.vcpus, "show only these vCPUs' lanes (indexes, comma-separated)")->type_name("N,M");
    app.add_option("--vector", o.vector, "highlight one vector (0xec or 236)")->type_name("V");
    app.add_option_function<std::string>(
           "--size", [&o](const std::string& v) { std::sscanf(v.c_str(), "%dx%d", &o.width, &o.height); },
           "the window's size in pixels (height 0: fit the lanes)")
        ->type_name("WxH")
        ->check(CLI::Validator(
            [](std::string& v) {
                int w = 0, h = 0;
                char tail = 0;
                return std::sscanf(v.c_str(), "%dx%d%c", &w, &h, &tail) == 2 && w >= 200 && h >= 0 ? std::string()
                                                                                                     : "WxH pixels, W at least 200";
            },
            "", ""));
    app.add_option("--screenshot", o.screenshot, "render one frame to this PNG and exit (bug reports, docs, tests)")->type_name("PNG");
    app.add_flag("--panels", o.panels, "with --screenshot: draw the panels too");
    app.add_option("--tab", o.tab, "with --screenshot: the panel tab to show")
        ->type_name("TAB")
        ->check(CLI::IsMember({"findings", "statistics", "latency", "events", "selection"}))
        ->each([&o](const std::string&) { o.panels = true; });
    app.add_option_function<std::string>(
           "--inspect",
           [&o](const std::string& v) {
               o.inspect = pair_of<int>(v);
               o.panels = true;
           },
           "with --screenshot: the inspector pinned at this time (seconds) on this lane")
        ->type_name("SECONDS:LANE")
        ->check(CLI::Validator([](std::string& v) { return pair_of<int>(v) ? std::string() : "SECONDS:LANE, e.g. 13.2:1"; }, "", ""));
    app.add_flag("--legend", o.legend, "show the key of colours (L in the window)");
    app.add_flag("--keys", o.keys, "show the list of keys and mouse actions (? or F1 in the window)");
    app.add_option_function<std::string>(
           "--hover", [&o](const std::string& v) { o.hover = pair_of<double>(v); },
           "with --screenshot: show the tooltip of the timeline item at this pixel (the pointer itself is ignored)")
        ->type_name("X:Y")
        ->check(CLI::Validator([](std::string& v) { return pair_of<double>(v) ? std::string() : "X:Y pixels, e.g. 600:110"; }, "", ""));
    app.add_option_function<std::string>(
           "--marks", [&o](const std::string& v) { o.marks = pair_of<double>(v); },
           "markers A and B at these times (seconds of the trace clock); the selection tab shows what lies between")
        ->type_name("A:B")
        ->check(CLI::Validator([](std::string& v) { return pair_of<double>(v) ? std::string() : "A:B seconds, e.g. 12.5:12.6"; }, "", ""));
    // trace time by default, as the inspector, the events tab, --range, --goto and `irqflow events` print it
    auto* rel = app.add_flag_callback("--relative-time", [&o] { o.absolute_time = false; },
                                      "label the time axis from the trace's start (+4.5 s), not in trace-clock seconds (T toggles)");
    app.add_flag("--absolute-time", o.absolute_time, "label the time axis in trace-clock seconds: the default (T toggles)")->excludes(rel);
    app.add_option("--screenshot-overview", o.overview_shot, "render the overview shown while loading, once all of it is read, to this PNG")
        ->type_name("PNG");
    app.add_option("--bench-frames", o.bench_frames, "render N frames while zooming and panning, print the frame times, exit")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    app.add_flag("--print-view", o.print_view, "print the view and the inspector's pin whenever they change (input tests)")
        ->group("");  // for tests, not in the help
    app.footer("\nExamples:\n  irqflow-gui samples/pveoi-on.dat --vector 0xec\n  irqflow-gui sessions.db pveoi-on --range 12.5:13\n"
               "  irqflow-gui trace.dat --screenshot shot.png --panels --tab findings\n\nExit: 0, 2 bad input, 64 usage error.");
    try {
        app.parse(argc, argv);
        if (o.src.path.empty() && o.compare.empty()) throw CLI::RequiredError("TRACE|DB");
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "irqflow-gui: %s\nRun `irqflow-gui --help` for the options.\n", e.what());
        return 64;
    }
    return std::nullopt;
}

bool apply_options(const Options& o, const Session& s, UiState& u) {
    std::string error;
    auto f = parse_filter(s.tl, o.vcpus, o.vector, error);
    if (!f) {
        std::fprintf(stderr, "irqflow-gui: %s\n", error.c_str());
        return false;
    }
    for (std::size_t l = 0; l < f->lane_shown.size(); ++l) u.set_lane_shown(static_cast<int>(l), f->lane_shown[l]);
    u.set_vector(s.tl, f->vector);
    if (f->vector >= 0) std::snprintf(u.vector_text, sizeof u.vector_text, "0x%02x", f->vector);
    const auto seconds = [](std::int64_t ns) { return irqflow::gui::seconds_text(ns, 1000); };
    const std::string extent = " (" + s.title + " spans " + seconds(s.tl.t0) + " .. " + seconds(s.tl.t1) + ")";
    if (!o.range.empty()) {
        const auto r = ui::parse_time_range(o.range, s.trace.events.empty() ? 0 : s.trace.events.ts(0).value());
        if (!r || r->second <= s.tl.t0 || r->first >= s.tl.t1) {
            std::fprintf(stderr, "irqflow-gui: --range %s: outside the trace%s\n", o.range.c_str(), extent.c_str());
            return false;
        }
        u.nav.set(r->first, r->second);
    }
    if (!o.go_to.empty()) {
        const auto target = go_to_target(s.trace, o.go_to);
        if (!target || target->ts < s.tl.t0 || target->ts > s.tl.t1) {
            std::fprintf(stderr, "irqflow-gui: --goto %s: no such time or record in %s%s\n", o.go_to.c_str(), s.title.c_str(), extent.c_str());
            return false;
        }
        go_to(s, u, target->ts, target->event);
    }
    if (!o.search.empty()) {
        error.clear();
        const auto terms = parse_search(s, o.search, error);
        if (!terms) {
            std::fprintf(stderr, "irqflow-gui: --search %s: %s\n", o.search.c_str(), error.c_str());
            return false;
        }
        std::snprintf(u.search_text, sizeof u.search_text, "%s", o.search.c_str());
        u.searched = o.search;
        u.matches.filtered = true;
        u.matches.picked = search_events(s, *terms);
        u.match = step_match(s.trace, u.matches.picked, std::nullopt, s.tl.t0, true);
        if (u.match) go_to(s, u, s.trace.events.ts(u.matches.picked[*u.match]).value(), u.matches.picked[*u.match]);
    }
    if (o.inspect) {
        const auto ts = static_cast<std::int64_t>(o.inspect->first * 1e9);
        if (o.inspect->second < 0 || static_cast<std::size_t>(o.inspect->second) >= s.tl.lanes.size()) {
            std::fprintf(stderr, "irqflow-gui: --inspect %g:%d: no lane %d; lanes are 0..%zu\n", o.inspect->first, o.inspect->second,
                         o.inspect->second, s.tl.lanes.size() - 1);
            return false;
        }
        if (ts < s.tl.t0 || ts > s.tl.t1) {
            std::fprintf(stderr, "irqflow-gui: --inspect: %g s is outside the trace%s\n", o.inspect->first, extent.c_str());
            return false;
        }
        u.shown_ts = ts;
        u.shown_lane = o.inspect->second;
        u.states = s.index->at(u.shown_ts);
        u.pinned = true;
    }
    if (o.marks) {
        for (double t : {o.marks->first, o.marks->second})
            if (t * 1e9 < static_cast<double>(s.tl.t0) || t * 1e9 > static_cast<double>(s.tl.t1)) {
                std::fprintf(stderr, "irqflow-gui: --marks: %g s is outside the trace%s\n", t, extent.c_str());
                return false;
            }
        u.mark_a = static_cast<std::int64_t>(std::llround(o.marks->first * 1e9));
        u.mark_b = static_cast<std::int64_t>(std::llround(o.marks->second * 1e9));
    }
    if (!o.tab.empty()) u.open_tab = o.tab;
    u.print_view = o.print_view;
    u.show_legend = o.legend;
    u.show_keys = o.keys;
    u.absolute_time = o.absolute_time;
    return true;
}

}  // namespace irqflow::gui
