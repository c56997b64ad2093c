// The live check as a user runs it: report text of a real capture written into
// `irqflow check --follow -` through a pipe (as `trace-cmd stream -e kvm | irqflow check
// --follow -` does), with one fault in it (ui/README.md, "Live check").
#include <catch2/catch.hpp>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "helpers.hpp"

using namespace irqflow::test;
using Json = nlohmann::json;

extern char** environ;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
}

std::string report_text(const std::string& dat) { return run("trace-cmd report '" + dat + "' 2>/dev/null").out; }

// The report of pveoi-off.dat with the kvm_eoi of the 500th EOI deleted: the fault
// ISR-ORDER names as a missing EOI (and where it is, so a test can wait there).
struct Faulty {
    std::vector<std::string> lines;
    std::size_t fault = 0;  // index of the line after the deleted one
};
const Faulty& faulty() {
    static const Faulty f = [] {
        Faulty x;
        std::size_t eois = 0;
        for (auto& l : lines_of(report_text(sample("pveoi-off.dat")))) {
            if (l.find(" kvm_eoi:") != std::string::npos && ++eois == 500) {
                x.fault = x.lines.size();
                continue;
            }
            x.lines.push_back(std::move(l));
        }
        return x;
    }();
    return f;
}

// irqflow check ARGS with its stdin and stdout on pipes.
struct Child {
    pid_t pid = -1;
    int in = -1, out = -1;
    explicit Child(const std::vector<std::string>& args) {
        int to[2], from[2];
        REQUIRE(pipe2(to, O_CLOEXEC) == 0);
        REQUIRE(pipe2(from, O_CLOEXEC) == 0);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, to[0], 0);
        posix_spawn_file_actions_adddup2(&fa, from[1], 1);
        std::vector<std::string> argv_s{cli()};
        argv_s.insert(argv_s.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : argv_s) argv.push_back(a.data());
        argv.push_back(nullptr);
        REQUIRE(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0);
        posix_spawn_file_actions_destroy(&fa);
        ::close(to[0]);
        ::close(from[1]);
        in = to[1];
        out = from[0];
    }
    void write_lines(const std::vector<std::string>& l, std::size_t from, std::size_t to) {
        std::string chunk;
        for (std::size_t i = from; i < to; ++i) chunk += l[i] + '\n';
        for (std::size_t done = 0; done < chunk.size();) {
            const ssize_t n = ::write(in, chunk.data() + done, chunk.size() - done);
            REQUIRE(n > 0);
            done += static_cast<std::size_t>(n);
        }
    }
    // What the child wrote within `wait`, up to its first complete line holding `what`.
    std::string read_until(const std::string& what, std::chrono::milliseconds wait) {
        const auto until = std::chrono::steady_clock::now() + wait;
        while (got.find(what) == std::string::npos || got.find('\n', got.find(what)) == std::string::npos) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
            if (left <= 0) break;
            pollfd p{out, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left)) <= 0) break;
            char b[65536];
            const ssize_t n = ::read(out, b, sizeof b);
            if (n <= 0) break;
            got.append(b, static_cast<std::size_t>(n));
        }
        return got;
    }
    int finish() {
        ::close(in);
        in = -1;
        read_until("\"summary\"", std::chrono::seconds(60));
        int status = 0;
        waitpid(pid, &status, 0);
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    ~Child() {
        if (in >= 0) ::close(in);
        if (out >= 0) ::close(out);
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    }
    std::string got;
};

}  // namespace

TEST_CASE("check --follow reports a fault while the input is still being written", "[follow][cli]") {
    const auto& f = faulty();
    REQUIRE(f.fault > 1000);
    Child c({"check", "--follow", "--json", "-"});
    // The text up to a little past the fault, written in pieces as a stream would, then
    // nothing: the finding must come while the rest is withheld.
    constexpr std::size_t kPiece = 2000;
    const std::size_t upto = std::min(f.fault + 400, f.lines.size());
    for (std::size_t i = 0; i < upto; i += kPiece) {
        c.write_lines(f.lines, i, std::min(i + kPiece, upto));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const auto written = std::chrono::steady_clock::now();
    const std::string early = c.read_until("ISR-ORDER", std::chrono::seconds(5));
    const auto latency = std::chrono::steady_clock::now() - written;
    INFO("output before the rest was written: " << early);
    REQUIRE(early.find("\"ISR-ORDER\"") != std::string::npos);
    CHECK(latency < std::chrono::seconds(1));
    const Json first = Json::parse(early.substr(0, early.find('\n')));
    CHECK(first["rule"] == "ISR-ORDER");
    CHECK(first["diagnosis"]["cause"] == "missing");
    CHECK(first["diagnosis"]["kind"] == "kvm_eoi");
    c.write_lines(f.lines, upto, f.lines.size());
    CHECK(c.finish() == 1);
    CHECK(c.got.find("\"summary\"") != std::string::npos);
}

// The same findings (every field, in order) and the same statistics as `check` on the
// file, for each sample and for the faulty text — but for the events a vCPU thread
// emitted before its first entry more than the look-ahead's 200 ms of trace earlier:
// live they stay without a vCPU, so they are not counted as unsynced either.
TEST_CASE("check --follow on a pipe and check on the file agree, for every sample", "[follow][cli]") {
    const auto path = scratch("follow-agree.txt").string();
    std::vector<std::pair<std::string, std::string>> inputs;
    for (const auto& dat : dat_samples()) inputs.push_back({dat, report_text(sample(dat))});
    std::string faulty_text;
    for (const auto& l : faulty().lines) faulty_text += l + '\n';
    inputs.push_back({"pveoi-off.dat with an EOI deleted", faulty_text});
    std::size_t with_findings = 0;
    for (const auto& [name, text] : inputs) {
        INFO(name);
        write_file(path, text);
        const Json offline = Json::parse(run(cli() + " check --json '" + path + "'").out);
        const auto live_lines = lines_of(run("cat '" + path + "' | " + cli() + " check --follow --json -").out);
        REQUIRE(!live_lines.empty());
        Json findings = Json::array();
        for (std::size_t i = 0; i + 1 < live_lines.size(); ++i) findings.push_back(Json::parse(live_lines[i]));
        const Json last = Json::parse(live_lines.back());
        CHECK(findings == offline["findings"]);
        Json summary = last["summary"], offline_summary = offline["summary"];
        CHECK(summary["unsynced_events"].get<std::int64_t>() <= offline_summary["unsynced_events"].get<std::int64_t>());
        summary.erase("unsynced_events");
        offline_summary.erase("unsynced_events");
        CHECK(summary == offline_summary);
        CHECK(last["not_judged"] == offline["not_judged"]);
        with_findings += !findings.empty();
    }
    CHECK(with_findings >= 1);  // the comparison saw findings, not only empty lists
}

TEST_CASE("check --follow on text that is not a trace, or with --serial, says so", "[follow][cli]") {
    CHECK(run("printf 'hello\\nworld\\n' | " + cli() + " check --follow - 2>&1").status == 2);
    CHECK(run("printf 'hello\\n' | " + cli() + " check --follow --serial /dev/null - 2>&1").status == 64);
}
