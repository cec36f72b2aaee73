#pragma once
/// What is painted on a road surface (SurfacePatch::paving, ::gravel, ::sidewalks, ::markings),
/// as one table every drawer reads: each layer's triangles, how far above the road it lies, its
/// colour, its texture, its roughness and whether it stands on a kerb, in drawing order. The GLB and 3D Tiles, the
/// viewport and osgb, and the scene check loop over it.

#include <array>
#include <cstdint>
#include <vector>

#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

struct SurfacePaint {
    SharedVector<Vec2> SurfacePatch::*triangles;  ///< the patch's triangles of it (tile cells)
    const char* name;                             ///< its material's (and drawable's) name
    float liftMetres;                             ///< above the road
    std::array<std::uint8_t, 3> colour;           ///< sRGB
    SurfaceTexture texture;
    double roughness;
    /// Raised on a kerb: the edges of its outline stand as walls down to the road, in
    /// kKerbColour (drapeWalls, core/scene/ground_drape.h).
    bool kerbed = false;
};

inline constexpr std::array<SurfacePaint, 4> kSurfacePaints{{
    {&SurfacePatch::paving, "paving", kPavingLiftMetres, kPavingColour, SurfaceTexture::Paving, 0.85},
    {&SurfacePatch::gravel, "gravel", kPavingLiftMetres, kGravelColour, SurfaceTexture::Gravel, 0.85},
    {&SurfacePatch::sidewalks, "sidewalk", kKerbHeightMetres, kPavingColour, SurfaceTexture::Paving, 0.85, true},
    {&SurfacePatch::markings, "marking", kMarkingLiftMetres, kMarkingColour, SurfaceTexture::None, 0.6},
}};

/// The kerbs' material name (the walls of kerbed paint).
inline constexpr const char* kKerbName = "kerb";

}  // namespace terrabit::core
