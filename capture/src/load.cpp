#include <sys/stat.h>

#include <fstream>
#include <tuple>

#include "dat_reader.hpp"
#include "dat_validate.hpp"
#include "irqflow/capture/attribution.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"

namespace irqflow {

namespace {

void check_file(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw InputError(path, {}, "no such file");
    if (S_ISDIR(st.st_mode)) throw InputError(path, {}, "is a directory, not a trace");
    if (st.st_size == 0) throw InputError(path, {InputPosition::Unit::Byte, 0}, "empty file");
}

}  // namespace

void check_trace_headers(const std::string& path) {
    check_file(path);
    if (looks_like_dat(path)) probe_dat_headers(path);
}

Trace load_trace(const std::string& path, const LoadOptions& options) {
    check_file(path);
    Trace t = looks_like_dat(path) ? read_trace_dat(path, options) : read_trace_text(path);
    attribute(t);
    return t;
}

TraceStream::TraceStream(const std::string& path, const LoadOptions& options) : path_(path), options_(options) {
    check_file(path);
    dat_ = looks_like_dat(path);
    if (!dat_) {
        t_ = read_trace_text(path);
        attribute(t_);
        return;
    }
    Attributor a(t_);
    const EventSink learn = [&a](const Event& e) { a.learn(e); };
    read_trace_dat_into(path, options, t_, &learn);
    a.finish(t_);
    attributor_ = std::make_unique<Attributor>(std::move(a));
}

TraceStream::~TraceStream() = default;

void TraceStream::each_event(const EventSink& on_event) {
    if (!dat_) {
        for (std::size_t i = 0; i < t_.events.size(); ++i) on_event(t_.events[i]);
        return;
    }
    // The same records again, in the same order with the same numbers; the header probe
    // already ran.
    Trace again;
    LoadOptions o = options_;
    o.headers_checked = true;
    const EventSink hand_over = [&](const Event& e) {
        Event owned = e;
        std::tie(owned.vm, owned.vcpu) = attributor_->owner(e);
        on_event(owned);
    };
    read_trace_dat_into(path_, o, again, &hand_over);
}

}  // namespace irqflow
