#pragma once
// Checks on generated building meshes shared by the synthetic tests (scene/) and the real-data
// ones (io/): GEOS's area of a footprint ring, and the area of a mesh's faces looking straight up.

#include <geos_c.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/geometry.h"

namespace terrabit::test {

/// GEOS's area of a ring (closed implicitly), square metres; -1 when GEOS finds it invalid.
inline double geosRingArea(const std::vector<core::Vec2>& ring) {
    GEOSContextHandle_t h = GEOS_init_r();
    GEOSCoordSequence* seq = GEOSCoordSeq_create_r(h, static_cast<unsigned>(ring.size() + 1), 2);
    for (std::size_t i = 0; i <= ring.size(); ++i) {
        const core::Vec2& p = ring[i % ring.size()];
        GEOSCoordSeq_setXY_r(h, seq, static_cast<unsigned>(i), p.x, p.y);
    }
    GEOSGeometry* polygon = GEOSGeom_createPolygon_r(h, GEOSGeom_createLinearRing_r(h, seq), nullptr, 0);
    double area = -1.0;
    if (GEOSisValid_r(h, polygon) == 1) GEOSArea_r(h, polygon, &area);
    GEOSGeom_destroy_r(h, polygon);
    GEOS_finish_r(h);
    return area;
}

/// The summed area of the mesh's triangles whose normal looks straight up (a roof's deck, a
/// parapet's top), square metres.
inline double upwardArea(const core::AssetMesh& m) {
    double area = 0.0;
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        const std::uint32_t i0 = m.indices[t * 3], i1 = m.indices[t * 3 + 1], i2 = m.indices[t * 3 + 2];
        if (m.normals[i0 * 3 + 1] <= 0.999f) continue;
        const double ux = m.positions[i1 * 3] - m.positions[i0 * 3],
                     uz = m.positions[i1 * 3 + 2] - m.positions[i0 * 3 + 2];
        const double vx = m.positions[i2 * 3] - m.positions[i0 * 3],
                     vz = m.positions[i2 * 3 + 2] - m.positions[i0 * 3 + 2];
        area += 0.5 * std::abs(ux * vz - uz * vx);
    }
    return area;
}

}  // namespace terrabit::test
