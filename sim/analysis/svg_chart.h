// A small SVG writer for analyst charts (the model and its layout: chart_model.h): scatter/line
// series with error bars, highlighted frontiers, reference lines, axes with units and ticks, and a
// legend. No third-party code; the output is self-contained SVG 1.1 (inline in HTML or a file of
// its own).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/analysis/chart_model.h"

namespace tycoon::analysis {

// The chart as an SVG document (a <svg> element with an XML declaration when `standalone`).
std::string render_svg(const Chart& chart, bool standalone = true);

// Escapes &, <, >, " and ' for XML text and attributes.
std::string xml_escape(std::string_view s);

// `text` broken into lines of at most about `width` characters at spaces (a word longer than the
// width gets a line of its own): nothing is cut.
std::vector<std::string> wrap_text(const std::string& text, std::size_t width);

}  // namespace tycoon::analysis
