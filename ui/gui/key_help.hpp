// Every key and mouse action of the window, once: the `?` / F1 overlay lists this table
// and input.cpp / navigation_view.cpp implement it.
#pragma once

namespace irqflow::gui {

struct KeyHelp {
    const char* keys;
    const char* what;
};

inline constexpr KeyHelp kKeyHelp[] = {
    {"wheel", "zoom around the pointer"},
    {"drag", "pan"},
    {"right-drag, Shift+drag", "zoom to the box"},
    {"click a lane", "pin the inspector there (green cursor line)"},
    {"Esc", "unpin the inspector"},
    {"Ctrl+G", "type a time or #record to go to (zooms there, cursor, its row in the events tab)"},
    {"Ctrl+F", "search: an event name, field=value (exit_reason=HLT), a vector (0xec) or a rule id; Enter goes to the first match"},
    {"F3 / Shift+F3", "next / previous match (the events tab lists them all)"},
    {"Ctrl+click, Ctrl+right-click", "marker A, marker B (the selection tab shows what lies between)"},
    {"A / B", "marker A / B at the pointer (or at the cursor)"},
    {"C", "clear markers A and B"},
    {"+ / -", "zoom in / out"},
    {"Left / Right", "pan by a tenth of the view"},
    {"Home / End", "the trace's start / end, same zoom"},
    {"W", "the whole trace"},
    {"N / P", "next / previous finding"},
    {"I / Shift+I", "next / previous injection (of the vector filter)"},
    {"E / Shift+E", "next / previous EOI (of the vector filter)"},
    {"T", "axis: trace-clock time (the default) / time since the trace start"},
    {"L", "show / hide the key of colours"},
    {"? / F1", "show / hide this list"},
    {"Ctrl+Q", "quit"},
};

}  // namespace irqflow::gui
