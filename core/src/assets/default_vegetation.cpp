// The vegetation of the default library: trees with trunks and crowns that read as their kind
// at a glance (stacked jagged cones for conifers, lumpy leaf masses for broadleaf trees, fronds
// for the palm), bushes, a grass clump and flowers. Every random choice comes from a fixed seed
// per model, so the files are reproducible.

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "default_models_p.h"

namespace terrabit::core::detail {

namespace {

constexpr double kPi = std::numbers::pi;

constexpr Rgb kBark{98, 70, 46};
constexpr Rgb kBarkDark{72, 52, 36};
constexpr Rgb kBirchBark{228, 224, 212};
constexpr Rgb kBirchMark{52, 50, 48};
constexpr Rgb kSpruce{38, 84, 52};
constexpr Rgb kFir{56, 102, 70};
constexpr Rgb kOakLeaves{66, 114, 46};
constexpr Rgb kBirchLeaves{120, 162, 64};
constexpr Rgb kPalmLeaves{78, 138, 50};
constexpr Rgb kPalmBark{140, 112, 80};
constexpr Rgb kBush{62, 112, 52};
constexpr Rgb kGrassBase{56, 96, 38};
constexpr Rgb kGrassMid{100, 150, 56};
constexpr Rgb kGrassTip{170, 190, 96};

// One conifer tier: a cone whose rim is jagged (radius and height jittered per corner) with a
// middle ring bulging slightly, and a shallow darker underside so it reads from below too.
void jaggedCone(MeshBuilder& b, Vec3 centre, double height, double radius, int segments, Rgb colour,
                SeededRandom& random) {
    std::vector<Vec3> rim(static_cast<std::size_t>(segments));
    std::vector<Vec3> mid(static_cast<std::size_t>(segments));
    const double phase = random.uniform(0.0, 2.0 * kPi);
    for (int i = 0; i < segments; ++i) {
        const double a = phase + 2.0 * kPi * i / segments;
        const double r = radius * random.uniform(0.86, 1.12);
        const double droop = random.uniform(-0.18, 0.08) * height;
        rim[static_cast<std::size_t>(i)] = centre + Vec3{r * std::cos(a), droop, -r * std::sin(a)};
        const double am = a + kPi / segments;
        const double rm = radius * 0.5 * random.uniform(0.92, 1.1);
        mid[static_cast<std::size_t>(i)] = centre + Vec3{rm * std::cos(am), height * 0.5, -rm * std::sin(am)};
    }
    const Vec3 tip = centre + Vec3{random.uniform(-0.05, 0.05) * radius, height, random.uniform(-0.05, 0.05) * radius};
    const Rgb dark = mix(colour, Rgb{0, 0, 0}, 0.25);
    const Rgb light = mix(colour, Rgb{255, 255, 255}, 0.12);
    for (int i = 0; i < segments; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const auto j = static_cast<std::size_t>((i + 1) % segments);
        // Rim k, rim j and the mid corner between them, then the mid ring up to the tip.
        b.addTriangle(rim[k], rim[j], mid[k], dark, dark, colour);
        b.addTriangle(mid[k], rim[j], mid[j], colour, dark, colour);
        b.addTriangle(mid[k], mid[j], tip, colour, colour, light);
    }
    const Vec3 under = centre + Vec3{0, height * 0.18, 0};
    const Rgb shadow = mix(colour, Rgb{0, 0, 0}, 0.5);
    b.setColour(shadow);
    for (int i = 0; i < segments; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const auto j = static_cast<std::size_t>((i + 1) % segments);
        b.addTriangle(rim[j], rim[k], under);
    }
}

// A small octahedron (a flower, a fruit) of radius r.
void bead(MeshBuilder& b, Vec3 c, double r) {
    const Vec3 px = c + Vec3{r, 0, 0}, nx = c + Vec3{-r, 0, 0};
    const Vec3 py = c + Vec3{0, r, 0}, ny = c + Vec3{0, -r, 0};
    const Vec3 pz = c + Vec3{0, 0, r}, nz = c + Vec3{0, 0, -r};
    const std::array<std::array<Vec3, 3>, 8> faces{{{px, py, pz},
                                                    {pz, py, nx},
                                                    {nx, py, nz},
                                                    {nz, py, px},
                                                    {pz, ny, px},
                                                    {nx, ny, pz},
                                                    {nz, ny, nx},
                                                    {px, ny, nz}}};
    for (const auto& f : faces) b.addTriangle(f[0], f[1], f[2]);
}

void doubleSidedTriangle(MeshBuilder& b, Vec3 p, Vec3 q, Vec3 r, Rgb cp, Rgb cq, Rgb cr) {
    b.addTriangle(p, q, r, cp, cq, cr);
    b.addTriangle(r, q, p, cr, cq, cp);
}

// A curved grass blade from `base`, leaning along the unit horizontal `lean`.
void blade(MeshBuilder& b, Vec3 base, Vec3 lean, double height, double width) {
    const Vec3 side{-lean.z * width, 0, lean.x * width};
    const Vec3 mid = base + lean * (0.12 * height) + Vec3{0, 0.55 * height, 0};
    const Vec3 tip = base + lean * (0.38 * height) + Vec3{0, height, 0};
    const Vec3 midSide = side * 0.7;
    doubleSidedTriangle(b, base - side, base + side, mid + midSide, kGrassBase, kGrassBase, kGrassMid);
    doubleSidedTriangle(b, base - side, mid + midSide, mid - midSide, kGrassBase, kGrassMid, kGrassMid);
    doubleSidedTriangle(b, mid - midSide, mid + midSide, tip, kGrassMid, kGrassMid, kGrassTip);
}

ModelRecipe conifer(const char* id, std::uint64_t seed, int tiers, double trunkHeight, double tierStep,
                    double firstHeight, double firstRadius, Rgb colour, std::vector<std::string> tags, double weight) {
    MeshBuilder b;
    SeededRandom random(seed);
    b.setColour(kBark);
    b.addFrustum(0, 0, 0, trunkHeight + tierStep, firstRadius * 0.11, firstRadius * 0.07, 6, false, true);
    for (int t = 0; t < tiers; ++t) {
        const double y = trunkHeight + t * tierStep;
        const double height = firstHeight * (1.0 - 0.08 * t);
        const double radius = firstRadius * (1.0 - 0.8 * t / tiers);
        const Rgb c = mix(colour, Rgb{255, 255, 255}, 0.03 * t);
        jaggedCone(b, {0, y, 0}, height, radius, 11, c, random);
    }
    return {id, "tree", std::move(tags), weight, b.take()};
}

// A Mediterranean stone pine: a tall bare trunk leaning a little, forking into an umbrella of
// flat, dark needle masses.
ModelRecipe stonePine() {
    MeshBuilder b;
    SeededRandom random(0x5709);
    b.setColour(Rgb{120, 84, 60});
    const Vec3 fork{0.5, 5.6, 0.2};
    b.addFrustumBetween({0, 0, 0}, fork, 0.34, 0.22, 7, false);
    const std::array<Vec3, 3> limbs{Vec3{2.0, 7.0, 0.9}, Vec3{-1.4, 7.1, 0.6}, Vec3{0.6, 7.2, -1.7}};
    for (const Vec3& tip : limbs) b.addFrustumBetween(fork, tip, 0.18, 0.08, 5, false);
    b.setColour(Rgb{46, 88, 44});
    b.addBlob({0.4, 7.7, 0.0}, {3.4, 1.0, 3.2}, 1, 0.12, 0.14, random);
    b.addBlob({2.2, 7.3, 1.0}, {1.9, 0.8, 1.9}, 1, 0.14, 0.14, random);
    b.addBlob({-1.5, 7.4, -0.6}, {2.0, 0.8, 2.0}, 1, 0.14, 0.14, random);
    return {"pine_stone", "tree", {"conifer", "evergreen", "mediterranean", "park", "urban", "large"}, 0.7, b.take()};
}

// An Italian cypress: a dark, narrow column of jagged cones.
ModelRecipe cypress() {
    MeshBuilder b;
    SeededRandom random(0xC1A2);
    b.setColour(kBarkDark);
    b.addFrustum(0, 0, 0, 1.6, 0.2, 0.15, 6, false, true);
    const int tiers = 6;
    for (int t = 0; t < tiers; ++t) {
        // The lowest needles stop short of the ground so a little trunk shows.
        const double y = 0.9 + t * 1.45;
        const double bulge = std::sin(kPi * (t + 1.5) / (tiers + 1.0));
        jaggedCone(b, {0, y, 0}, 3.0, 0.55 + 0.5 * bulge, 9, mix(Rgb{34, 70, 40}, Rgb{255, 255, 255}, 0.02 * t),
                   random);
    }
    return {"cypress", "tree", {"conifer", "evergreen", "mediterranean", "park", "urban", "slender"}, 0.6, b.take()};
}

ModelRecipe oak() {
    MeshBuilder b;
    SeededRandom random(0x0A4B);
    b.setColour(kBark);
    b.addFrustumBetween({0, 0, 0}, {0.1, 4.4, 0.05}, 0.42, 0.26, 8, false);
    b.setColour(kBarkDark);
    const std::array<Vec3, 3> branchTips{Vec3{1.7, 6.0, 0.7}, Vec3{-1.5, 6.2, 0.9}, Vec3{0.2, 6.3, -1.7}};
    for (const Vec3& tip : branchTips) b.addFrustumBetween({0.05, 3.6, 0.02}, tip, 0.2, 0.08, 6, false);
    b.setColour(kOakLeaves);
    b.addBlob({0.1, 7.2, 0.0}, {2.7, 2.2, 2.7}, 1, 0.16, 0.16, random);
    b.addBlob({1.8, 6.3, 0.8}, {1.9, 1.6, 1.9}, 1, 0.18, 0.16, random);
    b.addBlob({-1.6, 6.5, 0.7}, {2.0, 1.7, 2.0}, 1, 0.18, 0.16, random);
    b.addBlob({0.2, 6.4, -1.8}, {2.0, 1.7, 2.0}, 1, 0.18, 0.16, random);
    return {"broadleaf_oak", "tree", {"broadleaf", "deciduous", "forest", "park", "large"}, 1.0, b.take()};
}

ModelRecipe birch() {
    MeshBuilder b;
    SeededRandom random(0xB1C4);
    // A white trunk ringed with dark marks, slightly leaning.
    const int pieces = 9;
    for (int i = 0; i < pieces; ++i) {
        const double y0 = 7.2 * i / pieces;
        const double y1 = 7.2 * (i + 1) / pieces;
        const double r0 = 0.22 - 0.12 * i / pieces;
        const double r1 = 0.22 - 0.12 * (i + 1) / pieces;
        b.setColour(i % 3 == 1 ? kBirchMark : kBirchBark);
        b.addFrustumBetween({0.02 * i, y0, 0}, {0.02 * (i + 1), y1, 0}, r0, r1, 6, i == pieces - 1);
    }
    b.setColour(kBirchLeaves);
    b.addBlob({0.1, 6.6, 0.0}, {1.9, 2.7, 1.9}, 1, 0.15, 0.18, random);
    b.addBlob({0.5, 8.6, 0.3}, {1.3, 1.7, 1.3}, 1, 0.16, 0.18, random);
    b.addBlob({-0.7, 5.4, -0.4}, {1.4, 1.3, 1.4}, 1, 0.16, 0.18, random);
    return {"broadleaf_birch", "tree", {"broadleaf", "deciduous", "forest", "park", "slender"}, 0.6, b.take()};
}

ModelRecipe palm() {
    MeshBuilder b;
    SeededRandom random(0x9A1A);
    // A trunk curving along a parabola, in rings of two barks.
    const int pieces = 8;
    std::array<Vec3, pieces + 1> spine;
    for (int k = 0; k <= pieces; ++k) {
        const double t = static_cast<double>(k) / pieces;
        spine[static_cast<std::size_t>(k)] = {1.4 * t * t, 8.0 * t, 0.3 * t * t};
    }
    for (int k = 0; k < pieces; ++k) {
        b.setColour(k % 2 == 0 ? kPalmBark : mix(kPalmBark, Rgb{0, 0, 0}, 0.2));
        const double r0 = 0.28 - 0.1 * k / pieces;
        const double r1 = 0.28 - 0.1 * (k + 1) / pieces;
        b.addFrustumBetween(spine[static_cast<std::size_t>(k)], spine[static_cast<std::size_t>(k + 1)], r0, r1, 6,
                            k == pieces - 1);
    }
    const Vec3 crown = spine[pieces] + Vec3{0, 0.15, 0};
    // Fronds: arched, drooping strips folded along the midrib, seen from above and below.
    const int fronds = 9;
    for (int f = 0; f < fronds; ++f) {
        const double yaw = 2.0 * kPi * f / fronds + random.uniform(-0.2, 0.2);
        const Vec3 dir{std::cos(yaw), 0, -std::sin(yaw)};
        const Vec3 side{-dir.z, 0, dir.x};
        const double length = random.uniform(3.2, 3.9);
        const double lift = random.uniform(0.9, 1.4);
        const int segs = 4;
        std::array<Vec3, segs + 1> rib;
        std::array<double, segs + 1> width;
        for (int j = 0; j <= segs; ++j) {
            const double t = static_cast<double>(j) / segs;
            rib[static_cast<std::size_t>(j)] = crown + dir * (length * t) + Vec3{0, lift * t - 2.6 * t * t, 0};
            width[static_cast<std::size_t>(j)] = j == segs ? 0.0 : 0.12 + 0.5 * std::sin(kPi * (t + 0.15) / 1.15);
        }
        const Rgb c = mix(kPalmLeaves, Rgb{255, 255, 255}, random.uniform(0.0, 0.12));
        b.setColour(c);
        for (int j = 0; j < segs; ++j) {
            const auto k = static_cast<std::size_t>(j);
            const Vec3 a = rib[k], n = rib[k + 1];
            const double wa = width[k], wn = width[k + 1];
            // The leaf halves fall away from the midrib: a V seen end-on.
            const Vec3 la = a + side * wa + Vec3{0, -0.3 * wa, 0}, ln = n + side * wn + Vec3{0, -0.3 * wn, 0};
            const Vec3 ra = a - side * wa + Vec3{0, -0.3 * wa, 0}, rn = n - side * wn + Vec3{0, -0.3 * wn, 0};
            b.addDoubleSidedQuad(a, n, ln, la);
            b.addDoubleSidedQuad(ra, rn, n, a);
        }
    }
    b.setColour(Rgb{110, 80, 40});
    for (int i = 0; i < 3; ++i) {
        const double a = 2.0 * kPi * i / 3 + 0.4;
        bead(b, crown + Vec3{0.32 * std::cos(a), -0.35, -0.32 * std::sin(a)}, 0.2);
    }
    return {"palm", "tree", {"palm", "mediterranean", "tropical", "park", "urban"}, 0.5, b.take()};
}

ModelRecipe bushRound() {
    MeshBuilder b;
    SeededRandom random(0xB05E);
    b.setColour(kBush);
    b.addBlob({0.0, 0.78, 0.0}, {1.0, 0.72, 1.0}, 1, 0.12, 0.18, random);
    b.addBlob({0.65, 0.6, 0.35}, {0.7, 0.55, 0.7}, 1, 0.12, 0.18, random);
    b.addBlob({-0.55, 0.62, -0.35}, {0.75, 0.58, 0.75}, 1, 0.12, 0.18, random);
    return {"bush_round", "bush", {"bush", "park", "garden", "forest"}, 1.0, b.take()};
}

ModelRecipe shrubFlowering() {
    MeshBuilder b;
    SeededRandom random(0xF10E);
    const Vec3 centre{0.0, 0.72, 0.0};
    const Vec3 radii{0.95, 0.7, 0.95};
    b.setColour(Rgb{52, 104, 50});
    b.addBlob(centre, radii, 1, 0.1, 0.15, random);
    b.addBlob({0.5, 0.55, -0.4}, {0.6, 0.5, 0.6}, 1, 0.1, 0.15, random);
    // Blossoms scattered over the upper part of the crown.
    for (int i = 0; i < 28; ++i) {
        const double yaw = random.uniform(0.0, 2.0 * kPi);
        const double up = random.uniform(-0.15, 0.95);
        const double ring = std::sqrt(std::max(0.0, 1.0 - up * up));
        const Vec3 d{ring * std::cos(yaw), up, -ring * std::sin(yaw)};
        const Vec3 p = centre + Vec3{d.x * radii.x * 1.06, d.y * radii.y * 1.06, d.z * radii.z * 1.06};
        b.setColour(i % 3 == 0 ? Rgb{248, 244, 236} : Rgb{236, 112, 166});
        bead(b, p, 0.1);
    }
    return {"shrub_flowering", "bush", {"bush", "flowering", "garden", "park"}, 0.7, b.take()};
}

ModelRecipe grassClump() {
    MeshBuilder b;
    SeededRandom random(0x6A55);
    for (int i = 0; i < 30; ++i) {
        const double a = random.uniform(0.0, 2.0 * kPi);
        const double rho = 0.28 * std::sqrt(random.uniform());
        const Vec3 base{rho * std::cos(a), 0, -rho * std::sin(a)};
        const double leanAngle = a + random.uniform(-0.6, 0.6);
        const Vec3 lean{std::cos(leanAngle), 0, -std::sin(leanAngle)};
        blade(b, base, lean, random.uniform(0.45, 0.85), random.uniform(0.03, 0.05));
    }
    return {"grass_clump", "grass", {"grass", "meadow", "park", "wild"}, 1.0, b.take()};
}

ModelRecipe flowers() {
    MeshBuilder b;
    SeededRandom random(0xF70E);
    for (int i = 0; i < 10; ++i) {
        const double a = random.uniform(0.0, 2.0 * kPi);
        const double rho = 0.25 * std::sqrt(random.uniform());
        const Vec3 lean{std::cos(a), 0, -std::sin(a)};
        blade(b, {rho * std::cos(a), 0, -rho * std::sin(a)}, lean, random.uniform(0.25, 0.4), 0.035);
    }
    const std::array<Rgb, 4> petals{Rgb{242, 204, 44}, Rgb{212, 44, 52}, Rgb{146, 84, 196}, Rgb{246, 244, 238}};
    for (int i = 0; i < 9; ++i) {
        const double a = 2.0 * kPi * i / 9 + random.uniform(-0.3, 0.3);
        const double rho = 0.1 + 0.28 * random.uniform();
        const Vec3 root{rho * std::cos(a), 0, -rho * std::sin(a)};
        const double h = random.uniform(0.4, 0.7);
        const Vec3 head = root + Vec3{0.05 * std::cos(a), h, -0.05 * std::sin(a)};
        b.setColour(kGrassMid);
        const Vec3 stemSide{0.012, 0, 0.012};
        b.addDoubleSidedQuad(root - stemSide, root + stemSide, head + stemSide, head - stemSide);
        // A six-petal disc tilted towards the sky, and a raised centre.
        const Rgb petal = petals[static_cast<std::size_t>(i) % petals.size()];
        const double r = random.uniform(0.07, 0.1);
        const double tilt = 0.25;
        std::array<Vec3, 6> rim;
        for (int k = 0; k < 6; ++k) {
            const double pa = 2.0 * kPi * k / 6;
            const double x = r * std::cos(pa), z = -r * std::sin(pa);
            rim[static_cast<std::size_t>(k)] = head + Vec3{x, tilt * x * std::cos(a) - tilt * z * std::sin(a), z};
        }
        b.setColour(petal);
        for (int k = 0; k < 6; ++k) {
            b.addDoubleSidedTriangle(head, rim[static_cast<std::size_t>(k)],
                                     rim[static_cast<std::size_t>((k + 1) % 6)]);
        }
        b.setColour(Rgb{200, 140, 30});
        b.addFrustum(head.x, head.z, head.y, head.y + 0.03, r * 0.35, r * 0.2, 5, false, true);
    }
    return {"flowers_meadow", "flower", {"flower", "meadow", "garden", "park"}, 0.8, b.take()};
}

}  // namespace

std::vector<ModelRecipe> buildDefaultVegetation() {
    std::vector<ModelRecipe> out;
    out.push_back(conifer("conifer_spruce", 0x5B2C, 5, 1.6, 1.85, 3.4, 2.5, kSpruce,
                          {"conifer", "evergreen", "forest", "large"}, 1.0));
    out.push_back(conifer("conifer_fir", 0xF122, 4, 0.8, 1.3, 2.4, 1.6, kFir,
                          {"conifer", "evergreen", "forest", "park", "small"}, 0.8));
    out.push_back(stonePine());
    out.push_back(cypress());
    out.push_back(oak());
    out.push_back(birch());
    out.push_back(palm());
    out.push_back(bushRound());
    out.push_back(shrubFlowering());
    out.push_back(grassClump());
    out.push_back(flowers());
    return out;
}

}  // namespace terrabit::core::detail
