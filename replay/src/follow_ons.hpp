// One fault, one root finding (replay/README.md, "Recovery"). After a divergence the
// model adopts what the trace proved, but a fault can still disagree with the next few
// events of its vCPU: those findings are consequences, not news. Per vCPU, an episode
// opens at a root finding with the vectors it involves; a later finding on that vCPU
// involving one of them is a follow-on (Finding::caused_by = the root). An injection of
// one of them that raises no finding shows the model agrees on it again (an EOI alone
// does not: the kvm_eoi of a PV EOI pair is judged before its kvm_pv_eoi); the episode
// closes when none is left.
#pragma once
#include <cstddef>
#include <vector>

#include "irqflow/replay/finding.hpp"
#include "irqflow/replay/vector_set.hpp"

namespace irqflow::replay {

class FollowOns {
public:
    explicit FollowOns(std::size_t vcpus) : episodes_(vcpus) {}
    void vcpus(std::size_t n) { episodes_.resize(n); }  // more became known
    // An episode is open on vCPU slot `v` (else a clean event concerns nobody).
    bool open(std::size_t v) const { return episodes_[v].open; }
    // An injection (`injection`), EOI or PV EOI of `vector` on vCPU slot `v` involving
    // `involved`; findings[first_new..] are the ones it raised.
    void event(std::size_t v, bool injection, int vector, const VectorSet& involved, std::vector<Finding>& findings, std::size_t first_new) {
        Episode& ep = episodes_[v];
        if (first_new == findings.size()) {
            if (ep.open && injection && vector >= 0 && vector < 256) {
                ep.vectors.clear(vector);
                ep.open = !ep.vectors.empty();
            }
            return;
        }
        for (std::size_t i = first_new; i < findings.size(); ++i) {
            if (ep.open && involved.intersects(ep.vectors)) findings[i].caused_by = ep.root;
            else ep = {i, {}, true};
            ep.vectors.merge(involved);
        }
    }

    // A root finding elsewhere (an IPI's, on its sender) explains what vCPU slot `v`
    // will show about `vector`: its findings involving it are follow-ons of `root`.
    void implicate(std::size_t v, int vector, std::size_t root) {
        if (vector < 0 || vector >= 256) return;
        Episode& ep = episodes_[v];
        if (!ep.open) ep = {root, {}, true};
        ep.vectors.set(vector);
    }

private:
    struct Episode {
        std::size_t root = 0;
        VectorSet vectors;
        bool open = false;
    };
    std::vector<Episode> episodes_;
};

}  // namespace irqflow::replay
