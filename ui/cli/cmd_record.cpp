// irqflow record: kvm tracepoints into a trace.dat; with --check, checked while they are
// recorded (ui/README.md, "Live check").
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>

#include "args.hpp"
#include "irqflow/capture/recorder.h"
#include "live_printer.hpp"
#include "pipeline.hpp"

namespace irqflow::cli {

namespace {

struct RecordOptions {
    std::string out;
    double duration = 0;
    int pid = 0, buffer_kb = 0;
    std::vector<std::string> command;
    bool check = false, json = false, fail_fast = false;
    std::string on_finding, on_finding_exec;
    replay::ReplayOptions replay;
};

// What the recording did, on stderr (as trace-cmd record reports it).
void print_recording(const RecordOptions& a, const pipeline::Recorded& r) {
    std::uint64_t recorded = 0;
    for (const auto& c : r.cpus) recorded += c.recorded;
    if (r.stopped_by) std::cerr << "irqflow record: stopped by " << (r.stopped_by == SIGINT ? "SIGINT" : "SIGTERM") << "\n";
    std::cerr << "irqflow record: wrote " << a.out << ": " << recorded << " events from " << r.cpus.size() << " CPUs, " << r.lost << " lost\n";
    for (std::size_t c = 0; c < r.cpus.size(); ++c) {
        const auto& p = r.cpus[c];
        std::cerr << "  CPU " << c << ": " << p.recorded << " recorded, " << p.overrun + p.dropped << " lost (" << p.overrun
                  << " overwritten, " << p.dropped << " dropped)\n";
    }
    if (r.late) std::cerr << "irqflow record: " << r.late << " events came to the live check after newer ones (checked as they came)\n";
    const std::string cmd = a.command.empty() ? "the command" : a.command[0];
    if (r.command_stopped) std::cerr << "irqflow record: " << cmd << " still ran when the recording ended: sent it SIGTERM\n";
    else if (r.command_status > 0) std::cerr << "irqflow record: " << cmd << " exited with status " << r.command_status << "\n";
}

// --on-finding stop: the process and everything it started (the command is often a
// wrapper — timeout, a script — around QEMU), parents before their children, so none
// runs on to start another. Their pids, to resume them with.
std::vector<int> stop_tree(int root) {
    std::map<int, std::vector<int>> children;
    if (DIR* d = ::opendir("/proc")) {
        while (const dirent* de = ::readdir(d)) {
            const int pid = std::atoi(de->d_name);
            if (pid <= 0) continue;
            std::ifstream f(std::string("/proc/") + de->d_name + "/stat");
            std::string stat((std::istreambuf_iterator<char>(f)), {});
            const auto paren = stat.rfind(')');  // the name may hold spaces and parentheses
            int ppid = 0;
            if (paren != std::string::npos && std::sscanf(stat.c_str() + paren + 1, " %*c %d", &ppid) == 1) children[ppid].push_back(pid);
        }
        ::closedir(d);
    }
    std::vector<int> stopped;
    std::vector<int> pending{root};
    while (!pending.empty()) {
        const int p = pending.back();
        pending.pop_back();
        if (::kill(p, SIGSTOP) == 0) stopped.push_back(p);
        for (int c : children[p]) pending.push_back(c);
    }
    return stopped;
}

// --on-finding-exec: `sh -c CMD` with the finding's JSON line on its standard input and
// the traced process in IRQFLOW_PID; not waited for (the recording goes on meanwhile),
// reaped at the end.
pid_t run_hook(const std::string& cmd, const std::string& json, int traced) {
    int in[2];
    if (::pipe(in) < 0) return -1;
    const pid_t p = ::fork();
    if (p == 0) {
        ::dup2(in[0], 0);
        ::close(in[0]);
        ::close(in[1]);
        if (traced > 0) ::setenv("IRQFLOW_PID", std::to_string(traced).c_str(), 1);
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(in[0]);
    if (p > 0) {
        const std::string line = json + "\n";
        std::signal(SIGPIPE, SIG_IGN);  // a hook that does not read its input
        if (::write(in[1], line.data(), line.size()) < 0) {}
    }
    ::close(in[1]);
    return p;
}

int record_checked(const RecordOptions& a) {
    const bool stop_it = a.on_finding == "stop";
    if ((stop_it || !a.on_finding_exec.empty()) && a.command.empty() && a.pid <= 0)
        throw UsageError("--on-finding needs the process to act on: -- CMD or --pid PID");
    LivePrinter printer(a.json);
    int traced = a.pid;
    bool first_root = true, stop_now = false;
    std::vector<pid_t> hooks;
    const pipeline::LiveWatch watch = printer.watch([&](const replay::Finding&, const std::string& json) {
        if (first_root && stop_it && traced > 0)
            if (const auto pids = stop_tree(traced); !pids.empty()) {
                std::cerr << "irqflow record: stopped at the first finding: pid";
                for (int p : pids) std::cerr << ' ' << p;
                std::cerr << " (resume with kill -CONT";
                for (int p : pids) std::cerr << ' ' << p;
                std::cerr << ")\n";
            }
        if (!a.on_finding_exec.empty())
            if (const pid_t h = run_hook(a.on_finding_exec, json, traced); h > 0) hooks.push_back(h);
        first_root = false;
        stop_now = stop_now || a.fail_fast || stop_it;  // a stopped guest has nothing more to record
    });
    pipeline::RecordCheck req{a.out, a.duration, a.pid, a.buffer_kb, a.command, stop_it,
                              [&](int pid) {
                                  if (a.pid <= 0) traced = pid;
                              },
                              [&] { return stop_now; }};
    const pipeline::Recorded r = pipeline::record_check(req, a.replay, watch);
    printer.end(r.checked);
    print_recording(a, r);
    if (r.stopped_by_check) std::cerr << "irqflow record: ended at the first root finding (--fail-fast)\n";
    for (const pid_t h : hooks) {
        int st = 0;
        if (::waitpid(h, &st, 0) == h && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
            std::cerr << "irqflow record: --on-finding-exec exited with status " << (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st)) << "\n";
    }
    return r.checked.result.divergences() + r.checked.result.liveness_failures() ? 1 : kExitOk;
}

int record(const RecordOptions& a) {
    if (a.duration <= 0 && a.command.empty()) throw UsageError("needs --duration SECONDS and/or -- CMD");
    if (!a.check && (a.json || a.fail_fast || !a.on_finding.empty() || !a.on_finding_exec.empty()))
        throw UsageError("--json, --fail-fast and --on-finding* need --check");
    try {
        if (a.check) return record_checked(a);
        print_recording(a, pipeline::record({a.out, a.duration, a.pid, a.buffer_kb, a.command, false, {}, {}}));
        return kExitOk;
    } catch (const pipeline::RecordError& e) {
        std::cerr << "irqflow record: " << e.what() << "\n";
        return e.status == IRQFLOW_RECORD_NO_COMMAND ? kExitCannotRun : kExitBadInput;
    }
}

}  // namespace

void add_record(CLI::App& app, Commands& out) {
    auto a = std::make_shared<RecordOptions>();
    auto* c = app.add_subcommand("record",
                                 "record kvm tracepoints live into a trace.dat (root; a private tracefs instance, never the "
                                 "top-level buffer); Ctrl-C stops it and writes the file");
    c->add_option("-o,--output", a->out, "the trace.dat to write (v6, opens in trace-cmd report and KernelShark)")
        ->type_name("OUT.dat")
        ->required();
    c->add_option("--duration", a->duration, "stop after this many seconds (default: when CMD exits)")
        ->type_name("SECONDS")
        ->check(CLI::PositiveNumber);
    c->add_option("--pid", a->pid, "trace only this process's threads, e.g. a running QEMU")->type_name("PID")->check(CLI::PositiveNumber);
    c->add_option("--buffer-kb", a->buffer_kb, "ring buffer per host CPU (default 8192)")->type_name("KiB")->check(CLI::Range(64, 4 << 20));
    c->add_flag("--check", a->check,
                "check while recording: each finding printed within a second of its event, as `check --follow` prints it; exit 1 on findings");
    c->add_flag("--json", a->json, "with --check: one JSON object per finding, then the summary (as `check --follow --json`)");
    c->add_flag("--fail-fast", a->fail_fast, "with --check: end the recording at the first root finding (the file is written; exit 1)");
    c->add_option("--on-finding", a->on_finding, "with --check: at the first root finding, stop (SIGSTOP) the command or --pid and what it started, leave them stopped and end the recording")
        ->type_name("stop")
        ->check(CLI::IsMember({"stop"}));
    c->add_option("--on-finding-exec", a->on_finding_exec,
                  "with --check: run `sh -c CMD` at each root finding, its JSON on standard input, the traced pid in $IRQFLOW_PID")
        ->type_name("CMD");
    add_semantics(*c, a->replay.semantics);
    c->add_option("CMD", a->command, "after --: a command to start and trace with the threads it creates (e.g. QEMU)");
    c->footer(examples({"irqflow record -o vm.dat --duration 10 --pid $(pgrep -f qemu-system)",
                        "irqflow record -o boot.dat -- qemu-system-x86_64 -enable-kvm -m 2G disk.img",
                        "irqflow record --check --fail-fast --on-finding stop -o hang.dat -- qemu-system-x86_64 -enable-kvm …"}));
    out.emplace_back(c, [a] { return record(*a); });
}

}  // namespace irqflow::cli
