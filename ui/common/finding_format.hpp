// How the CLI and the GUI name a finding's records and print its diagnosis: one
// sentence (replay's), and for --json one object per explanation.
#pragma once
#include <cstdint>
#include <string>

#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/diagnosis.hpp"
#include "json.hpp"

namespace irqflow::ui {

// "record 12", and for text input "record 12 (line 40)": where to look in the file.
std::string record_name(const Trace& t, std::uint64_t record);
// Where a finding is: its record, or for one about the guest's trace its guest record
// and the host's record before it ("guest record g12965 (after record 149326)").
std::string finding_place(const replay::Finding& f, const Trace& t);
replay::RecordName record_namer(const Trace& t);

// The diagnosis sentence of a finding ("" when it has none).
std::string diagnosis_sentence(const replay::Finding& f, const Trace& t);

// {"cause", "kind", "vector", "vcpu", "records": [from, to], "lines": [from, to] (text
// input), "field"/"seen"/"expected" (wrong-field), "evidence", "why", "sentence"}, and
// for a diagnosis its "alternatives" in the same shape.
Json explanation_json(const replay::Explanation& x, const Trace& t);
Json diagnosis_json(const replay::Diagnosis& d, const Trace& t);

}  // namespace irqflow::ui
