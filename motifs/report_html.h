// The HTML report of a discovery: one row per pattern with its seqlet count, the logos of its
// trimmed CWM on both strands (explain/logo.h's SVG, inline), and with a motif database its best
// TOMTOM-like matches (motifs/tomtom.h) with p- and q-values and each match's logo. One
// self-contained file: no script, no image files.
#pragma once

#include <string>
#include <vector>

#include "motifs/discover.h"
#include "motifs/tomtom.h"

namespace strand::motifs {

/// The report's text; `database` may be empty (no match columns).
std::string report_html(const Discovery& discovery, const std::vector<Motif>& database,
                        const std::string& title);

/// The (width, 4) PPM of each pattern, trimmed as motifs.meme writes it.
std::vector<double> trimmed_ppm(const Pattern& pattern);

}  // namespace strand::motifs
