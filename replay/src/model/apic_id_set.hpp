// A set of APIC ids, sorted: an IPI addresses a few CPUs, so a sorted array beats a
// node per id (one allocation per set instead of one per member).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace irqflow::replay {

class ApicIdSet {
public:
    void insert(std::uint32_t id) {
        auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
        if (it == ids_.end() || *it != id) ids_.insert(it, id);
    }
    bool count(std::uint32_t id) const { return std::binary_search(ids_.begin(), ids_.end(), id); }
    std::size_t size() const { return ids_.size(); }
    bool empty() const { return ids_.empty(); }
    auto begin() const { return ids_.begin(); }
    auto end() const { return ids_.end(); }
    void clear() { ids_.clear(); }

private:
    std::vector<std::uint32_t> ids_;
};

}  // namespace irqflow::replay
