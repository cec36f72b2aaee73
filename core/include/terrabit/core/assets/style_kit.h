#pragma once
/// The default library's style kit: the palette and the façade and roof parts every default
/// building is dressed with (windows with a frame and a pane, bands, window grids, parapet
/// roofs), so that buildings made elsewhere — the building pass's generated buildings
/// (core/scene/generated_building_mesh.h) — look like the prefabs standing next to them.
///
/// Space and winding as MeshBuilder's: metres, Y up, outlines in (x, z) counter-clockwise seen
/// from above (north, -Z, up the screen).

#include <array>
#include <vector>

#include "terrabit/core/assets/mesh_builder.h"

namespace terrabit::core::style {

/// An outline in (x, z) (y ignored), counter-clockwise seen from above.
using Outline = std::vector<Vec3>;

// The palette, sRGB as picked by eye.
inline constexpr Rgb kPlasterCream{232, 220, 190};
inline constexpr Rgb kPlasterWhite{238, 236, 228};
inline constexpr Rgb kPlasterOchre{220, 176, 108};
inline constexpr Rgb kPlasterPink{222, 166, 152};
inline constexpr Rgb kPlasterSage{176, 190, 160};
inline constexpr Rgb kBrick{156, 74, 54};
inline constexpr Rgb kStone{196, 188, 170};
inline constexpr Rgb kStoneDark{150, 144, 130};
inline constexpr Rgb kConcrete{196, 194, 188};
inline constexpr Rgb kConcreteDark{120, 120, 118};
inline constexpr Rgb kMarble{232, 228, 216};
inline constexpr Rgb kMarbleShade{214, 208, 192};
inline constexpr Rgb kRoofTerracotta{176, 82, 52};
inline constexpr Rgb kRoofSlate{70, 76, 88};
inline constexpr Rgb kRoofCopper{98, 152, 132};
inline constexpr Rgb kRoofMetal{168, 172, 176};
inline constexpr Rgb kRoofFlat{132, 128, 122};
inline constexpr Rgb kGlass{64, 96, 128};
inline constexpr Rgb kGlassTower{92, 136, 170};
inline constexpr Rgb kFrameWhite{244, 244, 240};
inline constexpr Rgb kFrameDark{60, 60, 64};
inline constexpr Rgb kDoorWood{104, 68, 40};
inline constexpr Rgb kShutterGreen{62, 104, 70};
inline constexpr Rgb kVermilion{178, 48, 34};
inline constexpr Rgb kGold{206, 158, 64};
inline constexpr Rgb kRoofTemple{58, 66, 64};
inline constexpr Rgb kSoffitRed{140, 56, 40};
inline constexpr Rgb kSteelBlue{96, 118, 140};
inline constexpr Rgb kAwningRed{190, 40, 40};
inline constexpr Rgb kTimber{150, 110, 70};
inline constexpr Rgb kTimberDark{100, 72, 48};
inline constexpr Rgb kBarnRed{146, 52, 40};
inline constexpr Rgb kGreenhouseGlass{190, 220, 215};

/// How far large background bands (plinths, strips) sit in front of their wall, metres: closer
/// than windows and doors, so a window on a band is always in front of it.
inline constexpr double kBand = MeshBuilder::kPanelOffset / 2;

/// The façade of the wall along the edge p → q of a counter-clockwise (seen from above)
/// outline, from height y0 up `height` metres.
Facade edgeFacade(Vec3 p, Vec3 q, double y0, double height);
/// A quad whose winding is chosen so that it faces along `towards` (roughly).
void addQuadFacing(MeshBuilder& b, Vec3 a, Vec3 c1, Vec3 c2, Vec3 d, Vec3 towards);

/// A window centred `uc` metres along the façade, sill at `v0`, `w` × `h` metres: a frame panel
/// and a glass pane just in front of it.
void window(MeshBuilder& b, const Facade& f, double uc, double v0, double w, double h, Rgb frame, Rgb glass);
/// A plain panel (door, sign, band) from (u0, v0) to (u1, v1), `depth` metres in front of the wall.
void panel(MeshBuilder& b, const Facade& f, double u0, double v0, double u1, double v1, Rgb colour,
           double depth = MeshBuilder::kPanelOffset);
/// Windows evenly spread along a façade, one row per floor (`floors` rows from `firstSill`,
/// `floorHeight` apart), at most one per `spacing` metres; `skipU` keeps a gap (a door) of
/// `skipHalfWidth` free on the ground floor.
void windowGrid(MeshBuilder& b, const Facade& f, int floors, double firstSill, double floorHeight, double w, double h,
                double spacing, Rgb frame, Rgb glass, double skipU = -1.0, double skipHalfWidth = 0.0);

/// Every vertex of the outline moved `t` metres inwards (mitred corners; negative t: outwards).
Outline inset(const Outline& poly, double t);
/// The outline in reverse order (a courtyard's walls face inwards).
Outline reversed(Outline p);
/// The rectangle [x0, x1] × [z0, z1], counter-clockwise seen from above.
Outline rectangle(double x0, double x1, double z0, double z1);
/// The band between two outlines with matching corners, facing up at height y.
void ringCap(MeshBuilder& b, const Outline& outer, const Outline& inner, double y);
/// A flat roof at `y` with a parapet `h` high and `t` thick along a counter-clockwise outline:
/// the roof inside the inset outline, the parapet's outer and inner faces and its top.
void parapetRoof(MeshBuilder& b, const Outline& outline, double y, double h, double t, Rgb wall, Rgb roof);
/// The four façades of a rectangle's walls: front (+Z), right (+X), back (-Z), left (-X).
std::array<Facade, 4> boxFacades(double x0, double x1, double z0, double z1, double y0, double h);

}  // namespace terrabit::core::style
