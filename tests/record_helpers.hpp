// Running `irqflow record` in tests (root only; the recorder's own tracefs instance).
#pragma once
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "helpers.hpp"

namespace irqflow::test {
// One `irqflow record` in the background (its stderr to `err`), optionally sent `signal`
// once its tracefs instance exists; its pid and exit status. Tests run in parallel, so
// "nothing left" is judged on this recorder's own instance, irqflow_<pid>.
struct Recording {
    int pid = 0, status = -1;
};
inline Recording record(const std::string& args, const std::filesystem::path& err, const std::string& signal = "") {
    std::string script = cli() + " record " + args + " 2>'" + err.string() + "' & P=$!; ";
    if (!signal.empty())
        script += "for i in $(seq 200); do [ -d /sys/kernel/tracing/instances/irqflow_$P ] && break; sleep 0.05; done; kill -" + signal + " $P; ";
    script += "wait $P; echo \"$P $?\"";
    auto r = run("sh -c '" + script + "'");
    Recording out;
    std::sscanf(r.out.c_str(), "%d %d", &out.pid, &out.status);
    return out;
}
inline bool recording_possible() {
    if (geteuid() != 0) return false;
    auto probe = scratch("probe.dat");
    return run(cli() + " record -o '" + probe.string() + "' --duration 0.1", true).status == 0;
}
// Neither this recorder's tracefs instance nor a per-CPU temp file next to `out` is left.
inline void check_nothing_left(const Recording& r, const std::filesystem::path& out) {
    CHECK_FALSE(std::filesystem::exists("/sys/kernel/tracing/instances/irqflow_" + std::to_string(r.pid)));
    CHECK_FALSE(std::filesystem::exists(out.string() + ".cpu0"));
}

}  // namespace irqflow::test
