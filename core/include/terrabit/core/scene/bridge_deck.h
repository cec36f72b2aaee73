#pragma once
/// A bridge as faces every export draws (the GLB and 3D Tiles writers, render's scene graph and
/// so osgb and the viewport), so they all put the same quads in the same places: the deck, a
/// slab kBridgeDeckThicknessMetres thick under the deck's top, its sides mitred at the bends;
/// and a railing along each edge of it, a solid parapet kBridgeRailingHeightMetres high and
/// kBridgeRailingWidthMetres thick standing on the deck's top.

#include <array>
#include <cstdint>
#include <vector>

#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// The colour every export gives a deck (sRGB): concrete.
inline constexpr std::array<std::uint8_t, 3> kBridgeColour{165, 160, 150};
/// How thick a deck is drawn, metres below its top.
inline constexpr float kBridgeDeckThicknessMetres = 0.8f;
/// A railing's height above the deck's top and its thickness inwards from the deck's edge,
/// metres (a parapet at about the height building codes ask of a bridge's guard).
inline constexpr float kBridgeRailingHeightMetres = 1.1f;
inline constexpr float kBridgeRailingWidthMetres = 0.25f;

/// The faces of `deck`: per piece of its centreline the top, the bottom and both sides, and a
/// cap at each end; each face counter-clockwise seen from outside with its outward unit normal.
/// Empty for a deck of fewer than two points or no width.
std::vector<PlinthFace> bridgeDeckFaces(const BridgeDeck& deck);

/// The faces of `deck`'s railings: along each edge of its top, per piece the outer side, the
/// inner side and the top, and a cap at each end; wound as bridgeDeckFaces'. Their outer sides
/// go on up from the deck's sides. Empty where bridgeDeckFaces is, and for a deck too narrow for
/// two railings and a metre between them.
std::vector<PlinthFace> bridgeRailingFaces(const BridgeDeck& deck);

/// What the exports draw of a bridge: bridgeDeckFaces, then bridgeRailingFaces.
std::vector<PlinthFace> bridgeFaces(const BridgeDeck& deck);

}  // namespace terrabit::core
