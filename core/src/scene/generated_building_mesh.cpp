#include "terrabit/core/scene/generated_building_mesh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../placement/ear_cutter_p.h"
#include "terrabit/core/assets/mesh_builder.h"
#include "terrabit/core/assets/style_kit.h"
#include "terrabit/core/placement/target_box.h"

namespace terrabit::core {

namespace {

using style::Outline;

// The wall colours a generated building takes: the library's plasters, brick and concrete.
constexpr std::array<Rgb, 7> kWallColours{style::kPlasterCream, style::kPlasterWhite, style::kPlasterOchre,
                                          style::kPlasterPink,  style::kPlasterSage,  style::kBrick,
                                          style::kConcrete};
constexpr std::array<Rgb, 2> kPitchedRoofColours{style::kRoofTerracotta, style::kRoofSlate};

// A generated building's colours from its outline's hash and its roof.
FacadeColours coloursOf(std::uint64_t hash, GeneratedRoof roof) {
    return {kWallColours[hash % kWallColours.size()],
            roof == GeneratedRoof::Flat ? style::kRoofFlat
                                        : kPitchedRoofColours[(hash >> 32) % kPitchedRoofColours.size()]};
}

// Twice the signed area of the triangle o, a, b (positive counter-clockwise, y north).
double cross(Vec2 o, Vec2 a, Vec2 b) { return core::cross(a - o, b - o); }

// The ring's signed area (positive counter-clockwise), square metres.
double signedArea(std::span<const Vec2> ring) {
    double twice = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) twice += core::cross(ring[i], ring[(i + 1) % ring.size()]);
    return twice * 0.5;
}

// The building's outline counter-clockwise (y north), as its walls are raised from it.
std::vector<Vec2> counterClockwiseRing(const GeneratedBuilding& building) {
    std::vector<Vec2> ring = building.outline;
    if (signedArea(ring) < 0.0) std::reverse(ring.begin(), ring.end());
    return ring;
}

// Its roof: by its tags, flat around courtyards.
GeneratedRoof roofOf(const GeneratedBuilding& building) {
    return building.courtyards.empty() ? generatedRoof(building.roofShape) : GeneratedRoof::Flat;
}

bool onSegment(Vec2 p, Vec2 a, Vec2 b) {
    return std::min(a.x, b.x) <= p.x && p.x <= std::max(a.x, b.x) && std::min(a.y, b.y) <= p.y &&
           p.y <= std::max(a.y, b.y);
}

// Closed segments ab and cd share a point.
bool segmentsMeet(Vec2 a, Vec2 b, Vec2 c, Vec2 d) {
    const double d1 = cross(c, d, a), d2 = cross(c, d, b), d3 = cross(a, b, c), d4 = cross(a, b, d);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
    return (d1 == 0 && onSegment(a, c, d)) || (d2 == 0 && onSegment(b, c, d)) || (d3 == 0 && onSegment(c, a, b)) ||
           (d4 == 0 && onSegment(d, a, b));
}

// The first pair of edges (i < j) of a ring that meet other than at a shared corner of
// neighbours; {-1, -1} when the ring is simple. O(n²): outlines have tens of corners.
std::array<long, 2> crossingEdges(std::span<const Vec2> ring) {
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const bool neighbours = j == i + 1 || (i == 0 && j == n - 1);
            const Vec2 a = ring[i], b = ring[(i + 1) % n], c = ring[j], d = ring[(j + 1) % n];
            if (neighbours) {
                // Neighbours share one corner; they only fail when they fold back onto each other.
                const Vec2 shared = j == i + 1 ? b : a;
                const Vec2 p = j == i + 1 ? a : b;
                const Vec2 q = j == i + 1 ? d : c;
                if (cross(shared, p, q) == 0 &&
                    (p.x - shared.x) * (q.x - shared.x) + (p.y - shared.y) * (q.y - shared.y) > 0)
                    return {static_cast<long>(i), static_cast<long>(j)};
                continue;
            }
            if (segmentsMeet(a, b, c, d)) return {static_cast<long>(i), static_cast<long>(j)};
        }
    }
    return {-1, -1};
}

std::string number(double v) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// A stable 64-bit hash of the outline at centimetre resolution (SplitMix64 steps): the
// building's colours, so a footprint looks the same in every bake and every export.
std::uint64_t outlineHash(std::span<const Vec2> ring) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    const auto mixIn = [&h](std::int64_t v) {
        h ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
        h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
        h ^= h >> 31;
    };
    for (const Vec2& p : ring) {
        mixIn(std::llround(p.x * 100.0));
        mixIn(std::llround(p.y * 100.0));
    }
    return h;
}

