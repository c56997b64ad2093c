// `record --check`: irqflow_record reads every host CPU's ring buffer in rounds and hands
// each page here as it is read; RingFollow decodes and merges them, LiveCheck replays
// (pipeline.hpp). Everything runs on the recording thread, between two read rounds: a
// checker slower than the guest makes the ring buffer overrun, and those losses are in
// the trace.dat and the live check alike (they read the same pages).
#include <sys/utsname.h>
#include <traceevent/event-parse.h>

#include <fstream>

#include "irqflow/capture/recorder.h"
#include "irqflow/capture/ring_follow.hpp"
#include "pipeline.hpp"

namespace irqflow::pipeline {
namespace {

// An event is stamped when its slot is reserved and readable once committed: one that
// was being written while its CPU was read comes a round later with an older time. The
// merge holds back what is this close to a round's start, so such an event still goes
// out in order (RingFollow counts the ones that do not).
constexpr std::int64_t kInFlightNs = 1000000;

std::string comm_of(std::int32_t tid) {
    std::ifstream f("/proc/" + std::to_string(tid) + "/comm");
    std::string name;
    std::getline(f, name);
    return name;
}

TraceMeta live_meta(const std::string& output) {
    TraceMeta m;
    m.source = output;
    m.format = "live ring buffer (irqflow record)";
    m.clock = "mono";
    if (utsname u{}; uname(&u) == 0) {
        m.kernel_release = u.release;
        m.host_name = u.nodename;
    }
    return m;
}

struct TepFree {
    void operator()(tep_handle* t) const { tep_free(t); }
};

struct Session {
    const RecordCheck& request;
    const replay::ReplayOptions& options;
    const LiveWatch& watch;
    const LiveOptions& live;
    std::unique_ptr<tep_handle, TepFree> tep;
    std::unique_ptr<RingFollow> ring;
    std::unique_ptr<LiveCheck> check;
    std::exception_ptr error;  // nothing may unwind through the recorder's C frames

    template <class F>
    int guarded(F&& f) {
        if (error) return 1;
        try {
            return f() ? 1 : 0;
        } catch (...) {
            error = std::current_exception();
            return 1;
        }
    }
};

int on_start(void* ctx, int cpus, int page_size, int pid) {
    auto& s = *static_cast<Session*>(ctx);
    return s.guarded([&] {
        s.tep.reset(irqflow_record_formats());
        if (!s.tep) throw RecordError(IRQFLOW_RECORD_UNAVAILABLE, "cannot read the kvm event formats from tracefs");
        s.ring = std::make_unique<RingFollow>(s.tep.get(), cpus, static_cast<std::uint64_t>(page_size), live_meta(s.request.output),
                                              comm_of, s.request.output, s.live.follow);
        s.check = std::make_unique<LiveCheck>(s.ring->trace(), s.options, s.watch, s.live);
        if (s.request.started) s.request.started(pid);
        return false;
    });
}

int on_page(void* ctx, int cpu, const void* page, int) {
    auto& s = *static_cast<Session*>(ctx);
    return s.guarded([&] {
        s.ring->page(cpu, page);
        return false;
    });
}

int on_drained(void* ctx, unsigned long long before_ns) {
    auto& s = *static_cast<Session*>(ctx);
    return s.guarded([&] {
        s.ring->drained(TimestampNs(static_cast<std::int64_t>(before_ns) - kInFlightNs), s.check->handlers());
        s.check->tick(s.ring->progress());
        return s.request.stop && s.request.stop();
    });
}

// irqflow_record with `hooks` (none: record only), its result as a Recorded. A hook's
// exception, kept by the Session, is rethrown once the recorder has cleaned up.
Recorded run_recorder(const RecordCheck& request, const irqflow_record_live* hooks, const std::exception_ptr* hook_error) {
    std::vector<std::string> args = request.command;
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const irqflow_record_opts o{request.output.c_str(), request.duration_s, request.pid, args.empty() ? nullptr : argv.data(),
                                request.buffer_kb, hooks, request.leave_command ? 1 : 0};
    irqflow_record_result r{};
    char err[512] = {};
    const int status = irqflow_record(&o, &r, err, sizeof err);
    if (hook_error && *hook_error) {
        irqflow_record_free(&r);
        std::rethrow_exception(*hook_error);
    }
    if (status != IRQFLOW_RECORD_OK) throw RecordError(status, err);
    Recorded out;
    for (int c = 0; r.per_cpu && c < r.cpus; ++c) out.cpus.push_back({r.per_cpu[c].recorded, r.per_cpu[c].overrun, r.per_cpu[c].dropped});
    out.lost = r.overrun;
    out.command_status = r.command_status;
    out.command_stopped = r.command_stopped != 0;
    out.stopped_by = r.stopped_by;
    out.stopped_by_check = r.stopped_by_live != 0;
    irqflow_record_free(&r);
    return out;
}

}  // namespace

Recorded record(const RecordCheck& request) { return run_recorder(request, nullptr, nullptr); }

Recorded record_check(const RecordCheck& request, const replay::ReplayOptions& options, const LiveWatch& watch, const LiveOptions& live) {
    Session s{request, options, watch, live, nullptr, nullptr, nullptr, nullptr};
    const irqflow_record_live hooks{&s, on_start, on_page, on_drained};
    Recorded out = run_recorder(request, &hooks, &s.error);
    s.ring->end(s.check->handlers());
    out.late = s.ring->late_events();
    out.checked = s.check->finish();
    return out;
}

}  // namespace irqflow::pipeline
