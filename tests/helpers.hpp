// Shared test helpers: where the real samples are, running commands, temp files.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace irqflow::test {

inline std::string sample(const std::string& name) { return std::string(IRQFLOW_SAMPLES) + "/" + name; }

// Every committed host capture (trace.dat); all are real KVM recordings (samples/README.md).
// hostguest-guest.dat, the guest's side of hostguest.dat, holds no KVM events: not here.
inline std::vector<std::string> every_dat_sample() {
    return {"pveoi-on.dat", "pveoi-off.dat", "pvipi-off.dat", "hyperv.dat", "xapic.dat",
            "lost.dat",     "instance.dat",  "pveoi-on-midflight-v6.dat", "lossy.dat", "pvspin.dat", "pit.dat", "kvmstat.dat",
            "pveoi-on-again.dat", "hostguest.dat"};
}

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// The captures a test sweeps. In a plain build, every one. Under the sanitizers a sample
// costs 5–15 times as long, and the sweeps were most of CI's sanitized stage (README.md,
// "Two commands"), while the samples differ in their headers, their losses
// and the APIC features they exercise, not in the code a sanitizer watches; so there a
// sweep takes the main one (first in both lists: tests refer to its session as 1) and
// those that reach every other reader path: v6 without compression started mid-flight,
// a buffer instance, heavy loss, and the Hyper-V EOI assist. (hostguest.dat, whose
// times its TSC2NSEC option adjusts, goes through libtracecmd's iterator instead of our
// page walker: its own tests, test_guest_trace.cpp, read it under the sanitizers.)
inline std::vector<std::string> dat_samples() {
    if (kSanitized) return {"pveoi-on.dat", "pveoi-on-midflight-v6.dat", "instance.dat", "lossy.dat", "hyperv.dat"};
    return every_dat_sample();
}

struct RunResult {
    int status = -1;
    std::string out;
};

// Runs a shell command, capturing stdout (stderr goes to stdout when merge is set).
inline RunResult run(const std::string& cmd, bool merge_stderr = false) {
    RunResult r;
    std::string full = cmd + (merge_stderr ? " 2>&1" : " 2>/dev/null");
    FILE* p = popen(full.c_str(), "r");
    if (!p) return r;
    char buf[65536];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

inline std::string cli() { return IRQFLOW_CLI; }

// A fresh scratch directory per test run (removed when the run ends: tests/main.cpp).
inline std::filesystem::path scratch(const std::string& name) {
    auto d = std::filesystem::temp_directory_path() / ("irqflow-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d / name;
}

inline void write_file(const std::filesystem::path& p, const std::string& bytes) {
    FILE* f = std::fopen(p.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
}
#ifdef IRQFLOW_GUI
// Runs irqflow-gui under Xvfb (`args`: its options and files, already quoted; stderr
// merged). The status is the GUI's own: xvfb-run's also reports an Xvfb that did not
// start or a temporary directory it could not remove, which made passing tests fail now
// and then. A wrapper prints the GUI's status; a run that never reached the GUI (no
// such line, no timeout) is tried again, twice at most.
inline RunResult run_gui(const std::string& args, const std::string& xvfb_options = "", int timeout_s = 0) {
    const auto wrapper = scratch("gui-status.sh");
    const std::string marker = "irqflow-gui exit status ";
    if (!std::filesystem::exists(wrapper)) write_file(wrapper, "\"$@\"\ns=$?\necho \"" + marker + "$s\"\nexit $s\n");
    RunResult r;
    for (int attempt = 0; attempt < 3; ++attempt) {
        r = run("ASAN_OPTIONS=detect_leaks=0 " + (timeout_s > 0 ? "timeout " + std::to_string(timeout_s) + " " : std::string()) +
                    "xvfb-run -a " + xvfb_options + " sh '" + wrapper.string() + "' '" + IRQFLOW_GUI + "' " + args,
                true);
        const auto at = r.out.rfind(marker);
        if (at != std::string::npos) {
            r.status = std::atoi(r.out.c_str() + at + marker.size());
            r.out.erase(at, r.out.find('\n', at) == std::string::npos ? std::string::npos : r.out.find('\n', at) + 1 - at);
            return r;
        }
        if (r.status == 124) return r;  // timed out: the GUI ran and hung
    }
    return r;
}
#endif

inline std::string read_file(const std::string& p) {
    std::string s;
    FILE* f = std::fopen(p.c_str(), "rb");
    if (!f) return s;
    char buf[65536];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
    return s;
}

// Event name → count, as `trace-cmd report` prints them (the reference reader).
// The event lines of `trace-cmd report FILE`, in its order: "<task>-<pid> [cpu] ts: name: info".
struct ReportLine {
    std::string name;
    std::string info;  // leading padding and trailing blanks removed
};
inline std::vector<ReportLine> report_lines(const std::string& path) {
    std::vector<ReportLine> lines;
    auto r = run("trace-cmd report '" + path + "'");
    std::size_t pos = 0;
    while (pos < r.out.size()) {
        std::size_t nl = r.out.find('\n', pos);
        if (nl == std::string::npos) nl = r.out.size();
        std::string_view line(r.out.data() + pos, nl - pos);
        pos = nl + 1;
        std::size_t ts_colon = line.find(": ");
        if (line.find(" [") == std::string_view::npos || ts_colon == std::string_view::npos) continue;
        std::size_t name_end = line.find(':', ts_colon + 2);
        if (name_end == std::string_view::npos) continue;
        std::string_view name = line.substr(ts_colon + 2, name_end - ts_colon - 2);
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        std::string_view info = line.substr(name_end + 1);
        while (!info.empty() && info.front() == ' ') info.remove_prefix(1);
        while (!info.empty() && (info.back() == ' ' || info.back() == '\r')) info.remove_suffix(1);
        lines.push_back({std::string(name), std::string(info)});
    }
    return lines;
}

inline std::map<std::string, std::uint64_t> report_counts(const std::string& path) {
    std::map<std::string, std::uint64_t> counts;
    for (const auto& l : report_lines(path)) ++counts[l.name];
    return counts;
}

}  // namespace irqflow::test
