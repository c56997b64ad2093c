#include "event_printer.hpp"

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

namespace irqflow {
namespace {

// Zeros after the copied record. A dynamic field (__data_loc / __rel_loc) points at most
// 2 × 64 KiB past the record's start or its field, and a length-bounded array print
// reads at most 64 Ki elements of 8 bytes from there.
constexpr std::size_t kPadding = 1u << 20;
constexpr std::uint64_t kMaxPrintedBytes = 65535ull * 8;

// The largest value a print argument can take, if the format bounds it: a constant, a
// field of at most 16 bits, a dynamic array's length (16 bits), casts of those.
std::optional<std::uint64_t> bound(tep_event* ev, const tep_print_arg* a) {
    if (!a) return std::nullopt;
    switch (a->type) {
    case TEP_PRINT_ATOM: {
        if (!a->atom.atom) return std::nullopt;
        char* end = nullptr;
        const unsigned long long v = std::strtoull(a->atom.atom, &end, 0);
        if (end == a->atom.atom || *end) return std::nullopt;
        return v;
    }
    case TEP_PRINT_FIELD: {
        const tep_format_field* f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
        if (!f || f->size <= 0 || f->size > 2 || (f->flags & TEP_FIELD_IS_ARRAY)) return std::nullopt;
        return (1ull << (8 * f->size)) - 1;
    }
    case TEP_PRINT_DYNAMIC_ARRAY_LEN: return 65535;
    case TEP_PRINT_TYPE: return bound(ev, a->typecast.item);
    default: return std::nullopt;
    }
}

// Whether libtraceevent can print every argument from the padded copy: no argument reads
// a length or an index the record controls beyond the bounds above.
bool bounded_reads(tep_event* ev, const tep_print_arg* a, int depth = 0) {
    if (depth > 64) return false;
    for (; a; a = a->next) {
        switch (a->type) {
        case TEP_PRINT_HEX:
        case TEP_PRINT_HEX_STR: {
            const auto n = bound(ev, a->hex.size);
            if (!n || *n > kMaxPrintedBytes || !bounded_reads(ev, a->hex.field, depth + 1)) return false;
            break;
        }
        case TEP_PRINT_INT_ARRAY: {
            const auto n = bound(ev, a->int_array.count), w = bound(ev, a->int_array.el_size);
            if (!n || !w || *w > 8 || *n * *w > kMaxPrintedBytes || !bounded_reads(ev, a->int_array.field, depth + 1))
                return false;
            break;
        }
        case TEP_PRINT_OP:
            if (a->op.op && std::string_view(a->op.op) == "[") return false;  // an index the record sets
            if (!bounded_reads(ev, a->op.left, depth + 1) || !bounded_reads(ev, a->op.right, depth + 1)) return false;
            break;
        case TEP_PRINT_DYNAMIC_ARRAY:
            if (a->dynarray.index) return false;
            break;
        case TEP_PRINT_TYPE:
            if (!bounded_reads(ev, a->typecast.item, depth + 1)) return false;
            break;
        case TEP_PRINT_FLAGS:
            if (!bounded_reads(ev, a->flags.field, depth + 1)) return false;
            break;
        case TEP_PRINT_SYMBOL:
            if (!bounded_reads(ev, a->symbol.field, depth + 1)) return false;
            break;
        case TEP_PRINT_FUNC:
            if (!bounded_reads(ev, a->func.args, depth + 1)) return false;
            break;
        default:  // atoms, fields, strings, bitmasks: bounded by the field or its data_loc
            break;
        }
    }
    return true;
}

std::uint32_t fixed_end(const tep_format_field* f, std::uint32_t end) {
    for (; f; f = f->next)
        if (f->offset >= 0 && f->size >= 0) end = std::max(end, static_cast<std::uint32_t>(f->offset) + static_cast<std::uint32_t>(f->size));
    return end;
}

}  // namespace

EventPrinter::EventPrinter(tep_handle* tep) : tep_(tep) {
    // opened without plugins (dat_reader.cpp), the handle refuses them until told otherwise
    tep_clear_flag(tep, TEP_DISABLE_SYS_PLUGINS);
    tep_clear_flag(tep, TEP_DISABLE_PLUGINS);
    plugins_ = tep_load_plugins(tep);
    trace_seq_init(&seq_);
}

EventPrinter::~EventPrinter() {
    trace_seq_destroy(&seq_);
    if (plugins_) tep_unload_plugins(plugins_, tep_);
}

EventPrinter::Safety EventPrinter::safety(tep_event* ev) {
    const auto id = static_cast<std::size_t>(ev->id);  // 0..65535 (record_decoder.cpp)
    if (id >= safety_.size()) {
        safety_.resize(id + 1, Safety::Unknown);
        format_end_.resize(id + 1, 0);
    }
    if (safety_[id] == Safety::Unknown) {
        format_end_[id] = fixed_end(ev->format.fields, fixed_end(ev->format.common_fields, 0));
        // a plugin's handler is code of the system's, not of the file
        safety_[id] = ev->handler || bounded_reads(ev, ev->print_fmt.args) ? Safety::PrintFormat : Safety::FieldsOnly;
    }
    return safety_[id];
}

void EventPrinter::print(const RawRecord& rec, tep_event* ev, std::string& out) {
    const Safety how = safety(ev);
    const auto size = static_cast<std::size_t>(rec.size);
    if (format_end_[static_cast<std::size_t>(ev->id)] > size) {
        out += "[a " + std::to_string(rec.size) + "-byte record, shorter than its event format: not printed]";
        return;
    }
    if (copy_.size() < size + kPadding) copy_.assign(size + kPadding, 0);
    std::memcpy(copy_.data(), rec.data, size);
    tep_record r{};
    r.ts = rec.ts;
    r.offset = rec.offset;
    r.size = rec.size;
    r.cpu = rec.cpu;
    r.data = copy_.data();
    trace_seq_reset(&seq_);
    if (how == Safety::PrintFormat) tep_print_event(tep_, &seq_, &r, "%s", TEP_PRINT_INFO);
    else tep_record_print_fields(&seq_, &r, ev);
    trace_seq_terminate(&seq_);
    std::string_view text(seq_.buffer, seq_.len);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    out.append(text);
    std::memset(copy_.data(), 0, size);
}

}  // namespace irqflow
