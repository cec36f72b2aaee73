#pragma once
/// MeshBuilder: low-poly modelling by parts (boxes, prisms, roofs, cones, lumpy spheres, façade
/// panels) into an AssetMesh with flat-shaded faces and per-vertex colours. The default model
/// library is written with it; anyone generating models procedurally can reuse it.
///
/// Space: metres, Y up, the model conventions of asset_info.h. A polygon "seen from above" is
/// listed counter-clockwise when viewed from +Y with -Z pointing up the screen (north), which
/// is a negative shoelace area in (x, z). Every emitted position goes through the current
/// transform and is then rounded to 1/4096 m, so output does not depend on the last bit of
/// sin/cos and the generated files are byte-identical across runs and machines.

#include <cstdint>
#include <span>
#include <vector>

#include "terrabit/core/assets/asset_mesh.h"
#include "terrabit/core/colour.h"

namespace terrabit::core {

/// A 3-D point or vector, metres unless stated.
struct Vec3 {
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;

    /// Component-wise sum, difference, scaling and equality.
    friend constexpr Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
    friend constexpr Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
    friend constexpr Vec3 operator*(Vec3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }
    friend constexpr bool operator==(Vec3 a, Vec3 b) = default;
};
/// Dot product.
constexpr double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
/// Cross product (right-handed: cross(x, y) = z).
constexpr Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
/// The unit vector along v; v itself when its length is zero.
Vec3 normalized(Vec3 v);

/// `metres` on the grid MeshBuilder snaps every position to (1/4096 m, exact in float, far below
/// anything visible), so that generated files do not depend on the last bit of libm's sin/cos.
/// Moving a mesh by a multiple of it keeps its coordinates on the grid.
double snapToMeshGrid(double metres);

/// Mixes two colours, t = 0 gives a, t = 1 gives b (in sRGB space, which is what a designer
/// means by "halfway").
Rgb mix(Rgb a, Rgb b, double t);

/// A 3×4 affine transform (rotation/scale part in m[0..2][0..2], translation in m[i][3]).
struct Affine {
    double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};

    /// The transformed point.
    Vec3 apply(Vec3 p) const {
        return {m[0][0] * p.x + m[0][1] * p.y + m[0][2] * p.z + m[0][3],
                m[1][0] * p.x + m[1][1] * p.y + m[1][2] * p.z + m[1][3],
                m[2][0] * p.x + m[2][1] * p.y + m[2][2] * p.z + m[2][3]};
    }
    /// this ∘ other: applies `other` first.
    Affine operator*(const Affine& other) const;
    /// A move by t metres.
    static Affine translation(Vec3 t);
    /// Rotation about +Y by `radians` (counter-clockwise seen from above: +X turns towards -Z).
    static Affine rotationY(double radians);
    /// Rotation about +X by `radians` (+Y turns towards +Z).
    static Affine rotationX(double radians);
    /// Rotation about +Z by `radians` (+X turns towards +Y).
    static Affine rotationZ(double radians);
    /// Scaling by s along each axis.
    static Affine scale(Vec3 s);
};

/// A small counter-based random source (SplitMix64): the same seed gives the same numbers on
/// every machine. Not for cryptography.
class SeededRandom {
public:
    explicit SeededRandom(std::uint64_t seed) : mState(seed) {}
    /// The next 64 random bits.
    std::uint64_t next();
    /// A uniform value in [0, 1).
    double uniform();
    /// A uniform value in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

private:
    std::uint64_t mState;
};

/// A wall seen from outside: `origin` is its bottom-left corner, `right` the unit direction
/// along it (to the right for a viewer facing the wall), `out` its unit outward normal. Up is +Y.
struct Facade {
    Vec3 origin;
    Vec3 right{1, 0, 0};
    Vec3 out{0, 0, 1};
    double width = 0.0;   ///< metres along `right`
    double height = 0.0;  ///< metres up

    /// The point `u` metres along the wall, `v` metres up and `w` metres out of it.
    Vec3 at(double u, double v, double w = 0.0) const { return origin + right * u + Vec3{0, v, 0} + out * w; }
};

class MeshBuilder {
public:
    /// Offset of façade panels (windows, doors) in front of their wall, metres: enough to never
    /// z-fight at viewing distance, small enough not to change the footprint measurably.
    static constexpr double kPanelOffset = 0.03;

    /// An empty builder: white, identity transform.
    MeshBuilder() = default;

    /// The colour of faces added from now on.
    void setColour(Rgb colour) { mColour = colour; }
    /// The colour faces get now.
    Rgb colour() const { return mColour; }
    /// The transform applied to every position added from now on (identity by default).
    void setTransform(const Affine& transform) { mTransform = transform; }
    /// The current transform.
    const Affine& transform() const { return mTransform; }

