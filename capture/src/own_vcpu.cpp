#include "own_vcpu.hpp"

#include <string>

namespace irqflow {

std::optional<OwnVcpu> own_vcpu_in_info(std::string_view info) {
    for (std::size_t at = 0; at < info.size(); ++at) {
        if (at > 0 && info[at - 1] != ' ' && info[at - 1] != ',' && info[at - 1] != '(') continue;  // a word's start
        for (std::string_view field : kOwnVcpuFields) {
            if (info.substr(at, field.size()) != field) continue;
            std::size_t i = at + field.size();
            if (i < info.size() && (info[i] == '=' || info[i] == ':')) ++i;
            while (i < info.size() && info[i] == ' ') ++i;
            if (i == at + field.size()) continue;  // "vcpus", "vcpu_idx": not the field
            std::int64_t v = 0;
            std::size_t digits = 0;
            for (; i < info.size() && info[i] >= '0' && info[i] <= '9' && digits < 7; ++i, ++digits) v = v * 10 + (info[i] - '0');
            if (digits == 0 || digits == 7) continue;
            if (i < info.size() && info[i] != ' ' && info[i] != ',' && info[i] != ':' && info[i] != ')') continue;  // "vcpu 0x..": not a number
            return OwnVcpu{v, at, i};
        }
    }
    return std::nullopt;
}

std::optional<OwnVcpu> own_vcpu_in_joined_info(std::string_view info, std::span<const std::size_t> breaks) {
    const auto as_joined = own_vcpu_in_info(info);
    for (const std::size_t b : breaks) {
        if (b >= info.size() || info[b] != ' ') continue;
        if (as_joined && b > as_joined->end) break;  // the field was read before this break
        std::string unbroken(info.substr(0, b));
        unbroken += info.substr(b + 1);
        const auto r = own_vcpu_in_info(unbroken);
        if (r && r->begin < b && b < r->end) return OwnVcpu{r->vcpu, r->begin, r->end + 1};
    }
    return as_joined;
}

}  // namespace irqflow
