// A set of APIC ids, sorted. An IPI addresses a few CPUs, so the first kInline ids live
// in the set itself and only a broadcast to more CPUs takes memory of its own: every
// send in flight has two of these, and a heap array each cost ~20 instructions per
// event of a replay in malloc and free (bench_replay, callgrind) before they were inline.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace irqflow::replay {

class ApicIdSet {
public:
    void insert(std::uint32_t id) {
        std::uint32_t* b = data();
        std::uint32_t* e = b + n_;
        std::uint32_t* it = std::lower_bound(b, e, id);
        if (it != e && *it == id) return;
        const auto at = static_cast<std::size_t>(it - b);
        if (spilled_.empty() && n_ < kInline) {
            std::copy_backward(it, e, e + 1);
            inline_[at] = id;
        } else {
            if (spilled_.empty()) spilled_.assign(inline_.begin(), inline_.begin() + static_cast<std::ptrdiff_t>(n_));
            spilled_.insert(spilled_.begin() + static_cast<std::ptrdiff_t>(at), id);
        }
        ++n_;
    }
    bool count(std::uint32_t id) const { return std::binary_search(begin(), end(), id); }
    // Every id of `other` is in this set.
    bool includes(const ApicIdSet& other) const { return std::includes(begin(), end(), other.begin(), other.end()); }
    std::size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    const std::uint32_t* begin() const { return spilled_.empty() ? inline_.data() : spilled_.data(); }
    const std::uint32_t* end() const { return begin() + n_; }
    void clear() {
        n_ = 0;
        spilled_.clear();
    }

private:
    static constexpr std::size_t kInline = 8;
    std::uint32_t* data() { return spilled_.empty() ? inline_.data() : spilled_.data(); }
    std::array<std::uint32_t, kInline> inline_{};
    std::vector<std::uint32_t> spilled_;  // all ids, once there are more than kInline
    std::size_t n_ = 0;
};

}  // namespace irqflow::replay
