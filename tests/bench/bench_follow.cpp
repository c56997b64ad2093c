// The live check under load (issue: live check): report text of a real capture written
// into `irqflow check --follow --json -` through a pipe, as `trace-cmd stream -e kvm |
// irqflow check --follow -` does.
//
//  1. throughput and memory: the sample's text repeated (timestamps shifted so the stream
//     stays ordered) until --events lines went through, unpaced; events/s of the whole
//     pipe and per CPU-second of the checker, its resident memory at each quarter of the
//     stream and its peak (VmHWM), so "flat" can be read off;
//  2. alert latency: 40,000-line slices of pveoi-off's text, one kvm_eoi deleted in each
//     (--faults slices), written at --rate lines/s; for each finding, the time from
//     writing the line it names to reading the finding's NDJSON line: p50 and max.
//
//   bench_follow [--events N] [--faults N] [--rate LINES_PER_S]
// Figures only; nothing is asserted (a bench, not a test).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

// A report line split around its timestamp's whole seconds, so a copy can be shifted.
struct Line {
    std::string head;  // up to the seconds
    long long seconds = 0;
    std::string tail;  // from the '.' on
};

// A sample's report, to be written out as often as needed: copy `rep` is shifted by
// rep × the report's span in whole seconds, so the stream stays in time order.
struct Report {
    std::string header;  // what precedes the first event ("cpus=2")
    std::vector<Line> lines;
    long long span = 0;
    void append(std::string& out, const Line& l, long long rep) const {
        out += l.head;
        out += std::to_string(l.seconds + rep * span);
        out += l.tail;
    }
};

// `trace-cmd report` of a sample, its first `max_lines` events at most.
Report report_of(const std::string& dat, std::size_t max_lines = SIZE_MAX) {
    const std::string cmd = "trace-cmd report '" + dat + "' 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run trace-cmd report");
    Report r;
    char* buf = nullptr;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&buf, &cap, p)) > 0 && r.lines.size() < max_lines) {
        std::string l(buf, static_cast<size_t>(n));
        // the timestamp: the first "<digits>.<digits>" after the CPU column
        const size_t cpu = l.find("] ");
        const size_t dot = cpu == std::string::npos ? cpu : l.find('.', cpu);
        size_t start = dot;
        while (dot != std::string::npos && start > 0 && std::isdigit(static_cast<unsigned char>(l[start - 1]))) --start;
        if (dot == std::string::npos || start == dot) {
            if (r.lines.empty()) r.header += l;
            continue;
        }
        r.lines.push_back({l.substr(0, start), std::stoll(l.substr(start, dot - start)), l.substr(dot)});
    }
    free(buf);
    pclose(p);
    if (r.lines.empty()) throw std::runtime_error("no trace lines in the report of " + dat);
    r.span = r.lines.back().seconds - r.lines.front().seconds + 2;
    return r;
}

struct Child {
    pid_t pid = -1;
    int in = -1, out = -1;
};

Child spawn_check() {
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, to[0], 0);
    posix_spawn_file_actions_adddup2(&fa, from[1], 1);
    std::vector<std::string> args{IRQFLOW, "check", "--follow", "--json", "-"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    Child c;
    if (posix_spawn(&c.pid, argv[0], &fa, nullptr, argv.data(), environ)) throw std::runtime_error("cannot start irqflow");
    posix_spawn_file_actions_destroy(&fa);
    close(to[0]);
    close(from[1]);
    c.in = to[1];
    c.out = from[0];
    return c;
}

// VmRSS (now) or VmHWM (the peak since exec) of a running process, in KiB. wait4's
// ru_maxrss is not used: it counts the moment before exec, when the spawned child still
// shares this process's memory.
long status_kb(pid_t pid, const char* key) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    for (std::string l; std::getline(f, l);)
        if (l.rfind(key, 0) == 0) return std::atol(l.c_str() + std::strlen(key));
    return 0;
}

void write_all(int fd, const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
        const ssize_t n = write(fd, s.data() + off, s.size() - off);
        if (n <= 0) throw std::runtime_error("irqflow stopped reading its input");
        off += static_cast<size_t>(n);
    }
}

// Reads the child's NDJSON: each line with the time it was read.
struct Output {
    std::vector<std::pair<Clock::time_point, std::string>> lines;  // read only after join()
    std::mutex mutex;
    std::size_t count = 0;  // lines so far, under mutex
    std::thread reader;
    std::size_t so_far() {
        std::lock_guard<std::mutex> lock(mutex);
        return count;
    }
    void start(int fd) {
        reader = std::thread([this, fd] {
            std::string partial;
            char buf[1 << 16];
            ssize_t n;
            while ((n = read(fd, buf, sizeof buf)) > 0) {
                const auto now = Clock::now();
                partial.append(buf, static_cast<size_t>(n));
                size_t nl;
                while ((nl = partial.find('\n')) != std::string::npos) {
                    std::lock_guard<std::mutex> lock(mutex);
                    lines.emplace_back(now, partial.substr(0, nl));
                    ++count;
                    partial.erase(0, nl + 1);
                }
            }
        });
    }
};

struct Ended {
    double wall = 0, cpu = 0;
};
Ended finish(Child& c, Output& o, Clock::time_point t0) {
    close(c.in);
    int st = 0;
    rusage ru{};
    wait4(c.pid, &st, 0, &ru);
    o.reader.join();
    close(c.out);
    Ended e;
    e.wall = std::chrono::duration<double>(Clock::now() - t0).count();
    e.cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return e;
}

