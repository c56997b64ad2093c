// Exit reasons as small ids, given as exits arrive and named (exit_reason_key) once per
// reason: how `stats`, the replay's statistics and the database's exit_counts count exits
// per reason without string work per event. Counts kept by id are named with named().
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "irqflow/capture/event.hpp"
#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow {

class ExitReasonIds {
public:
    using Id = std::uint32_t;
    // The id of a kvm_exit's (isa, reason); the isa is VMX when the kernel did not trace it.
    Id of(const Event& exit) {
        const std::int64_t isa = exit.get(slot::exit_isa).value_or(kIsaVmx);
        if (!exit.has(slot::exit_reason)) return intern(isa, std::nullopt);
        const std::int64_t code = exit.f[slot::exit_reason];
        if (code >= 0 && code < kDirect && (isa == kIsaVmx || isa == kIsaSvm)) {  // every code kernels use
            Id& id = direct_[isa == kIsaSvm][static_cast<std::size_t>(code)];
            if (id == kNone) id = intern(isa, code);
            return id;
        }
        return intern(isa, code);
    }
    std::size_t size() const { return reasons_.size(); }
    const std::string& name(Id id) const { return reasons_[id].name; }
    std::int64_t isa(Id id) const { return reasons_[id].isa; }
    std::optional<std::int64_t> code(Id id) const { return reasons_[id].code; }

    // `counts[id]` summed by name (two reasons may share one: codes without a name).
    template <class Count>
    std::map<std::string, Count> named(const std::vector<Count>& counts) const {
        std::map<std::string, Count> out;
        for (std::size_t id = 0; id < counts.size(); ++id)
            if (counts[id]) out[reasons_[id].name] += counts[id];
        return out;
    }

private:
    static constexpr std::int64_t kDirect = 0x500;  // VMX's basic reasons and SVM's exit codes are below
    static constexpr Id kNone = UINT32_MAX;
    struct Reason {
        std::int64_t isa;
        std::optional<std::int64_t> code;
        std::string name;
    };
    Id intern(std::int64_t isa, std::optional<std::int64_t> code) {
        auto [it, added] = other_.try_emplace({isa, code}, static_cast<Id>(reasons_.size()));
        if (added) reasons_.push_back({isa, code, exit_reason_key(code, isa)});
        return it->second;
    }
    std::array<std::array<Id, kDirect>, 2> direct_ = [] {
        std::array<std::array<Id, kDirect>, 2> a{};
        for (auto& x : a) x.fill(kNone);
        return a;
    }();
    std::map<std::pair<std::int64_t, std::optional<std::int64_t>>, Id> other_;  // every reason, by (isa, code)
    std::vector<Reason> reasons_;
};

// One count per reason id.
inline void count_reason(std::vector<std::uint64_t>& counts, ExitReasonIds::Id id, std::uint64_t n = 1) {
    if (counts.size() <= id) counts.resize(std::size_t{id} + 1, 0);
    counts[id] += n;
}

}  // namespace irqflow