// The ground ring as MeshBuilder points relative to `centre` ((x, z) = (east, −north)).
Outline localOutline(std::span<const Vec2> ring, Vec2 centre) {
    Outline out;
    out.reserve(ring.size());
    for (const Vec2& p : ring) out.push_back({p.x - centre.x, 0.0, -(p.y - centre.y)});
    return out;
}

std::vector<Vec2> groundRing(const Outline& local) {
    std::vector<Vec2> ring;
    ring.reserve(local.size());
    for (const Vec3& p : local) ring.push_back({p.x, -p.z});
    return ring;
}

// The parapet's inner outline, or nothing when the mitred inset is not a simple ring inside the
// outline (a part narrower than twice the thickness, a sharp spike): the roof then has no parapet.
std::optional<Outline> parapetInset(const Outline& outline) {
    const Outline in = style::inset(outline, kGeneratedParapetThickness);
    const std::vector<Vec2> outer = groundRing(outline);
    const std::vector<Vec2> inner = groundRing(in);
    const double outerArea = signedArea(outer);
    const double innerArea = signedArea(inner);
    if (!(innerArea > 0.0) || innerArea >= outerArea) return std::nullopt;
    if (crossingEdges(inner)[0] >= 0) return std::nullopt;
    const std::size_t n = outer.size();
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            if (segmentsMeet(inner[i], inner[(i + 1) % n], outer[j], outer[(j + 1) % n])) return std::nullopt;
        }
    }
    return in;
}

// One wall's façade: the plinth band, a window per 3 m per storey, and the door when asked.
void dressWall(MeshBuilder& b, const Facade& f, int storeys, double storey, bool door) {
    if (f.width < 0.5) return;
    style::panel(b, f, 0, 0, f.width, std::min(0.5, 0.2 * storey), style::kStoneDark, style::kBand);
    const bool hasDoor = door && f.width >= 2.0 && storey >= 2.5;
    if (hasDoor)
        style::panel(b, f, f.width / 2 - 0.6, 0, f.width / 2 + 0.6, 2.2, style::kDoorWood,
                     2 * MeshBuilder::kPanelOffset);
    if (f.width < 2.0) return;
    const double w = 1.2;
    const double h = std::min(1.5, 0.5 * storey);
    const double sill = std::min(0.9, 0.3 * storey);
    style::windowGrid(b, f, storeys, sill, storey, w, h, 3.0, style::kFrameWhite, style::kGlass,
                      hasDoor ? f.width / 2 : -1.0, 0.8);
}

// Whether p lies inside the ring (even-odd; a point on an edge may go either way: callers
// test edges separately).
bool insideRing(std::span<const Vec2> ring, Vec2 p) {
    bool inside = false;
    for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
        const Vec2 a = ring[i], b = ring[j];
        if ((a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x) inside = !inside;
    }
    return inside;
}

// Whether an edge of one ring meets an edge of the other. O(n m): outlines have tens of corners.
bool ringsMeet(std::span<const Vec2> p, std::span<const Vec2> q) {
    for (std::size_t i = 0; i < p.size(); ++i) {
        for (std::size_t j = 0; j < q.size(); ++j) {
            if (segmentsMeet(p[i], p[(i + 1) % p.size()], q[j], q[(j + 1) % q.size()])) return true;
        }
    }
    return false;
}

// A ring's points: at least three (`whole` says what needs them), all finite.
Status checkRingPoints(std::span<const Vec2> ring, const std::string& what, const char* whole) {
    if (ring.size() < 3) {
        return Error{what + " has " + std::to_string(ring.size()) + " points (" + whole + " needs at least 3)"};
    }
    for (std::size_t i = 0; i < ring.size(); ++i) {
        if (!isFinite(ring[i])) return Error{"point " + std::to_string(i) + " of " + what + " is not finite"};
    }
    return Status::success();
}

// A ring's perimeter, metres (infinite for points too far apart to subtract).
double ringLength(std::span<const Vec2> ring) {
    double length = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) length += core::length(ring[(i + 1) % ring.size()] - ring[i]);
    return length;
}

// A ring's shape: simple, with an area.
Status checkRingShape(std::span<const Vec2> ring, const std::string& what) {
    if (const auto edges = crossingEdges(ring); edges[0] >= 0) {
        return Error{what + " is not a simple ring: edges " + std::to_string(edges[0]) + " and " +
                     std::to_string(edges[1]) + " meet"};
    }
    if (signedArea(ring) == 0.0) return Error{what + " has no area"};
    return Status::success();
}

