// What a new user trips over in the window, checked on the real window under Xvfb: the
// key of colours beside the lanes (not over them), a navigation bar and tables that fit a
// narrow panel, histograms with axes and counts, labelled 256-bit grids.
#include <catch2/catch.hpp>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "gui_window.hpp"
#include "helpers.hpp"
#include "latency_model.hpp"
#include "options.hpp"
#include "session.hpp"
#include "timeline_model.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

// ImGui's dark style, as irqflow-gui sets it: the colours its widgets are drawn in.
std::uint32_t style_colour(ImGuiCol which) {
    static ImGuiContext* ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(ctx);
    ImGui::StyleColorsDark();
    return ImGui::ColorConvertFloat4ToU32(ImGui::GetStyle().Colors[which]);
}

// The numbers after `prefix` on the first line of `text` that starts with it.
std::vector<double> numbers_after(const std::string& text, const std::string& prefix) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(prefix, 0) != 0) continue;
        std::istringstream rest(line.substr(prefix.size()));
        std::vector<double> out;
        for (double v; rest >> v;) out.push_back(v);
        return out;
    }
    return {};
}

// Pixels of colour c in the box, grouped into 8-connected blobs: how many blobs.
int blobs(const Image& img, std::uint32_t c, int x0, int y0, int x1, int y1) {
    std::set<std::pair<int, int>> seen;
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            if (img.at(x, y) != c || seen.count({x, y})) continue;
            ++n;
            std::vector<std::pair<int, int>> stack{{x, y}};
            seen.insert({x, y});
            while (!stack.empty()) {
                const auto [px, py] = stack.back();
                stack.pop_back();
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int qx = px + dx, qy = py + dy;
                        if (qx < x0 || qy < y0 || qx >= x1 || qy >= y1 || img.at(qx, qy) != c || seen.count({qx, qy})) continue;
                        seen.insert({qx, qy});
                        stack.push_back({qx, qy});
                    }
            }
        }
    return n;
}

bool bright(std::uint32_t c) {  // text on the dark panels
    return (c & 0xff) > 0x70 && ((c >> 8) & 0xff) > 0x70 && ((c >> 16) & 0xff) > 0x70;
}

}  // namespace

