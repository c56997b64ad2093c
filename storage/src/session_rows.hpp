// Every row of a session except its events: names, vCPUs, exit counts, serial lines,
// tags and what the replay derived (interrupts, IPIs, findings, statistics), written
// to any backend's TableSink. One place says what a stored session holds.
#pragma once
#include <cstdint>

#include "exit_times.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/store.hpp"
#include "session_sink.hpp"

namespace irqflow::storage {

void write_session_rows(TableSink& out, std::int64_t session, const Trace& trace, const SessionMeta& meta, const ExitTimes& exits,
                        const replay::ReplayResult& replay, const SerialLog* serial, const GuestSide* guest);

}  // namespace irqflow::storage
