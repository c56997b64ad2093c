// Diff tests of the replay rules: every file in tests/replay/cases/ is a trace-cmd
// report snippet with the findings it must produce written above it
//   # expect: RULE VCPU RECORD      (VCPU "-" when the finding names none)
//   # expect: RULE VCPU RECORD after ROOT   (a follow-on of the root finding at record ROOT)
//   # options: semantics=2012 reinject_loop=3 …   (replay options the case needs)
//   # diagnose: RECORD CAUSE KIND FROM TO   (the diagnosis of the root finding at RECORD:
//               its cause, the event it is about and the records of its window)
// and nothing else may be found. Files are named <RULE-ID>-fires-… (the rule must fire)
// or <RULE-ID>-quiet-… (it must not); every rule of rules.def has both. A case with a
// <case>.guest file beside it is replayed with that guest report as the guest's own
// trace, put on the host's clock (the GUEST-* rules' cases).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "helpers.hpp"
#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/diagnosis.hpp"
#include "irqflow/replay/replay.hpp"
#include "mail_wrap.hpp"
#include "text_helpers.hpp"

using namespace irqflow;
using namespace irqflow::replay;

namespace {

namespace fs = std::filesystem;

struct Expected {
    std::string rule, vcpu;
    std::uint64_t record;
    std::string after;  // the root's record for a follow-on, "" for a root
    auto operator<=>(const Expected&) const = default;
};

std::string text(const Expected& x) {
    return x.rule + " " + x.vcpu + " " + std::to_string(x.record) + (x.after.empty() ? "" : " after " + x.after);
}

ReplayOptions parse_options(const std::string& line, const std::string& file) {
    ReplayOptions o;
    std::istringstream in(line);
    std::string kv;
    while (in >> kv) {
        const auto eq = kv.find('=');
        INFO(file << ": option " << kv);
        REQUIRE(eq != std::string::npos);
        const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        if (k == "semantics") {
            REQUIRE(parse_semantics(v));
            o.semantics = *parse_semantics(v);
            continue;
        }
        const long long n = std::stoll(v);
        if (k == "pending_entries") o.pending_entries = static_cast<int>(n);
        else if (k == "pending_windows") o.pending_windows = static_cast<int>(n);
        else if (k == "pending_ms") o.pending_threshold_ns = n * 1'000'000;
        else if (k == "no_eoi_ms") o.no_eoi_threshold_ns = n * 1'000'000;
        else if (k == "reinject_loop") o.reinject_loop = static_cast<int>(n);
        else if (k == "level_storm") o.level_storm = static_cast<int>(n);
        else if (k == "apicv_flap") o.apicv_flap = static_cast<int>(n);
        else if (k == "accept_loop") o.accept_loop = static_cast<int>(n);
        else if (k == "accept_loop_silent") o.accept_loop_silent = static_cast<int>(n);
        else FAIL("unknown option " << k);
    }
    return o;
}

// The findings a replay gave, as the expectations are written.
std::multiset<Expected> found_in(const ReplayResult& r) {
    std::multiset<Expected> found;
    for (const auto& f : r.findings)
        found.insert({std::string(rule_info(f.rule).id), f.vcpu == kUnknownVcpu ? "-" : std::to_string(f.vcpu.value()), f.record,
                      f.caused_by ? std::to_string(r.findings[*f.caused_by].record) : ""});
    return found;
}

std::string listed(const std::multiset<Expected>& xs) {
    std::string s;
    for (const auto& x : xs) s += "\n  " + text(x);
    return s;
}

// The diagnosis of each root finding, as "# diagnose:" lines are written.
std::multiset<std::string> diagnoses_in(const ReplayResult& r) {
    std::multiset<std::string> d;
    for (const auto& f : r.findings)
        if (!f.caused_by && f.diagnosis) {
            const auto& x = f.diagnosis->top;
            d.insert(std::to_string(f.record) + " " + to_string(x.cause) + " " + kind_name(x) + " " + std::to_string(x.from) + " " +
                     std::to_string(x.to));
        }
    return d;
}

std::string listed(const std::multiset<std::string>& xs) {
    std::string s;
    for (const auto& x : xs) s += "\n  " + x;
    return s;
}

// IRQFLOW_UPDATE_GOLDEN=1: the case's "# diagnose:" lines rewritten to what the replay
// says, after its last "# expect:" line (the diff then shows what moved).
void write_diagnoses(const fs::path& path, const std::multiset<std::string>& found) {
    std::istringstream in(irqflow::test::read_file(path.string()));
    std::vector<std::string> lines;
    std::size_t after = 0;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("# diagnose: ", 0) == 0) continue;
        lines.push_back(line);
        if (line.rfind("# expect: ", 0) == 0) after = lines.size();
    }
    std::vector<std::string> add;
    for (const auto& d : found) add.push_back("# diagnose: " + d);
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(after), add.begin(), add.end());
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    irqflow::test::write_file(path.string(), out);
}

