// Each interrupt's life on a vCPU — accept, injection, EOI and the EOI's path — as
// ReplayResult::interrupts (with ReplayOptions::collect_details): the database's
// `interrupts` table and the GUI's ISR bars.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "evidence.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class Model;

class Lifecycles {
public:
    Lifecycles(std::size_t vcpus, std::vector<InterruptRecord>* out) : open_(vcpus), eoi_pending_path_(vcpus, 0), out_(out) {}
    void vcpus(std::size_t n) {  // more became known
        open_.resize(n);
        eoi_pending_path_.resize(n, 0);
    }
    void injected(const Event& e, const Effect& fx, const Model& m, const Evidence& ev);
    void eoi(const Event& e, const Effect& fx);
    // The path of the vCPU's last EOI became known.
    void eoi_path(VcpuSlot v, EoiPath p);

private:
    std::vector<std::array<std::uint32_t, 256>> open_;  // per vCPU and vector: index+1 of the record in service
    std::vector<std::uint32_t> eoi_pending_path_;       // per vCPU: index+1 of the record whose EOI path is still open
    std::vector<InterruptRecord>* out_;                  // null: not collected
};

}  // namespace irqflow::replay
