// Building a diagnosis: the explanations of one finding, each an edit of the trace that
// would make the replay agree, weighted by the evidence for it; the heaviest is the
// diagnosis, those at least half as heavy its alternatives (replay/README.md, "Diagnosis").
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "irqflow/replay/finding.hpp"

namespace irqflow::replay::diagnose {

// A record and its time, for the ends of a window.
struct At {
    std::uint64_t record = 0;
    TimestampNs ts;
};

class Candidates {
public:
    Candidates(VmId vm, VcpuId vcpu) : vm_(vm), vcpu_(vcpu) {}
    // An event missing between `from` and `to`.
    Explanation& missing(EventKind kind, int vector, At from, At to, double weight, std::string why) {
        return add(Cause::Missing, kind, vector, from, to, weight, std::move(why));
    }
    // The event at `at` should not be there.
    Explanation& extra(EventKind kind, int vector, At at, double weight, std::string why) {
        return add(Cause::Extra, kind, vector, at, at, weight, std::move(why));
    }
    // The event at `at` has `field` = seen where `expected` was due.
    Explanation& wrong(EventKind kind, At at, std::string field, std::int64_t seen, std::int64_t expected, double weight, std::string why) {
        auto& x = add(Cause::WrongField, kind, -1, at, at, weight, std::move(why));
        x.field = std::move(field);
        x.seen = seen;
        x.expected = expected;
        if (x.field == "vector" || x.field == "vec") x.vector = static_cast<int>(seen);
        return x;
    }
    Explanation& late(EventKind kind, int vector, At due, At came, double weight, std::string why) {
        return add(Cause::Late, kind, vector, due, came, weight, std::move(why));
    }
    Explanation& stuck(EventKind kind, int vector, At since, At now, double weight, std::string why) {
        return add(Cause::Stuck, kind, vector, since, now, weight, std::move(why));
    }
    Diagnosis pick() const {
        Diagnosis d;
        if (xs_.empty()) return d;
        std::vector<Explanation> sorted = xs_;
        std::stable_sort(sorted.begin(), sorted.end(), [](const Explanation& a, const Explanation& b) { return a.weight > b.weight; });
        d.top = sorted.front();
        for (std::size_t i = 1; i < sorted.size(); ++i)
            if (sorted[i].weight >= d.top.weight / 2) d.alternatives.push_back(sorted[i]);
        return d;
    }
    bool empty() const { return xs_.empty(); }

private:
    Explanation& add(Cause cause, EventKind kind, int vector, At from, At to, double weight, std::string why) {
        const bool forward = from.record <= to.record;
        Explanation x{.cause = cause,
                      .kind = kind,
                      .vector = vector,
                      .vm = vm_,
                      .vcpu = vcpu_,
                      .from = std::min(from.record, to.record),
                      .to = std::max(from.record, to.record),
                      .from_ts = forward ? from.ts : to.ts,
                      .to_ts = forward ? to.ts : from.ts,
                      .why = std::move(why),
                      .weight = weight};
        xs_.push_back(std::move(x));
        return xs_.back();
    }
    VmId vm_;
    VcpuId vcpu_;
    std::vector<Explanation> xs_;
};

}  // namespace irqflow::replay::diagnose