void throughput(std::uint64_t events) {
    const Report base = report_of(std::string(IRQFLOW_SAMPLES) + "/pveoi-on.dat");
    Child c = spawn_check();
    Output o;
    o.start(c.out);
    const auto t0 = Clock::now();
    std::vector<long> quarter_rss;
    long peak_kb = 0;
    std::uint64_t written = 0, next_quarter = events / 4;
    std::string chunk;
    write_all(c.in, base.header);
    for (long long rep = 0; written < events; ++rep)
        for (const auto& l : base.lines) {
            base.append(chunk, l, rep);
            if (++written % 4096 == 0) {
                write_all(c.in, chunk);
                chunk.clear();
            }
            if (written >= next_quarter) {
                quarter_rss.push_back(status_kb(c.pid, "VmRSS:"));
                peak_kb = std::max(peak_kb, status_kb(c.pid, "VmHWM:"));
                next_quarter += events / 4;
            }
            if (written >= events) break;
        }
    write_all(c.in, chunk);
    peak_kb = std::max(peak_kb, status_kb(c.pid, "VmHWM:"));
    const Ended e = finish(c, o, t0);
    std::printf("check --follow -, %llu events of pveoi-on's text repeated (unpaced):\n", static_cast<unsigned long long>(events));
    std::printf("  %.1f s wall: %.2f M events/s through the pipe; %.1f CPU s in irqflow: %.2f M events per CPU second\n", e.wall,
                static_cast<double>(events) / e.wall / 1e6, e.cpu, static_cast<double>(events) / e.cpu / 1e6);
    std::printf("  resident memory at 1/4, 2/4, 3/4, 4/4 of the stream:");
    for (long kb : quarter_rss) std::printf(" %.1f", static_cast<double>(kb) / 1024);
    std::printf(" MiB; peak %.1f MiB while the stream ran (VmHWM)\n", static_cast<double>(peak_kb) / 1024);
    std::printf("  output: %zu lines (the summary last)\n", o.lines.size());
}

void latency(int faults, double rate) {
    // a slice: the seams between its copies give no finding
    const Report base = report_of(std::string(IRQFLOW_SAMPLES) + "/pveoi-off.dat", 40000);
    // the 500th kvm_eoi of each slice is left out: ISR-ORDER names the missing EOI
    std::vector<size_t> eoi;
    for (size_t i = 0; i < base.lines.size(); ++i)
        if (base.lines[i].tail.find(" kvm_eoi:") != std::string::npos) eoi.push_back(i);
    if (eoi.size() < 500) throw std::runtime_error("pveoi-off's slice has fewer than 500 EOIs");
    const size_t deleted = eoi[499];
    Child c = spawn_check();
    Output o;
    o.start(c.out);
    constexpr size_t kChunk = 256;  // lines per write; each chunk's write time is kept
    std::vector<Clock::time_point> written_at;  // by chunk of output lines
    write_all(c.in, base.header);
    written_at.push_back(Clock::now());
    const auto t0 = Clock::now();
    std::string chunk;
    // lines written, the header included: the input line number irqflow gives the last one
    std::uint64_t sent = static_cast<std::uint64_t>(std::count(base.header.begin(), base.header.end(), '\n'));
    for (int rep = 0; rep < faults; ++rep)
        for (size_t i = 0; i < base.lines.size(); ++i) {
            if (i == deleted) continue;
            base.append(chunk, base.lines[i], rep);
            if (++sent % kChunk == 0) {
                // paced: this chunk goes out when the rate says so
                std::this_thread::sleep_until(t0 + std::chrono::duration_cast<Clock::duration>(
                                                       std::chrono::duration<double>(static_cast<double>(sent) / rate)));
                write_all(c.in, chunk);
                chunk.clear();
                written_at.push_back(Clock::now());
            }
        }
    write_all(c.in, chunk);
    written_at.push_back(Clock::now());
    const double write_s = std::chrono::duration<double>(Clock::now() - t0).count();
    // wait a little before the end of input, so no finding is only decided by it
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const size_t before_end = o.so_far();
    finish(c, o, t0);
    std::vector<double> ms;
    int found = 0;
    for (size_t k = 0; k < o.lines.size(); ++k) {
        const auto j = nlohmann::json::parse(o.lines[k].second, nullptr, false);
        if (!j.is_object() || !j.contains("rule")) continue;
        ++found;
        const auto at = j.value("line", std::uint64_t{0});
        const size_t ch = std::min(written_at.size() - 1, static_cast<size_t>((at + kChunk - 1) / kChunk));
        ms.push_back(std::chrono::duration<double, std::milli>(o.lines[k].first - written_at[ch]).count());
        if (k >= before_end) std::printf("  (finding %d came only at the end of the input)\n", found);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("alert latency, %d faults (a deleted kvm_eoi per 40,000-line slice of pveoi-off) at %.0f lines/s (%.0f reached):\n",
                faults, rate, static_cast<double>(sent) / write_s);
    if (ms.empty()) {
        std::printf("  no finding came back\n");
        return;
    }
    std::printf("  %d findings (expected %d); from writing the line a finding names to reading it: p50 %.0f ms, max %.0f ms\n", found,
                faults, ms[ms.size() / 2], ms.back());
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t events = 100'000'000;
    int faults = 100;
    double rate = 200'000;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--events") events = std::strtoull(argv[i + 1], nullptr, 10);
        else if (a == "--faults") faults = std::atoi(argv[i + 1]);
        else if (a == "--rate") rate = std::atof(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: bench_follow [--events N] [--faults N] [--rate LINES_PER_S]\n");
            return 64;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    try {
        latency(faults, rate);
        throughput(events);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_follow: %s\n", e.what());
        return 1;
    }
    return 0;
}