// The courtyards: rings strictly inside the outline, apart from it and from each other.
Status checkCourtyards(const GeneratedBuilding& building) {
    const auto& yards = building.courtyards;
    for (std::size_t k = 0; k < yards.size(); ++k) {
        const std::string what = "its courtyard " + std::to_string(k);
        if (Status s = checkRingPoints(yards[k], what, "a courtyard"); !s) return s;
        if (Status s = checkRingShape(yards[k], what); !s) return s;
        if (ringsMeet(yards[k], building.outline)) return Error{what + " meets its outline"};
        if (!insideRing(building.outline, yards[k].front())) return Error{what + " lies outside its outline"};
        for (std::size_t m = 0; m < k; ++m) {
            if (ringsMeet(yards[k], yards[m]) || insideRing(yards[m], yards[k].front()) ||
                insideRing(yards[k], yards[m].front())) {
                return Error{"its courtyards " + std::to_string(m) + " and " + std::to_string(k) + " meet"};
            }
        }
    }
    return Status::success();
}

// The flat roof over the outline with its courtyards left open: ear-cut, at height y, facing
// up. `shell` counter-clockwise and `yards` in ground metres about `centre`.
void addYardedCap(MeshBuilder& b, std::span<const Vec2> shell, std::span<const std::vector<Vec2>> yards, Vec2 centre,
                  double y) {
    std::vector<std::vector<Vec2>> local;
    local.reserve(yards.size() + 1);
    const auto about = [&](std::span<const Vec2> ring) {
        std::vector<Vec2> r;
        for (const Vec2 p : ring) r.push_back(p - centre);
        return r;
    };
    local.push_back(about(shell));
    for (const auto& yard : yards) local.push_back(about(yard));
    std::vector<std::span<const Vec2>> rings(local.begin(), local.end());
    std::vector<Vec2> triangles;
    placement::detail::EarCutter cutter;
    cutter.cut(rings, triangles);
    // Counter-clockwise seen from above in (east, north) is (x, −z) here: kept as it is, the
    // corners' order faces up (MeshBuilder::addFlatCap's too).
    for (std::size_t i = 0; i + 2 < triangles.size(); i += 3) {
        const auto at = [&](Vec2 p) { return Vec3{p.x, y, -p.y}; };
        b.addTriangle(at(triangles[i]), at(triangles[i + 1]), at(triangles[i + 2]));
    }
}

}  // namespace

Status checkGeneratedBuilding(const GeneratedBuilding& building) {
    const std::vector<Vec2>& ring = building.outline;
    if (Status s = checkRingPoints(ring, "its outline", "a building"); !s) return s;
    if (!std::isfinite(building.base)) return Error{"its base height is not finite"};
    if (!(building.wallHeight > 0.0f) || !(building.wallHeight <= kGeneratedMaxHeightMetres)) {
        return Error{"its wall height " + number(building.wallHeight) + " m is not a positive number up to " +
                     number(kGeneratedMaxHeightMetres) + " m"};
    }
    if (!(building.roofHeight >= 0.0f) || !(building.roofHeight <= kGeneratedMaxHeightMetres)) {
        return Error{"its roof height " + number(building.roofHeight) + " m is not a number from 0 to " +
                     number(kGeneratedMaxHeightMetres) + " m"};
    }
    double perimeter = ringLength(ring);
    for (const std::vector<Vec2>& yard : building.courtyards) perimeter += ringLength(yard);
    if (const double wall = perimeter * (double(building.wallHeight) + building.roofHeight);
        !(wall <= kGeneratedMaxWallArea)) {
        return Error{"its walls are " + number(wall) + " m², more than any building's (" +
                     number(kGeneratedMaxWallArea) + " m²)"};
    }
    if (Status s = checkRingShape(ring, "its outline"); !s) return s;
    return checkCourtyards(building);
}

GeneratedRoof generatedRoof(std::string_view shape) {
    for (std::string_view s : {"gabled", "gambrel", "saltbox", "skillion"}) {
        if (shape == s) return GeneratedRoof::Gabled;
    }
    for (std::string_view s : {"hipped", "pyramidal", "half-hipped", "mansard"}) {
        if (shape == s) return GeneratedRoof::Hipped;
    }
    return GeneratedRoof::Flat;
}

