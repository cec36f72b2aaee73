#pragma once
/// Internal to render: what only the tests ask of probe_visual.h (not API; the tests include it
/// from the source folder).

#include "terrabit/render/probe_visual.h"

namespace terrabit::render {

/// The probe of a text probe line (lon/lat degrees, metres) in the cells of a zoom: metres become
/// cells at the probe's own latitude, as core's runProbe does.
ProbeShape probeShapeFromSpec(const core::ProbeSpec& spec, int zoom);

}  // namespace terrabit::render
