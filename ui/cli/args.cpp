#include "args.hpp"
#include "irqflow/storage/store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "irqflow/capture/error.hpp"

namespace irqflow::cli {

CLI::Option* add_trace(CLI::App& c, std::string& path) {
    return c.add_option("TRACE", path,
                        "the capture: a trace.dat (v6 or v7), `trace-cmd report` text or `perf script` text "
                        "(pasted excerpts too)")
        ->required();
}

CLI::Option* add_serial(CLI::App& c, std::string& path) {
    return c.add_option("--serial", path, "the guest's serial console log of the same run, aligned onto the trace's clock")
        ->type_name("LOG");
}

CLI::Option* add_guest(CLI::App& c, std::string& path) {
    return c.add_option("--guest", path,
                        "the guest's own trace of the same run (irq_vectors, irq_handler_*: a trace.dat or report text), "
                        "put on the host trace's clock (README.md, \"Both sides\")")
        ->type_name("GUEST");
}

CLI::Option* add_semantics(CLI::App& c, replay::PvEoiSemantics& s) {
    std::vector<std::string> names;  // spelled as replay spells them
    for (auto v : {replay::PvEoiSemantics::Auto, replay::PvEoiSemantics::Original2012, replay::PvEoiSemantics::Current})
        names.emplace_back(replay::to_string(v));
    return c.add_option_function<std::string>(
                "--semantics", [&s](const std::string& v) { s = *replay::parse_semantics(v); },
                "how the host arms PV EOI: 2012 (the first patches), current (today's KVM) or auto (whichever the "
                "trace shows; the default)")
        ->type_name("RULE")
        ->check(CLI::IsMember(names));
}

CLI::Option* add_db(CLI::App& c, std::string& path, bool must_exist) {
    auto* o = c.add_option("--db", path, "the SQLite file of stored sessions, or a PostgreSQL server: postgresql://[USER@]HOST[:PORT]/DB "
                                         "(password from PGPASSWORD or ~/.pgpass, never in the URI)")
                  ->type_name("FILE|URI")
                  ->required();
    if (must_exist)  // a typo must not create an empty database (a server says for itself)
        o->check(CLI::Validator(
            [](const std::string& p) {
                return storage::is_postgres_uri(p) || std::filesystem::exists(p) ? std::string() : "no database " + p + " (irqflow import creates one)";
            },
            "", "an existing database"));
    return o;
}

CLI::Option* add_vcpu(CLI::App& c, int& vcpu) {
    return c.add_option("--vcpu", vcpu, "only this vCPU's events (its index in the VM, decimal)")
        ->type_name("N")
        ->transform(CLI::Validator(
            [](std::string& v) {  // decimal only: "010" is ten, not an octal eight
                if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
                    return std::string("a vCPU number (decimal digits)");
                v = std::to_string(std::stoi(v));
                return std::string();
            },
            "", "decimal"));
}

int parse_vector(const std::string& text) {
    const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    std::size_t used = 0;
    int v = -1;
    try {
        v = std::stoi(text, &used, hex ? 16 : 10);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || v < 0 || v > 255) throw CLI::ValidationError("--vector", text + ": a vector is 0..255 (0x00..0xff)");
    return v;
}

void check_vcpu(const Trace& t, const std::string& shown, int vcpu) {
    std::set<int> ids;
    for (const auto& vm : t.vms)
        for (const auto& v : vm.vcpus) ids.insert(v.id.value());
    if (ids.count(vcpu)) return;
    std::string list;
    for (int id : ids) list += (list.empty() ? "" : ", ") + std::to_string(id);
    throw UsageError("--vcpu " + std::to_string(vcpu) + ": " + shown + " has " + (ids.empty() ? std::string("no vCPU") : "vCPUs " + list));
}

namespace {
std::map<std::string, std::string>& spooled() {  // /proc/self/fd/N → the name given
    static std::map<std::string, std::string> m;
    return m;
}

// While a pipe or FIFO gives nothing, a user at a terminal sees nothing happen: after a
// few seconds without a byte this says, once, on stderr (a terminal only: a script's log
// wants no such line), what irqflow is waiting for. It ends with the first byte or EOF.
class WaitNotice {
public:
    static constexpr auto kAfter = std::chrono::seconds(3);
    explicit WaitNotice(std::string name) : name_(std::move(name)) {
        if (!isatty(STDERR_FILENO)) return;
        thread_ = std::thread([this] {
            std::unique_lock lock(m_);
            if (cv_.wait_for(lock, kAfter, [this] { return done_; })) return;
            std::fprintf(stderr,
                         "irqflow: %s: waiting for data (nothing came for %lld s): a FIFO needs a writer, a pipe's writer may not "
                         "have started; a live stream is read by check --follow\n",
                         name_.c_str(), static_cast<long long>(kAfter.count()));
        });
    }
    void stop() {
        {
            std::lock_guard lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }
    ~WaitNotice() { stop(); }

private:
    std::string name_;
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};
}  // namespace

std::string readable_trace(const std::string& given) {
    struct stat st {};
    const bool stdin_given = given == "-";
    if (!stdin_given && (stat(given.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return given;
    const std::string name = stdin_given ? "<stdin>" : given;
    WaitNotice waiting(name);  // a FIFO's open waits for a writer, its first read for data
    const int in = stdin_given ? STDIN_FILENO : open(given.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) throw InputError(name, {}, std::string("cannot open: ") + std::strerror(errno));
    if (stdin_given && isatty(in)) throw UsageError("TRACE is -, but standard input is a terminal: pipe a trace in");
    // Unlinked at once: nothing is left behind however the process ends.
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/irqflow-stdin-XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) throw InputError(name, {}, "cannot create a temporary file in " + tmpl + ": " + std::strerror(errno));
    unlink(tmpl.c_str());
    std::vector<char> buf(1 << 20);
    for (;;) {
        const ssize_t n = read(in, buf.data(), buf.size());
        waiting.stop();
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw InputError(name, {}, std::string("cannot read: ") + std::strerror(errno));
        }
        for (ssize_t off = 0; off < n;) {
            const ssize_t w = write(fd, buf.data() + off, static_cast<std::size_t>(n - off));
            if (w < 0) throw InputError(name, {}, std::string("cannot save it to a temporary file: ") + std::strerror(errno));
            off += w;
        }
    }
    if (!stdin_given) close(in);
    const std::string path = "/proc/self/fd/" + std::to_string(fd);  // stays open until exit
    spooled()[path] = name;
    return path;
}

std::string shown_name(const std::string& path) {
    const auto it = spooled().find(path);
    return it == spooled().end() ? path : it->second;
}

std::string examples(std::initializer_list<const char*> lines) {
    std::string s = "\nExamples:\n";
    for (const char* l : lines) s += std::string("  ") + l + "\n";
    return s;
}

}  // namespace irqflow::cli
