#include "finding_format.hpp"

namespace irqflow::ui {

std::string record_name(const Trace& t, std::uint64_t record) {
    std::string s = "record " + std::to_string(record);
    if (const auto line = t.line_of(record)) s += " (line " + std::to_string(*line) + ")";
    return s;
}

std::string finding_place(const replay::Finding& f, const Trace& t) {
    if (!f.guest_record) return record_name(t, f.record);
    return "guest record g" + std::to_string(*f.guest_record) + " (after " + record_name(t, f.record) + ")";
}

replay::RecordName record_namer(const Trace& t) {
    return [&t](std::uint64_t r) { return record_name(t, r); };
}

std::string diagnosis_sentence(const replay::Finding& f, const Trace& t) {
    return f.diagnosis ? replay::sentence(f.diagnosis->top, record_namer(t)) : std::string();
}

Json explanation_json(const replay::Explanation& x, const Trace& t) {
    Json j;
    j["cause"] = replay::to_string(x.cause);
    j["kind"] = replay::kind_name(x);
    j["vector"] = x.vector >= 0 ? Json(x.vector) : Json(nullptr);
    j["vcpu"] = json_id(x.vcpu, kUnknownVcpu);
    j["records"] = {x.from, x.to};
    if (x.guest_record) j["guest_record"] = *x.guest_record;
    if (const auto from = t.line_of(x.from), to = t.line_of(x.to); from && to) j["lines"] = {*from, *to};
    if (x.cause == replay::Cause::WrongField) {
        j["field"] = x.field;
        j["seen"] = x.seen;
        j["expected"] = x.expected_text.empty() ? Json(x.expected) : Json(x.expected_text);
    }
    j["evidence"] = x.evidence;
    j["why"] = x.why;
    j["sentence"] = replay::sentence(x, record_namer(t));
    return j;
}

Json diagnosis_json(const replay::Diagnosis& d, const Trace& t) {
    Json j = explanation_json(d.top, t);
    Json alts = Json::array();
    for (const auto& a : d.alternatives) alts.push_back(explanation_json(a, t));
    j["alternatives"] = std::move(alts);
    return j;
}

}  // namespace irqflow::ui
