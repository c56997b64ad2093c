// Check a trace: held whole when something needs every event, else streamed.
#include "pipeline.hpp"

#include "irqflow/capture/error.hpp"

namespace irqflow::pipeline {
namespace {

void enter(const Watch& watch, Stage stage) {
    if (watch.entered) watch.entered(stage);
}

}  // namespace

Checked load(const Source& given, const Watch& watch) {
    Source source = given;
    source.load.other_event_info = source.load.other_event_info || !source.guest.empty();  // kvm_write_tsc_offset's fields align the clocks
    Checked c;
    // (the streamed read keeps no Other event's text, which the guest's clock needs:
    // with a guest trace the trace is read whole, and the first-pass hook sees nothing)
    if ((watch.first_pass.events || watch.first_pass.count) && source.guest.empty()) {
        // Streamed into memory in two passes: the hook sees the first as it is read, and
        // the events kept are those load_trace would give (tests/test_streaming.cpp).
        TraceStream stream(source.trace, source.load, watch.first_pass);
        if (watch.known) watch.known(stream.trace());
        c.trace = stream.trace();
        c.trace.events.clear();  // (a text trace's stream holds its events already)
        stream.each_event([&](const Event& e) { c.trace.events.push_back(e); });
    } else {
        c.trace = load_trace(source.trace, source.load);
        if (watch.known) watch.known(c.trace);
    }
    if (!source.serial.empty()) {  // validated and aligned, so a bad log fails like a bad trace
        enter(watch, Stage::Serial);
        c.serial = read_serial_log(source.serial);
        align_serial(c.trace, *c.serial);
    }
    if (!source.guest.empty()) {
        enter(watch, Stage::Guest);
        c.guest = load_guest_trace(source.guest);
        c.guest_clock = align_guest_clock(c.trace, *c.guest);
        if (c.guest_clock.method == GuestClock::Method::None)
            throw InputError(source.guest, {}, "its events cannot be put on the host trace's clock: " + c.guest_clock.detail);
    }
    return c;
}

Checked check(const Source& source, const replay::ReplayOptions& options, Hold hold, const Watch& watch) {
    if (hold == Hold::Whole || !source.serial.empty() || !source.guest.empty()) {
        Checked c = load(source, watch);
        enter(watch, Stage::Replay);
        if (watch.event)
            for (const auto& e : c.trace.events) watch.event(e);
        replay::ReplayOptions o = options;
        if (c.guest) {
            o.guest = &*c.guest;
            o.guest_vm = c.guest_clock.vm;
        }
        c.result = replay::replay(c.trace, o);
        return c;
    }
    // streamed: memory per vCPU and vector, not per event (capture/README.md, "Streaming")
    TraceStream stream(source.trace, source.load, watch.first_pass);
    if (watch.known) watch.known(stream.trace());
    enter(watch, Stage::Replay);
    Follow follow(stream.trace(), options);
    stream.each_batch([&](std::span<const Event> batch) {
        follow.feed(batch);
        if (watch.event)
            for (const Event& e : batch) watch.event(e);
    });
    Checked c;
    c.result = follow.finish();
    c.trace = stream.trace();
    return c;
}

}  // namespace irqflow::pipeline
