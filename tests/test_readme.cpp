// The README's transcripts are run: every `$ irqflow …` in a fenced block is executed
// with the real binary from the repository's root, and its output must read as the
// README shows it. So the help text, messages and numbers a new user copies from the
// README are the ones the program prints, and a change to either shows up here.
//
// Reading a transcript: a line that is only "…" (indented or not) stands for any number
// of lines the README leaves out; a line ending in "…" is a prefix of the real line;
// every other line is exact. A command's output ends at the next `$` or the block's end.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "helpers.hpp"

using namespace irqflow::test;

namespace {

struct Transcript {
    int line = 0;         // README line of the `$`
    std::string command;  // continuation lines joined
    std::vector<std::string> expected;
};

std::vector<std::string> readme_lines() {
    std::ifstream in(std::string(IRQFLOW_SOURCE) + "/README.md");
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

// Each `$ ` command in a fenced block, with the lines up to the next `$` or fence.
std::vector<Transcript> transcripts(const std::vector<std::string>& lines) {
    std::vector<Transcript> out;
    bool in_block = false;
    Transcript* cur = nullptr;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (l.rfind("```", 0) == 0) {
            in_block = !in_block;
            cur = nullptr;
            continue;
        }
        if (!in_block) continue;
        if (l.rfind("$ ", 0) == 0) {
            out.push_back({static_cast<int>(i + 1), l.substr(2), {}});
            cur = &out.back();
            while (!cur->command.empty() && cur->command.back() == '\\' && i + 1 < lines.size())
                cur->command.pop_back(), cur->command += " " + lines[++i];
            continue;
        }
        if (cur) cur->expected.push_back(l);
    }
    return out;
}

std::string rtrim(std::string s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    return s;
}

bool is_elision(const std::string& l) {
    const auto at = l.find_first_not_of(' ');
    return at != std::string::npos && l.compare(at, std::string::npos, "…") == 0;
}

bool line_matches(const std::string& want, const std::string& got) {
    const std::string dots = "…";
    if (want.size() >= dots.size() && want.compare(want.size() - dots.size(), dots.size(), dots) == 0) {
        const std::string prefix = want.substr(0, want.size() - dots.size());
        return got.rfind(prefix, 0) == 0;
    }
    return rtrim(want) == rtrim(got);
}

// Empty when the output reads as the transcript; else what differs first.
std::string compare(const std::vector<std::string>& want, const std::vector<std::string>& got) {
    std::size_t j = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        if (is_elision(want[i])) {
            if (i + 1 == want.size()) return {};
            const std::string& next = want[i + 1];
            while (j < got.size() && !line_matches(next, got[j])) ++j;
            if (j == got.size()) return "not in the output after an elision: " + next;
            continue;
        }
        if (j >= got.size()) return "the output ends before: " + want[i];
        if (!line_matches(want[i], got[j]))
            return "expected: " + want[i] + "\n     got: " + got[j];
        ++j;
    }
    // trailing blank lines of the transcript or the output do not count
    while (j < got.size() && rtrim(got[j]).empty()) ++j;
    return j == got.size() ? std::string() : "the output goes on: " + got[j];
}

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    while (!v.empty() && rtrim(v.back()).empty()) v.pop_back();
    return v;
}

// A directory where the transcripts run: the repository's samples and tests, the
// binary as `irqflow`, and the edited report the diagnosis example describes.
std::filesystem::path stage() {
    const auto dir = scratch("readme");
    std::filesystem::create_directories(dir / "bin");
    for (const char* d : {"samples", "tests"})
        if (!std::filesystem::exists(dir / d))
            std::filesystem::create_directory_symlink(std::filesystem::path(IRQFLOW_SOURCE) / d, dir / d);
    if (!std::filesystem::exists(dir / "bin/irqflow")) std::filesystem::create_symlink(cli(), dir / "bin/irqflow");
    // README: "one kvm_eoi of 0xfb was deleted from the trace-cmd report text of
    // samples/xapic.dat (line 77701 of 150,407)"
    const auto edited = dir / "xapic-report-without-one-eoi.txt";
    if (!std::filesystem::exists(edited)) {
        const auto r = run("trace-cmd report '" + sample("xapic.dat") + "' | sed 77701d > '" + edited.string() + "'");
        REQUIRE(r.status == 0);
    }
    for (const char* db : {"s.db", "hostguest.db"}) std::filesystem::remove(dir / db);
    return dir;
}

}  // namespace

TEST_CASE("every irqflow transcript in the README prints what the README shows", "[readme]") {
    const auto all = transcripts(readme_lines());
    const auto dir = stage();
    int checked = 0;
    for (const auto& t : all) {
        if (t.command.rfind("irqflow", 0) != 0) continue;  // other tools' output (perf) is quoted, not ours
        const auto r = run("cd '" + dir.string() + "' && export PATH='" + (dir / "bin").string() + "':\"$PATH\" COLUMNS=80; " +
                               t.command,
                           true);
        const std::string diff = compare(t.expected, split_lines(r.out));
        INFO("README.md line " << t.line << ": $ " << t.command << "\n" << diff);
        CHECK(diff.empty());
        ++checked;
    }
    CHECK(checked >= 10);
}

// The synopsis at the top of "Using it" names each command's options; each must be one
// that command's --help lists.
TEST_CASE("every option in the README's synopsis is one its command accepts", "[readme]") {
    const auto lines = readme_lines();
    const auto at = std::find(lines.begin(), lines.end(), "## Using it");
    REQUIRE(at != lines.end());
    auto l = std::find(at, lines.end(), "```");
    REQUIRE(l != lines.end());
    const std::regex option(R"((--[a-z][a-z-]*))");
    int commands = 0;
    for (++l; l != lines.end() && *l != "```"; ++l) {
        std::istringstream words(*l);
        std::string prog, cmd;
        words >> prog >> cmd;
        if (prog != "irqflow" || cmd.rfind("-", 0) == 0 || cmd == "help") continue;
        const std::string synopsis = l->substr(0, l->find('#'));
        const auto help = run(cli() + " " + cmd + " --help", true);
        INFO("README synopsis: " << *l);
        REQUIRE(help.status == 0);
        for (std::sregex_iterator m(synopsis.begin(), synopsis.end(), option), end; m != end; ++m) {
            INFO("option " << (*m)[1]);
            CHECK(help.out.find((*m)[1].str()) != std::string::npos);
        }
        ++commands;
    }
    CHECK(commands >= 10);
}
