// irqflow-gui under Xvfb for the window tests: a frame rendered to a PNG and read back
// (shoot), and a window driven by xdotool whose --print-view log is read back
// (drive_window, log_lines).
#pragma once
#include <catch2/catch.hpp>

#include <stb_image.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

namespace irqflow::test {

struct Image {
    int w = 0, h = 0;
    std::vector<unsigned char> px;
    std::uint32_t at(int x, int y) const {  // as 0xAABBGGRR, like ImGui colours
        const auto* p = &px[(static_cast<std::size_t>(y) * static_cast<std::size_t>(w) + static_cast<std::size_t>(x)) * 3];
        return 0xff000000u | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[1]} << 8) | p[0];
    }
};

inline bool have_xvfb() { return run("command -v xvfb-run").status == 0; }

// Renders a frame to a PNG through the real binary under Xvfb; `args` are the options
// and the trace (or database and session), already quoted. `how` is --screenshot (the
// loaded session) or --screenshot-overview (the loading overview). `out_text` gets what
// the window printed (with --print-view: where the lanes end, the grids' places, ...).
inline Image shoot(const std::string& args, const std::string& tag = "shot", const std::string& how = "--screenshot", std::string* out_text = nullptr) {
    auto out = scratch(tag + ".png");
    std::filesystem::remove(out);
    // Mesa and X libraries keep allocations for the process lifetime: not our leaks.
    auto r = run_gui(how + " '" + out.string() + "' " + args, "-s '-screen 0 1600x1200x24'");
    INFO(r.out);
    REQUIRE(r.status == 0);
    if (out_text) *out_text = r.out;
    Image img;
    int n = 0;
    unsigned char* data = stbi_load(out.c_str(), &img.w, &img.h, &n, 3);
    REQUIRE(data);
    img.px.assign(data, data + static_cast<std::size_t>(img.w) * static_cast<std::size_t>(img.h) * 3);
    stbi_image_free(data);
    return img;
}

inline bool have_xdotool() { return run("command -v xdotool").status == 0; }

struct Driven {
    std::string out;  // xvfb-run's own output
    std::string log;  // what the window printed (--print-view), with "# step" lines between
};

// Starts irqflow-gui with `args` (quoted) under Xvfb, runs the shell `steps` against it
// with xdotool, then quits it with Ctrl+Q. Steps can use: window TITLE_REGEX (waits
// for it and sets $wid), line REGEX (waits for the window to print it), step NAME
// (lets frames pass, then marks the log), key KEY, $(at X Y) (an xdotool move).
inline Driven drive_window(const std::string& tag, const std::string& args, const std::string& steps, const std::string& size = "1400x660") {
    auto log = scratch(tag + ".log");
    std::filesystem::remove(log);
    auto script = scratch(tag + ".sh");
    write_file(script, R"sh(set -u
log=$1; shift
ASAN_OPTIONS=detect_leaks=0 "$@" >> "$log" 2>&1 &
pid=$!
fail() { echo "# $*" >> "$log"; kill -9 $pid; exit 1; }
window() { wid=$(timeout 120 xdotool search --sync --name "$1" | head -1); [ -n "$wid" ] || fail "no window $1"; }
line() { for i in $(seq 300); do grep -q "$1" "$log" && return; sleep 0.1; done; fail "no line $1"; }
step() { sleep 0.5; echo "# $*" >> "$log"; }
key() { xdotool keydown "$1" sleep 0.15 keyup "$1"; }
at() { echo "mousemove --window $wid $1 $2 sleep 0.15"; }
)sh" + steps + R"sh(
key ctrl+q
timeout 60 tail --pid=$pid -f /dev/null || kill -9 $pid
wait $pid; echo "# exit $?" >> "$log"
)sh");
    Driven d;
    d.out = run("timeout 300 xvfb-run -a -s '-screen 0 1600x1200x24' bash '" + script.string() + "' '" + log.string() + "' '" +
                    std::string(IRQFLOW_GUI) + "' --size " + size + " --print-view " + args,
                true)
                .out;
    d.log = read_file(log.string());
    return d;
}

// "view A B", "marks A B", ... lines of a driven window's log, with the step each came before.
struct LogLines {
    std::vector<std::pair<std::string, std::string>> lines;  // (step it came before, line)
    std::vector<std::string> all(const std::string& prefix, const std::string& step = "") const {
        std::vector<std::string> out;
        for (const auto& [s, l] : lines)
            if (l.rfind(prefix, 0) == 0 && (step.empty() || s == step)) out.push_back(l);
        return out;
    }
};
inline LogLines log_lines(const std::string& log) {
    LogLines out;
    std::vector<std::string> pending;
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0) {
            for (auto& p : pending) out.lines.emplace_back(line.substr(2), std::move(p));
            pending.clear();
        } else {
            pending.push_back(line);
        }
    }
    return out;
}

}  // namespace irqflow::test