TEST_CASE("the key of colours docks beside the lanes: they end where it begins and still show the whole view", "[gui][legend]") {
    if (!have_xvfb()) return;
    std::string printed;
    const Image img = shoot("--print-view --legend --panels --inspect 13.2:1 --range 13.1:13.3 --size 1400x700 '" + sample("pveoi-on.dat") + "'",
                            "legend", "--screenshot", &printed);
    INFO(printed);
    const auto lanes = numbers_after(printed, "lanes ");
    REQUIRE(lanes.size() == 2);
    const int right = static_cast<int>(lanes[1]);
    CHECK(lanes[0] == gui::Layout::kGutter);
    CHECK(right < 1400 - 200);  // the key has room for its labels
    CHECK(right > 1400 * 0.6);  // and leaves the lanes most of the window
    const float plot_h = 700 - gui::kPanelsHeight;
    const gui::Layout L{static_cast<float>(right), plot_h, 13'100'000'000, 13'300'000'000, gui::Layout::fit_lane_height(plot_h, 4)};
    // the key: each state colour as a 24-pixel swatch, the three in one column, right of the lanes
    auto swatch_x = [&](std::uint32_t c) {
        std::map<int, int> rows;  // x of a run of exactly 24 pixels of c -> rows holding one
        for (int y = 0; y < static_cast<int>(plot_h); ++y)
            for (int x = 1; x + 24 < 1400; ++x)
                if (img.at(x, y) == c && img.at(x - 1, y) != c) {
                    int n = 0;
                    while (x + n < 1400 && img.at(x + n, y) == c) ++n;
                    if (n == 24) ++rows[x];
                    x += n;
                }
        std::set<int> xs;
        for (const auto& [x, n] : rows)
            if (n >= 8) xs.insert(x);
        return xs;
    };
    const auto guest = swatch_x(gui::state_color(gui::VcpuState::Guest)), host = swatch_x(gui::state_color(gui::VcpuState::Host)),
               halted = swatch_x(gui::state_color(gui::VcpuState::Halted));
    int key_x = -1;
    for (int x : guest)
        if (host.count(x) && halted.count(x)) key_x = x;
    CHECK(key_x > right);
    // nothing of the lanes under the key: each lane's rule runs to the lanes' edge and no further
    for (int lane = 0; lane < 4; ++lane) {
        const int y = static_cast<int>(L.lane_top(lane + 1)) - 2;
        INFO("lane " << lane);
        CHECK(img.at(right - 2, y) == gui::kLaneRuleColor);
        int past = 0;
        for (int x = right + 1; x < 1400; ++x) past += img.at(x, y) == gui::kLaneRuleColor;
        CHECK(past == 0);
    }
    // the whole view is still in the lanes, at their new scale: the pinned cursor at 13.2 s
    // and the axis tick at 13.28 s where that scale puts them
    const int cx = static_cast<int>(L.x(13'200'000'000));
    int green = 0;
    for (int y = static_cast<int>(gui::Layout::kTop); y < static_cast<int>(L.lane_top(4)); ++y)
        for (int dx = -1; dx <= 1; ++dx) green += img.at(cx + dx, y) == gui::kCursorColor;
    CHECK(green >= 200);
    const int tx = static_cast<int>(L.x(13'280'000'000));
    bool tick = false;
    for (int dx = -1; dx <= 1; ++dx) tick = tick || img.at(tx + dx, static_cast<int>(gui::Layout::kTop) - 3) == 0xff8c8c8cu;
    CHECK(tick);
}

TEST_CASE("in a narrow window the navigation bar wraps and the statistics tables scroll sideways instead of squeezing columns", "[gui][panels]") {
    if (!have_xvfb()) return;
    // pvspin.dat: six vCPUs, so six checkboxes and eight columns of exits
    const std::string args = " --tab statistics --range 100.1:100.3 '" + sample("pvspin.dat") + "'";
    const Image narrow = shoot("--size 1100x900" + args, "narrow");
    const Image wide = shoot("--size 1600x900" + args, "wide");
    const std::uint32_t check_mark = style_colour(ImGuiCol_CheckMark);
    for (const Image* img : {&narrow, &wide}) {
        INFO("window " << img->w);
        // every vCPU's checkbox is on screen, checked
        CHECK(blobs(*img, check_mark, static_cast<int>(gui::kInspectorWidth), 900 - static_cast<int>(gui::kPanelsHeight), img->w, img->h) == 6);
    }
    // the exits table's column borders along one of its rows (right of the summary table,
    // which takes half the panel up to 520 pixels)
    auto columns = [&](const Image& img) {
        const std::uint32_t strong = style_colour(ImGuiCol_TableBorderStrong), light = style_colour(ImGuiCol_TableBorderLight);
        const float content = static_cast<float>(img.w) - gui::kInspectorWidth - 16;
        const int from = static_cast<int>(gui::kInspectorWidth + 8 + std::min(520.0f, content * 0.5f)) + 4;
        std::vector<int> border;
        const int y = img.h - 34;  // a row above the horizontal scrollbar
        for (int x = from; x < img.w; ++x)
            if (img.at(x, y) == strong || img.at(x, y) == light) border.push_back(x);
        std::vector<int> width;
        for (std::size_t i = 1; i < border.size(); ++i) width.push_back(border[i] - border[i - 1]);
        return width;
    };
    const auto n = columns(narrow), w = columns(wide);
    INFO("narrow: " << Catch::Detail::stringify(n) << " wide: " << Catch::Detail::stringify(w));
    REQUIRE(w.size() >= 8);  // the wide panel shows all: reason, all vCPUs, six vCPUs
    REQUIRE(n.size() >= 3);
    CHECK(n.size() < w.size());  // the narrow one scrolls: some columns are out of view...
    for (std::size_t i = 0; i + 1 < n.size(); ++i) CHECK(n[i] == w[i]);  // ...and those in view keep their width
    for (std::size_t i = 2; i < 8; ++i) CHECK(w[i] >= static_cast<int>(5 * 7 + 8));  // "vcpuN" and its padding
}

TEST_CASE("latency histograms: equal bars, a count axis, bucket edges under the bars", "[gui][latency]") {
    if (!have_xvfb()) return;
    std::string printed;
    const Image img = shoot("--print-view --tab latency --size 1400x700 '" + sample("pveoi-on.dat") + "'", "latency", "--screenshot", &printed);
    INFO(printed);
    gui::LoadProgress progress;
    gui::SessionSource src;
    src.path = sample("pveoi-on.dat");
    const auto s = gui::load_session(src, progress);
    const gui::LaneLookup lanes(s->tl);
    for (auto [title, stage] : {std::pair{"accept->inject", gui::LatencyStage::AcceptToInject}, {"inject->EOI", gui::LatencyStage::InjectToEoi}}) {
        INFO(title);
        const auto g = numbers_after(printed, std::string("histogram ") + title + " ");
        REQUIRE(g.size() == 6);
        const int x0 = static_cast<int>(g[0]), y0 = static_cast<int>(g[1]), bar = static_cast<int>(g[2]), h = static_cast<int>(g[3]);
        const int first = static_cast<int>(g[4]), n = static_cast<int>(g[5]);
        const auto model = gui::latency_histogram(s->replay, lanes, gui::Filter::all(s->tl), stage);
        CHECK(first == model.first);
        CHECK(n == model.last - model.first + 1);
        CHECK(bar >= 8);
        // along the bars' bottom row: one run per non-empty bucket, every run bar - 1 wide
        // (a pixel apart), where that bucket's bar lies
        std::vector<std::pair<int, int>> runs;
        for (int x = x0; x < x0 + bar * n; ++x)
            if (img.at(x, y0 + h - 1) == gui::kLatencyBarColor && img.at(x - 1, y0 + h - 1) != gui::kLatencyBarColor) {
                int len = 0;
                while (img.at(x + len, y0 + h - 1) == gui::kLatencyBarColor) ++len;
                runs.emplace_back(x, len);
            }
        std::vector<std::pair<int, int>> expect;
        for (int i = 0; i < n; ++i)
            if (model.count[static_cast<std::size_t>(first + i)] > 0) expect.emplace_back(x0 + i * bar, bar - 1);
        CHECK(runs == expect);
        // the fullest bucket's bar is the plot's height; its column is coloured to the top
        const auto most = std::max_element(model.count.begin(), model.count.end()) - model.count.begin();
        CHECK(img.at(x0 + static_cast<int>(most - first) * bar + bar / 2, y0) == gui::kLatencyBarColor);
        // text left of the count axis at the top (the largest count) and bottom (0), and
        // bucket edges under the first and last bars
        auto text_in = [&](int ax, int ay, int bx, int by) {
            int lit = 0;
            for (int y = ay; y < by; ++y)
                for (int x = std::max(0, ax); x < std::min(img.w, bx); ++x) lit += bright(img.at(x, y));
            return lit;
        };
        CHECK(text_in(x0 - 50, y0 - 7, x0 - 4, y0 + 7) > 10);
        CHECK(text_in(x0 - 12, y0 + h - 7, x0 - 4, y0 + h + 7) > 5);
        CHECK(text_in(x0 - 20, y0 + h + 4, x0 + 20, y0 + h + 18) > 10);
        CHECK(text_in(x0 + bar * (n - 1) - 20, y0 + h + 4, x0 + bar * n + 20, y0 + h + 18) > 10);
    }
}

TEST_CASE("hovering a latency bar in the real window tells its bucket's count, and L docks the key and takes it away", "[gui][input][latency][legend]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    const Driven d = drive_window("latency-hover", "--tab latency '" + sample("pveoi-on.dat") + "'", R"sh(
window "^irqflow - "
line "^histogram inject->EOI"
read -r _ _ x0 y0 bar h first n < <(grep "^histogram inject->EOI" "$log")
for i in 0 1 2 3; do xdotool $(at $(( x0 + i * bar + bar / 2 )) $(( y0 + h - 2 ))); sleep 0.3; done
step hovered
key l; step key
key l; step nokey
)sh", "1400x760");
    INFO(d.out << d.log);
    const LogLines L = log_lines(d.log);
    CHECK(d.log.find("# exit 0") != std::string::npos);
    // each hovered bar's tooltip: its edges and its count, as the model counts them
    gui::LoadProgress progress;
    gui::SessionSource src;
    src.path = sample("pveoi-on.dat");
    const auto s = gui::load_session(src, progress);
    const auto model = gui::latency_histogram(s->replay, gui::LaneLookup(s->tl), gui::Filter::all(s->tl), gui::LatencyStage::InjectToEoi);
    std::set<std::string> tips;
    for (const auto& t : L.all("tip inject->EOI", "hovered")) tips.insert(t);
    std::set<std::string> expect;
    for (int i = 0; i < 4 && model.first + i <= model.last; ++i) {
        const int k = model.first + i;
        const auto c = model.count[static_cast<std::size_t>(k)];
        if (c == 0) continue;  // an empty bucket: a tooltip with 0 too, but the pointer may pass over it
        char line[200];
        std::snprintf(line, sizeof line, "tip inject->EOI, %s .. %s: ", gui::bucket_edge_text(k).c_str(), gui::bucket_edge_text(k + 1).c_str());
        bool found = false;
        for (const auto& t : tips) found = found || t.rfind(line, 0) == 0;
        INFO(line);
        CHECK(found);
        expect.insert(line);
    }
    CHECK(!expect.empty());
    for (const auto& t : tips) {  // "..: 1,234 of 14,021 (8.8 %)": the count is the model's
        unsigned long long count = 0;
        const auto colon = t.find(": ", 20);
        REQUIRE(colon != std::string::npos);
        std::string digits;
        for (char ch : t.substr(colon + 2, t.find(" of ") - colon - 2))
            if (ch != ',') digits += ch;
        count = std::stoull(digits);
        bool matches = false;
        for (int k = model.first; k <= model.last; ++k)
            if (t.find(gui::bucket_edge_text(k) + " .. " + gui::bucket_edge_text(k + 1) + ":") != std::string::npos)
                matches = count == model.count[static_cast<std::size_t>(k)];
        INFO(t);
        CHECK(matches);
    }
    // L: the lanes give the key room, then take the whole width back
    const auto key = L.all("lanes ", "key"), nokey = L.all("lanes ", "nokey"), before = L.all("lanes ", "hovered");
    REQUIRE(!before.empty());
    REQUIRE(!key.empty());
    REQUIRE(!nokey.empty());
    CHECK(before.front() == "lanes 90 1400");
    double a = 0, right = 0;
    REQUIRE(std::sscanf(key.back().c_str(), "lanes %lf %lf", &a, &right) == 2);
    CHECK(right < 1400 - 200);
    CHECK(nokey.back() == "lanes 90 1400");
}

TEST_CASE("the IRR, ISR and TMR grids are labelled: 0x00..0xf0 down the rows, 0..f over each grid's columns", "[gui][inspector]") {
    if (!have_xvfb()) return;
    std::string printed;
    // vCPU 2 at 20.2865 s is inside a level-triggered virtio interrupt, vector 0x22
    const Image img = shoot("--print-view --panels --inspect 20.2865:2 --size 1400x700 '" + sample("pveoi-on.dat") + "'", "grids", "--screenshot",
                            &printed);
    INFO(printed);
    const auto g = numbers_after(printed, "isr-grid ");
    REQUIRE(g.size() == 4);
    const int gx = static_cast<int>(g[0]), gy = static_cast<int>(g[1]), cw = static_cast<int>(g[2]), ch = static_cast<int>(g[3]);
    const int pitch = 16 * cw + 8;  // a grid and the gap to the next
    const int irr_x = gx - pitch;
    // the set bit: 0x22 is row 0x20, column 2 of the ISR and TMR grids
    CHECK(img.at(gx + 2 * cw + 3, gy + 2 * ch + 3) == gui::vector_color(0x22));
    CHECK(img.at(gx + pitch + 2 * cw + 3, gy + 2 * ch + 3) == 0xffe0e0e0u);  // TMR: a set bit is plain
    CHECK(img.at(gx + pitch + 3 * cw + 3, gy + 2 * ch + 3) != 0xffe0e0e0u);
    auto lit = [&](int ax, int ay, int bx, int by) {
        int n = 0;
        for (int y = ay; y < by; ++y)
            for (int x = ax; x < bx; ++x) n += bright(img.at(x, y));
        return n;
    };
    // a row label left of the first grid in every row
    for (int r = 0; r < 16; ++r) {
        INFO("row 0x" << std::hex << r << "0");
        CHECK(lit(irr_x - 34, gy + r * ch, irr_x - 2, gy + (r + 1) * ch) >= 6);
    }
    // a column label over every column of each grid
    for (int grid = 0; grid < 3; ++grid)
        for (int c = 0; c < 16; ++c) {
            INFO("grid " << grid << " column " << c);
            const int x = irr_x + grid * pitch + c * cw;
            CHECK(lit(x, gy - 14, x + cw, gy - 1) >= 3);
        }
}