AssetMesh generatedBuildingMesh(const GeneratedBuilding& building, GeneratedDetail detail) {
    if (!checkGeneratedBuilding(building)) return {};
    const std::vector<Vec2> ring = counterClockwiseRing(building);
    // Courtyards clockwise: their walls then face into the yard (MeshBuilder::addWalls).
    std::vector<std::vector<Vec2>> yards = building.courtyards;
    for (std::vector<Vec2>& yard : yards) {
        if (signedArea(yard) > 0.0) std::reverse(yard.begin(), yard.end());
    }

    // Everything is modelled around the oriented box's centre (small numbers) and moved into
    // the scene by the builder's transform.
    std::vector<Vec2> hull;
    placement::convexHull(ring, hull);
    const OrientedBox box = placement::minimumAreaBox(hull);
    const Outline outline = localOutline(ring, box.centre);
    const Affine toScene = Affine::translation({box.centre.x, 0.0, -box.centre.y});

    const GeneratedRoof roof = roofOf(building);
    const FacadeColours colours = coloursOf(outlineHash(ring), roof);
    const Rgb wall = colours.walls;
    const double base = building.base;
    const double wallHeight = building.wallHeight;
    const int storeys = std::max(1, static_cast<int>(std::lround(wallHeight / kGeneratedStoreyMetres)));
    const double storey = wallHeight / storeys;

    MeshBuilder b;
    if (detail == GeneratedDetail::Block) {
        // The outline's prism (and its yards') up to the roof's mean height (a pitched roof's
        // half rise), walls in the wall colour, the top in the roof's.
        double top = base + wallHeight;
        if (roof != GeneratedRoof::Flat) {
            const double halfSpan = std::min(box.halfExtents.x, box.halfExtents.y);
            top += 0.5 * (building.roofHeight > 0.0f ? building.roofHeight : std::min(6.0, 0.7 * halfSpan));
        }
        b.setTransform(toScene);
        b.setColour(wall);
        b.addWalls(outline, base, top);
        for (const std::vector<Vec2>& yard : yards) b.addWalls(localOutline(yard, box.centre), base, top);
        b.setColour(colours.roof);
        if (yards.empty()) {
            b.addFlatCap(outline, top);
        } else {
            addYardedCap(b, ring, yards, box.centre, top);
        }
        return b.take();
    }
    b.setTransform(toScene);
    // A flat roof's deck lies a parapet's height under the wall top, when the parapet fits.
    const std::optional<Outline> inner =
        roof == GeneratedRoof::Flat && yards.empty() && wallHeight > 2.0 * kGeneratedParapetHeight
            ? parapetInset(outline)
            : std::nullopt;
    const double deck = base + wallHeight - (inner ? kGeneratedParapetHeight : 0.0);
    b.setColour(wall);
    b.addWalls(outline, base, deck);
    std::vector<Outline> yardOutlines;
    for (const std::vector<Vec2>& yard : yards) {
        yardOutlines.push_back(localOutline(yard, box.centre));
        b.addWalls(yardOutlines.back(), base, deck);
    }

    if (detail == GeneratedDetail::Dressed) {
        std::size_t longest = 0;
        std::vector<Facade> facades;
        facades.reserve(outline.size());
        for (std::size_t i = 0; i < outline.size(); ++i) {
            facades.push_back(style::edgeFacade(outline[i], outline[(i + 1) % outline.size()], base, wallHeight));
            if (facades[i].width > facades[longest].width) longest = i;
        }
        for (std::size_t i = 0; i < facades.size(); ++i) dressWall(b, facades[i], storeys, storey, i == longest);
        for (const Outline& yard : yardOutlines) {
            for (std::size_t i = 0; i < yard.size(); ++i) {
                dressWall(b, style::edgeFacade(yard[i], yard[(i + 1) % yard.size()], base, wallHeight), storeys, storey,
                          false);
            }
        }
    }

    if (roof == GeneratedRoof::Flat) {
        if (!yards.empty()) {
            b.setColour(style::kRoofFlat);
            addYardedCap(b, ring, yards, box.centre, deck);
        } else if (inner) {
            style::parapetRoof(b, outline, deck, kGeneratedParapetHeight, kGeneratedParapetThickness, wall,
                               style::kRoofFlat);
            // parapetRoof's deck is the inset outline; its inner ring is the one checked above.
        } else {
            b.setColour(style::kRoofFlat);
            b.addFlatCap(outline, deck);
        }
        return b.take();
    }
    // Pitched: on the oriented box, turned so that its width axis is the builder's +X.
    const double hx = box.halfExtents.x;
    const double hz = box.halfExtents.y;
    const double halfSpan = std::min(hx, hz);
    const double rise = building.roofHeight > 0.0f ? building.roofHeight : std::min(6.0, 0.7 * halfSpan);
    const double eaves = base + wallHeight;
    b.setColour(wall);
    b.addFlatCap(outline, eaves);  // the ceiling under the roof, seen where the box overhangs
    b.setTransform(toScene * Affine::rotationY(box.angle));
    b.setColour(colours.roof);
    if (roof == GeneratedRoof::Gabled) {
        b.addGableRoof(-hx, hx, -hz, hz, eaves, rise, hx >= hz, 0.3, wall);
    } else {
        b.addHipRoof(-hx, hx, -hz, hz, eaves, rise, 0.3);
    }
    return b.take();
}

FacadeColours generatedBuildingColours(const GeneratedBuilding& building) {
    return coloursOf(outlineHash(counterClockwiseRing(building)), roofOf(building));
}

AssetMesh generatedBuildingsMesh(std::span<const GeneratedBuilding* const> buildings, GeneratedDetail detail) {
    AssetMesh all;
    for (const GeneratedBuilding* g : buildings) all.append(generatedBuildingMesh(*g, detail));
    return all;
}

}  // namespace terrabit::core
