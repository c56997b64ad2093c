// A stored session's rows turned back into a Trace, from either backend (storage/README.md,
// "Backends"): every row is checked before it is narrowed into ids, so a damaged or
// hand-edited database is refused by name, never trusted downstream.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "irqflow/storage/store.hpp"

namespace irqflow::storage {

class SessionBuilder {
public:
    // `where` names the store and session in errors.
    SessionBuilder(StoredSession& out, std::string where, const std::function<void(const Event&)>& each);
    // In this order: names (by id), vCPUs (by vm, vcpu), gaps (in record order), events
    // (in record order), serial lines; then finish().
    void name(std::int64_t id, const std::string& name);
    void vcpu(std::int64_t vm, std::int64_t vcpu, std::int64_t tid, std::int64_t apic, bool apic_from_trace);
    void gap(std::int64_t before_record, std::int64_t ts, std::int64_t cpu, std::int64_t lost);
    struct EventRow {
        EventKind kind = EventKind::Other;
        std::int64_t record = 0, ts = 0, cpu = 0, tid = 0;
        std::optional<std::int64_t> vm, vcpu;  // NULL: none
        std::array<std::optional<std::int64_t>, kMaxFields> fields{};
        std::int64_t name_id = -1;  // other_events' own; ignored for the decoded kinds
    };
    void event(const EventRow& row);
    void serial_line(std::int64_t line, std::optional<std::int64_t> ts, const std::string& alignment, std::string text);
    void finish();
    std::uint64_t events() const { return events_; }
    const std::string& where() const { return where_; }

private:
    void gaps_before(std::uint64_t record);
    struct Gap {
        std::int64_t before_record, ts, cpu, lost;
    };
    StoredSession& out_;
    std::string where_;
    const std::function<void(const Event&)>& each_;
    std::vector<Gap> gaps_;
    std::size_t next_gap_ = 0;
    std::vector<std::int64_t> name_of_kind_;
    bool kinds_named_ = false;
    std::uint16_t lost_name_ = 0;
    std::optional<std::uint64_t> previous_;
    std::uint64_t events_ = 0;
};

}  // namespace irqflow::storage