// A case file's "# options:" line.
ReplayOptions options_of(const std::string& file_text, const std::string& name) {
    std::istringstream in(file_text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("# options: ", 0) == 0) return parse_options(line.substr(11), name);
    return {};
}

// A case's replay: with the guest report beside it (`guest_text` given: that text
// instead, as wrapped) aligned onto the host's trace.
ReplayResult replay_case(const Trace& host, const fs::path& path, ReplayOptions options, const std::string* guest_text = nullptr) {
    fs::path guest_path = path;
    guest_path.replace_extension(".guest");
    if (!fs::exists(guest_path)) return replay::replay(host, options);
    GuestTrace guest = guest_text ? guest_events(irqflow::test::load_text(*guest_text, "guest-" + path.filename().string()))
                                  : load_guest_trace(guest_path.string());
    const GuestClock clock = align_guest_clock(host, guest);
    INFO(clock.detail);
    REQUIRE(clock.method == GuestClock::Method::Tsc);
    options.guest = &guest;
    options.guest_vm = clock.vm;
    return replay::replay(host, options);
}

std::vector<fs::path> case_files() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(IRQFLOW_CASES))
        if (e.path().extension() == ".txt") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

TEST_CASE("every rule case replays to exactly the findings written above it", "[replay][cases]") {
    std::map<std::string, std::pair<int, int>> per_rule;  // fires, quiet files
    for (const auto& r : all_rules()) per_rule[std::string(r.id)] = {0, 0};
    const auto files = case_files();
    REQUIRE(files.size() >= 2 * per_rule.size());
    for (const auto& path : files) {
        const std::string name = path.filename().string();
        INFO(name);
        // which rule, and whether it must fire
        std::string rule;
        bool fires = false;
        for (const auto& [id, counts] : per_rule)
            for (const char* how : {"-fires", "-quiet"})
                if (name.rfind(id + how, 0) == 0 && id.size() > rule.size()) {
                    rule = id;
                    fires = std::string(how) == "-fires";
                }
        REQUIRE(!rule.empty());
        (fires ? per_rule[rule].first : per_rule[rule].second) += 1;
        // what it expects
        std::multiset<Expected> expected;
        std::multiset<std::string> diagnosed;
        ReplayOptions options;
        std::istringstream in(irqflow::test::read_file(path.string()));
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("# expect: ", 0) == 0) {
                std::istringstream f(line.substr(10));
                Expected x;
                REQUIRE(f >> x.rule >> x.vcpu >> x.record);
                REQUIRE(rule_by_id(x.rule));
                if (std::string word; f >> word) {
                    REQUIRE(word == "after");
                    REQUIRE(f >> x.after);
                }
                expected.insert(x);
            } else if (line.rfind("# options: ", 0) == 0) {
                options = parse_options(line.substr(11), name);
            } else if (line.rfind("# diagnose: ", 0) == 0) {
                diagnosed.insert(line.substr(12));
            }
        }
        const bool mentions = std::any_of(expected.begin(), expected.end(), [&](const Expected& x) { return x.rule == rule; });
        CHECK(mentions == fires);
        // what it finds
        LoadOptions load;
        load.other_event_info = true;  // a guest case's host side aligns the clocks with kvm_write_tsc_offset's fields
        const ReplayResult result = replay_case(load_trace(path.string(), load), path, options);
        const std::multiset<Expected> found = found_in(result);
        INFO("expected:" << listed(expected) << "\nfound:" << listed(found));
        CHECK(found == expected);
        // and what it says happened
        const auto said = diagnoses_in(result);
        if (std::getenv("IRQFLOW_UPDATE_GOLDEN") && said != diagnosed) write_diagnoses(path, said);
        INFO("diagnoses written:" << listed(diagnosed) << "\ndiagnoses given:" << listed(said));
        CHECK(said == diagnosed);
        if (fires) CHECK(!diagnosed.empty());  // every root a firing case shows is explained
    }
    for (const auto& [id, counts] : per_rule) {
        INFO(id);
        CHECK(counts.first >= 1);   // a case where it fires
        CHECK(counts.second >= 1);  // a case where it must stay quiet
    }
}

