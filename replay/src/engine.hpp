// The replay engine: feeds each event to the model and, around it, to the rules that
// subscribed to its kind and to the observers (replay/README.md, "Structure").
#pragma once
#include <array>
#include <map>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "drop_windows.hpp"
#include "follow_ons.hpp"
#include "guest/guest_tracker.hpp"
#include "model/model.hpp"
#include "observe/observers.hpp"
#include "rules/check.hpp"

namespace irqflow::replay {

class RuleSet;

class Engine {
public:
    Engine(const Trace& t, const ReplayOptions& o, PvEoiSemantics semantics);
    ~Engine();
    // The trace's events in order, one at a time (the trace itself need not hold them);
    // then finish() once.
    void feed(const Event& e);
    void feed(std::span<const Event> events);  // the same, one call per batch
    void finish();
    void run();  // feed every event the trace holds, then finish
    // What a live stream learns as it goes (StreamingReplay).
    VcpuSlot add_vcpu(VmId vm, const VcpuInfo& info);
    void learnt(VmId vm, const VcpuInfo& info);
    void add_drop_window(std::size_t start) {
        drops_.add(start);
        next_drop_ = drops_.next_start();
    }
    const std::vector<Finding>& findings() const { return r_.findings; }
    ReplayResult take() { return std::move(r_); }

private:
    // One handler per event kind, compiled for that kind and the rules it wakes
    // (rules/rule_set.hpp): most kinds concern nobody but the counts.
    template <EventKind K>
    static void handle(Engine& self, const Event& e);
    template <EventKind K>
    static void handle_inline(Engine& self, const Event& e);
    using Handler = void (*)(Engine&, const Event&);
    static constexpr std::size_t kKinds = static_cast<std::size_t>(EventKind::Count_);
    template <std::size_t... K>
    static constexpr std::array<Handler, kKinds> handlers(std::index_sequence<K...>) {
        return {&Engine::handle<static_cast<EventKind>(K)>...};
    }
    // What every event costs besides its handler; Guest: a guest trace is matched.
    template <bool Guest>
    void step(const Event& e, std::size_t& index, std::size_t& next_drop);
    template <bool Guest>
    void feed_batch(std::span<const Event> events);
    void open_drop_windows();
    void dispatch_completed_ipis() {
        if (!model_.completed().empty()) dispatch_ipis();
    }
    void dispatch_ipis();
    void dispatch_guest(const GuestOutcome& o);
    void adopt_earlier(std::size_t root, VmId vm, VcpuId vcpu, int vector);
    void recover(const Effect& fx, std::size_t found);

    const Trace& t_;
    ReplayOptions o_;
    ReplayResult r_;
    Model model_;
    Observers observers_;
    std::unique_ptr<RuleSet> rules_;
    RecentEvents recent_;
    RuleContext ctx_;
    std::unique_ptr<GuestTracker> guest_;  // with a guest trace
    std::map<std::uint64_t, std::size_t> misplaced_handlers_;  // injection record → the finding of the handler that took its place
    FollowOns follow_ons_;
    DropWindows drops_;
    std::size_t next_drop_;  // drops_.next_start(), tested before each event
    std::size_t index_ = 0;  // of the next event fed
    KindCounts seen_{};      // events fed, by kind
};

}  // namespace irqflow::replay
