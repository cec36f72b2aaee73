#pragma once
/// A bridge's deck as faces every export draws (the GLB and 3D Tiles writers, render's scene
/// graph and so osgb and the viewport), so they all put the same quads in the same places: a
/// slab kBridgeDeckThicknessMetres thick under the deck's top, its sides mitred at the bends.

#include <array>
#include <cstdint>
#include <vector>

#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// The colour every export gives a deck (sRGB): concrete.
inline constexpr std::array<std::uint8_t, 3> kBridgeColour{165, 160, 150};
/// How thick a deck is drawn, metres below its top.
inline constexpr float kBridgeDeckThicknessMetres = 0.8f;

/// The faces of `deck`: per piece of its centreline the top, the bottom and both sides, and a
/// cap at each end; each face counter-clockwise seen from outside with its outward unit normal.
/// Empty for a deck of fewer than two points or no width.
std::vector<PlinthFace> bridgeDeckFaces(const BridgeDeck& deck);

}  // namespace terrabit::core