// Bug reports arrive wrapped by mail clients (capture/README.md, "Reading pasted text"):
// every case, wrapped in every way tests/mail_wrap.hpp knows at 72, 76 and 80 columns,
// must read as the same events and give the same findings as the case as written.
TEST_CASE("every rule case, wrapped as mail clients wrap it, gives the events and findings of the case unwrapped", "[replay][cases][wrapped]") {
    for (const auto& path : case_files()) {
        const std::string name = path.filename().string();
        const std::string plain = irqflow::test::read_file(path.string());
        const ReplayOptions options = options_of(plain, name);
        LoadOptions load;
        load.other_event_info = true;
        const Trace want = load_trace(path.string(), load);
        const ReplayResult unwrapped = replay_case(want, path, options);
        fs::path guest_path = path;
        guest_path.replace_extension(".guest");
        const std::string guest_plain = fs::exists(guest_path) ? irqflow::test::read_file(guest_path.string()) : std::string();
        const auto expected = found_in(unwrapped);
        const auto diagnosed = diagnoses_in(unwrapped);
        for (const auto style : irqflow::test::kWrapStyles)
            for (const std::size_t width : {72, 76, 80}) {
                INFO(name << ", " << irqflow::test::to_string(style) << " at " << width << " columns");
                const std::string wrapped = irqflow::test::mail_wrap(plain, style, width, static_cast<unsigned>(width + name.size()));
                const Trace t = irqflow::test::load_text(wrapped, "wrapped-" + name, load);
                irqflow::test::require_identical_events(want, t, style != irqflow::test::WrapStyle::MidToken && style != irqflow::test::WrapStyle::Mixed);
                const std::string guest_wrapped = irqflow::test::mail_wrap(guest_plain, style, width, static_cast<unsigned>(width + name.size()));
                const ReplayResult r = replay_case(t, path, options, &guest_wrapped);
                const auto found = found_in(r);
                INFO("unwrapped:" << listed(expected) << "\nwrapped:" << listed(found));
                CHECK(found == expected);
                CHECK(diagnoses_in(r) == diagnosed);
            }
    }
}

// A newcomer finds a rule from replay/README.md in one step: its table lists every
// rule of rules.def, in order, with the same severity and summary, linked to the file
// that holds it; and every file in replay/src/rules/ named like a rule is one.
TEST_CASE("replay/README.md's rule table matches rules.def and the rule files", "[replay][cases]") {
    const std::string root = IRQFLOW_SOURCE;
    std::istringstream in(irqflow::test::read_file(root + "/replay/README.md"));
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("| [`", 0) != 0) continue;
        std::vector<std::string> cells;
        std::size_t pos = 1;
        for (std::size_t bar; (bar = line.find(" |", pos)) != std::string::npos; pos = bar + 2) {
            std::string cell = line.substr(pos, bar - pos);
            while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
            cells.push_back(cell);
        }
        rows.push_back(cells);
    }
    const auto rules = all_rules();
    REQUIRE(rows.size() == rules.size());
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const std::string id(rules[i].id);
        INFO(id);
        REQUIRE(rows[i].size() >= 3);
        CHECK(rows[i][0] == "[`" + id + "`](src/rules/" + id + ".hpp)");
        CHECK(rows[i][1] == to_string(rules[i].severity));
        CHECK(rows[i][2] == rules[i].summary);
        CHECK(std::filesystem::exists(root + "/replay/src/rules/" + id + ".hpp"));
    }
    for (const auto& e : std::filesystem::directory_iterator(root + "/replay/src/rules")) {
        const auto stem = e.path().stem().string();
        // rule files are named in capitals (the rules' own helpers are not)
        if (e.path().extension() != ".hpp" || stem.empty() || stem.front() < 'A' || stem.front() > 'Z') continue;
        INFO(e.path());
        CHECK(rule_by_id(stem).has_value());
    }
}