    /// A triangle, counter-clockwise seen from its front; zero-area triangles (after rounding)
    /// are dropped. The optional colours are per corner.
    void addTriangle(Vec3 a, Vec3 b, Vec3 c);
    /// A triangle with a colour per corner (a gradient across it).
    void addTriangle(Vec3 a, Vec3 b, Vec3 c, Rgb ca, Rgb cb, Rgb cc);
    /// A planar quad a b c d, counter-clockwise seen from its front.
    void addQuad(Vec3 a, Vec3 b, Vec3 c, Vec3 d);
    /// A planar convex polygon, counter-clockwise seen from its front (fan-triangulated).
    void addConvexPolygon(std::span<const Vec3> points);
    /// The quad plus its reverse: a sheet visible from both sides (leaves, blades, awnings).
    void addDoubleSidedQuad(Vec3 a, Vec3 b, Vec3 c, Vec3 d);
    /// The triangle plus its reverse.
    void addDoubleSidedTriangle(Vec3 a, Vec3 b, Vec3 c);

    /// An axis-aligned box between two corners; the bottom face only when asked (things that
    /// stand on the ground or on another part do not need it).
    void addBox(Vec3 min, Vec3 max, bool bottom = false);
    /// Vertical walls along a closed polygon (x, z pairs seen from above) between heights y0 and
    /// y1 (metres). Counter-clockwise polygons get outward walls, clockwise ones inward walls
    /// (a courtyard).
    void addWalls(std::span<const Vec3> polygon, double y0, double y1);
    /// A horizontal face at height y over a simple polygon (x, z; concave allowed, no holes),
    /// facing up or, with `down`, facing down. Ear-clipped.
    void addFlatCap(std::span<const Vec3> polygon, double y, bool down = false);
    /// Walls plus an upward cap: a solid extruded from a simple polygon.
    void addPrism(std::span<const Vec3> polygon, double y0, double y1);
    /// A gabled roof over the rectangle [x0, x1] × [z0, z1] whose eaves are at y = base and
    /// ridge at y = base + rise. The ridge runs along X when `ridgeAlongX`. `overhang` metres
    /// of eave beyond the walls on every side. Gable ends get `gableColour`; the slopes and the
    /// eaves' undersides get the current colour.
    void addGableRoof(double x0, double x1, double z0, double z1, double base, double rise, bool ridgeAlongX,
                      double overhang, Rgb gableColour);
    /// A hipped roof over the rectangle: four slopes meeting at a ridge of length
    /// max(0, longSide - shortSide) along the long side (a pyramid for a square), with overhang
    /// and eave undersides.
    void addHipRoof(double x0, double x1, double z0, double z1, double base, double rise, double overhang);
    /// A solid of revolution about the vertical line through (cx, cz): a frustum between radius
    /// r0 at y0 and r1 at y1 (r1 = 0 gives a cone), `segments` sides, flat caps as asked.
    void addFrustum(double cx, double cz, double y0, double y1, double r0, double r1, int segments, bool capBottom,
                    bool capTop, double phase = 0.0);
    /// A frustum along any axis from `base` to `tip` (branches, a leaning palm trunk).
    void addFrustumBetween(Vec3 base, Vec3 tip, double r0, double r1, int segments, bool capTop);
    /// A lumpy closed blob: an icosphere subdivided `subdivisions` times (0: 20 faces, 1: 80,
    /// 2: 320), scaled by `radii`, each vertex pushed in or out by up to `jitter` (a fraction of
    /// its radius) from `random`; each face gets the current colour varied by up to `colourJitter`
    /// (0–1) towards black or white, so a crown looks leafy.
    void addBlob(Vec3 centre, Vec3 radii, int subdivisions, double jitter, double colourJitter, SeededRandom& random);
    /// A rectangle on a façade from (u0, v0) to (u1, v1) metres, kPanelOffset in front of the
    /// wall (a window, a door, a sign).
    void addPanel(const Facade& facade, double u0, double v0, double u1, double v1);
    /// A row of `count` windows of `w` × `h` metres, evenly spaced along the façade between
    /// margins, sills at v.
    void addWindowRow(const Facade& facade, double v, double w, double h, int count, double margin);

    /// The mesh built so far.
    const AssetMesh& mesh() const { return mMesh; }
    /// Takes the mesh out, leaving the builder empty.
    AssetMesh take();

private:
    std::uint32_t addVertex(Vec3 p, Vec3 normal, Rgb colour);
    Vec3 place(Vec3 p) const;

    AssetMesh mMesh;
    Rgb mColour{255, 255, 255};  // white until a colour is set
    Affine mTransform;
};

}  // namespace terrabit::core
