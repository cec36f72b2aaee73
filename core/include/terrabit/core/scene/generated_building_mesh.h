#pragma once
/// The mesh of a generated building (GeneratedBuilding, the building pass's `generate`
/// fallback) in scene coordinates: the one place the record turns into triangles, so the GLB
/// and 3D Tiles writers and render's scene graph (osgb, the viewport) draw the same building.
///
/// It is dressed from the default library's style kit (core/assets/style_kit.h), so it looks
/// like the prefabs around it rather than a grey extrusion:
/// - walls along the outline from `base` to `base + wallHeight`, one plaster or brick colour
///   per building (a hash of its outline, so the same footprint always gets the same colour),
///   a stone plinth band, and on every wall at least 2 m long a row of framed windows per
///   storey (storeys of about kStoreyMetres); the longest wall gets a door on the ground floor;
/// - the roof by `roofShape`: "flat" (and anything unknown) a flat deck inside a 0.6 m parapet
///   whose top is the wall top — the deck and the parapet's top together cover exactly the
///   footprint; where the parapet cannot be inset (a part of the footprint narrower than
///   twice its thickness) the deck covers the whole footprint at the wall top instead.
///   "gabled" (also gambrel, saltbox, skillion) and "hipped" (also pyramidal, half-hipped,
///   mansard) are pitched roofs on the footprint's minimum-area oriented box, the ridge along its
///   long side, `roofHeight` high (0: a pitch of about 35°, at most 6 m). On a footprint that is
///   not a rectangle this is an approximation: the roof covers the whole box, so over the
///   parts of the box the footprint leaves empty (an L's open corner) it overhangs the ground.
/// - courtyards: walls facing into each yard, dressed like the outer ones (without a door),
///   and a roof with the yards left open. A building with courtyards gets a flat deck at the
///   wall top whatever its `roofShape` (a pitched roof on the box would cover its yards) and no
///   parapet.
///
/// Façade panels (windows, doors, bands) stand up to 3 × MeshBuilder::kPanelOffset in front of
/// their wall, as on the prefabs; pitched roofs overhang the box by 0.3 m. Everything else lies
/// within the outline's prism. Concave outlines are triangulated by ear clipping
/// (MeshBuilder::addFlatCap). Deterministic: the same record gives the same bytes.

#include <span>
#include <string_view>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/result.h"
#include "terrabit/core/scene/scene.h"

namespace terrabit::core {

/// The storey height a generated building's walls are divided into for window rows, metres:
/// the walls hold round(wallHeight / kStoreyMetres) storeys (at least one).
inline constexpr double kGeneratedStoreyMetres = 3.0;
/// The parapet of a flat roof: its height above the deck and its thickness, metres.
inline constexpr double kGeneratedParapetHeight = 0.6;
inline constexpr double kGeneratedParapetThickness = 0.3;

/// The tallest wall, and the tallest roof, a generated building may have, metres: above any
/// building standing (828 m); a taller `height` tag is a mistake.
inline constexpr double kGeneratedMaxHeightMetres = 1000.0;
/// The most wall a generated building may have, square metres: its rings' perimeters times its
/// wall and roof heights. Eight times the largest real building's (a 4 km perimeter 30 m high),
/// it bounds the façades' windows, so a wrong record (a scene.part from elsewhere) cannot ask
/// for gigabytes of them.
inline constexpr double kGeneratedMaxWallArea = 1.0e6;

/// Whether a record can be drawn: at least three points, all finite, a simple ring (no edge
/// crosses or touches another but its neighbours) with an area, a finite base, a positive
/// wall height and a roof height ≥ 0, neither above kGeneratedMaxHeightMetres, and at most
/// kGeneratedMaxWallArea of wall; each courtyard the same kind of ring,
/// strictly inside the outline and meeting neither it nor another courtyard. The error says
/// what is wrong and where (the point, the edges, the courtyard); the caller adds which
/// building it is.
Status checkGeneratedBuilding(const GeneratedBuilding& building);

/// The roof a `roof:shape` value is drawn with.
enum class GeneratedRoof : std::uint8_t { Flat, Gabled, Hipped };
/// Flat for "flat", "" and anything not listed in the header comment.
GeneratedRoof generatedRoof(std::string_view roofShape);

/// How much of a generated building is drawn: Dressed, everything above; Plain, its walls
/// and roof without the façade panels (windows, door, plinth band), for a building seen from
/// so far that they would cover less than a pixel: the same prism and roof in the same colours
/// at a fraction of the triangles.
/// Block, its outline's prism (courtyards open) up to the roof's mean height (a pitched roof's
/// half rise), walls in its wall colour and a flat top in its roof's: about three triangles an
/// outline point, for a building a few pixels wide (the prefabs beside it are then boxes).
enum class GeneratedDetail : std::uint8_t { Dressed, Plain, Block };

/// The building's triangles in scene coordinates (metres, +X east, +Y up, +Z south): flat
/// normals, a linear-light colour per vertex (the parts' colours), counter-clockwise fronts.
/// Empty when checkGeneratedBuilding fails. A clockwise outline is drawn as its reverse.
AssetMesh generatedBuildingMesh(const GeneratedBuilding& building, GeneratedDetail detail = GeneratedDetail::Dressed);

/// The colours generatedBuildingMesh draws a building in: its walls' and its roof's (a flat
/// roof's deck, a pitched roof's tiles). Cheap: no mesh is made.
FacadeColours generatedBuildingColours(const GeneratedBuilding& building);

/// The meshes of several buildings appended in order into one (a tile's), skipping any that
/// checkGeneratedBuilding refuses.
AssetMesh generatedBuildingsMesh(std::span<const GeneratedBuilding* const> buildings,
                                 GeneratedDetail detail = GeneratedDetail::Dressed);

}  // namespace terrabit::core
