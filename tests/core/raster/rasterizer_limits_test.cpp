// The rasterizer's limits: every finite and non-finite input either gives an error (nothing
// drawn) or a defined result whose spans lie in the grid. The first three tests pin the
// coverage-guided fuzzing findings of issue #21; the randomized one feeds extreme doubles to
// every shape and checks each call's spans and bits against the grid and slow references.

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reference_raster.h"
#include "terrabit/core/raster/bit_grid.h"
#include "terrabit/core/raster/rasterizer.h"

using namespace terrabit::core;
using terrabit::test::kInf;
using terrabit::test::kNaN;
using terrabit::test::mismatches;
using terrabit::test::referenceCentre;
using terrabit::test::referenceConservative;
using terrabit::test::Shape;

namespace {

constexpr double kMax = std::numeric_limits<double>::max();
constexpr double kDenormal = std::numeric_limits<double>::denorm_min();

constexpr std::array<RasterOptions, 4> kAllOptions{
    RasterOptions{FillRule::EvenOdd, Coverage::CellCentre}, RasterOptions{FillRule::EvenOdd, Coverage::Conservative},
    RasterOptions{FillRule::NonZero, Coverage::CellCentre}, RasterOptions{FillRule::NonZero, Coverage::Conservative}};

/// A width x height grid with a guard row of words before and after it, so that a write outside
/// the grid's rows shows (and AddressSanitizer sees one beyond the guards).
struct GuardedGrid {
    int wordsPerRow, height;
    std::vector<std::uint64_t> words;

    GuardedGrid(int width, int h)
        : wordsPerRow(width / 64), height(h), words(static_cast<std::size_t>(wordsPerRow) * (h + 2), 0) {}
    BitGridView view() { return {words.data() + wordsPerRow, wordsPerRow, height}; }
    bool guardsClear() const {
        for (int w = 0; w < wordsPerRow; ++w) {
            if (words[static_cast<std::size_t>(w)] != 0) return false;
            if (words[static_cast<std::size_t>(wordsPerRow) * (height + 1) + w] != 0) return false;
        }
        return true;
    }
    bool test(int x, int y) const {
        return (words[static_cast<std::size_t>(y + 1) * wordsPerRow + (x >> 6)] >> (x & 63)) & 1u;
    }
    bool none() const {
        for (std::uint64_t w : words)
            if (w != 0) return false;
        return true;
    }
};

/// A sink that records spans, noting any outside a width x height grid.
struct SpanRecorder {
    int width, height;
    std::vector<std::array<int, 3>> spans;
    int outside = 0;
    std::string firstOutside;

    void operator()(int y, int x0, int x1) {
        spans.push_back({y, x0, x1});
        if (y < 0 || y >= height || x0 < 0 || x0 >= x1 || x1 > width) {
            if (outside++ == 0) {
                firstOutside = "y=" + std::to_string(y) + " x0=" + std::to_string(x0) + " x1=" + std::to_string(x1);
            }
        }
    }
};

}  // namespace

// --- the fuzzing findings of issue #21 ---------------------------------------------------------

// One finite but huge coordinate overflowed the conservative edge walk's division formula to
// -inf, which became x0 = INT_MIN in a span handed to the sink and a write far outside the grid.
TEST(RasterizerLimits, HugeCoordinateInConservativePolygonStaysInGrid) {
    const Shape huge({{164.64, -6.4e307}, {16.06, 0.03125}, {452, 0}, {10, 100}, {0, 0}});
    // Inside the grid the far edge runs within 1e-300 cells of x = 16.06 and the closing edge
    // lies north of row 0, so the same ring with the far vertex at (16.06, -1e6) covers the same
    // cells, and the reference can decide those exactly.
    const Shape near({{16.06, -1e6}, {16.06, 0.03125}, {452, 0}, {10, 100}, {0, 0}});
    Rasterizer r;
    for (const RasterOptions o : kAllOptions) {
        SpanRecorder sink{256, 256, {}, 0, {}};
        ASSERT_TRUE(r.polygonSpans(huge.view(), o, 256, 256, sink).ok());
        EXPECT_EQ(sink.outside, 0) << sink.firstOutside;
        EXPECT_FALSE(sink.spans.empty());

        BitTile t;
        ASSERT_TRUE(r.polygon(huge.view(), o, t).ok());
        const auto ref = o.coverage == Coverage::CellCentre ? referenceCentre(near.view(), o.fillRule)
                                                            : referenceConservative(near.view(), o.fillRule);
        EXPECT_EQ(mismatches(t, ref), 0) << int(o.fillRule) << " " << int(o.coverage);
        EXPECT_TRUE(t.test(16, 0));  // the centre (16.5, 0.5) is inside; the far edge passes west of it
    }
}

// A NaN offset turned every moved point into NaN, which the point check never saw: NaN row
// numbers, INT_MIN - 1, and a write outside the grid (std::length_error in a release build).
TEST(RasterizerLimits, NonFiniteOffsetIsRejected) {
    const Shape s({{200, 10}, {250, 10}, {250, 60}, {200, 60}});
    Rasterizer r;
    BitTile pattern;
    for (int y = 0; y < 256; y += 5) pattern.fillSpan(y, y / 3, y / 3 + 20);
    for (const Vec2 offset : {Vec2{195.6875, kNaN}, Vec2{kNaN, 0}, Vec2{kInf, 0}, Vec2{0, -kInf}}) {
        const PolygonView view{s.points, s.ringEnds, offset};
        for (const RasterOptions o : kAllOptions) {
            BitTile t = pattern;
            const Status st = r.polygon(view, o, t);
            ASSERT_FALSE(st.ok());
            EXPECT_NE(st.message().find("offset"), std::string::npos) << st.message();
            EXPECT_NE(st.message().find("NaN or infinite"), std::string::npos) << st.message();
            EXPECT_TRUE(t == pattern);
            int spans = 0;
            EXPECT_FALSE(r.polygonSpans(view, o, 256, 256, [&](int, int, int) { ++spans; }).ok());
            EXPECT_EQ(spans, 0);
        }
    }
    // Finite points and a finite offset whose difference overflows a double.
    const Shape far({{10, 10}, {1.5e308, 10}, {1.5e308, 60}});
    const PolygonView view{far.points, far.ringEnds, Vec2{-1e308, 0}};
    BitTile t;
    const Status st = r.polygon(view, kAllOptions[0], t);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("point 1 minus the offset overflows"), std::string::npos) << st.message();
    EXPECT_TRUE(t.none());
}

// r * r - d * d was inf - inf = NaN for a centre and radius of 1e300, and the NaN became a
// column number. A radius that large is rejected; a huge centre with a sane radius is far away
// and draws nothing; the largest radius allowed still draws the exact disk.
TEST(RasterizerLimits, DiskWithHugeCentreAndRadiusIsDefined) {
    Rasterizer r;
    for (const Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
        BitTile t;
        const Status d = r.disk({100.0, 1e300}, 1e300, cov, t);
        ASSERT_FALSE(d.ok());
        EXPECT_NE(d.message().find("disk radius"), std::string::npos) << d.message();
        const Status p = r.point({100.0, 1e300}, 1e300, cov, t);
        ASSERT_FALSE(p.ok());
        EXPECT_NE(p.message().find("point radius"), std::string::npos) << p.message();
        const std::vector<Vec2> line{{100.0, 1e300}, {120.0, 1e300}};
        const Status l = r.polyline(line, 2e300, cov, t);
        ASSERT_FALSE(l.ok());
        EXPECT_NE(l.message().find("polyline width"), std::string::npos) << l.message();
        EXPECT_TRUE(t.none());

        // Far centres with radii the rasterizer draws.
        for (const Vec2 c : {Vec2{100.0, 1e300}, Vec2{-1e300, 5.0}, Vec2{kMax, -kMax}, Vec2{100.0, 3e7}}) {
            ASSERT_TRUE(r.disk(c, Rasterizer::kMaxRadiusCells, cov, t).ok());
            ASSERT_TRUE(r.point(c, 1e6, cov, t).ok());
        }
        EXPECT_TRUE(t.none());

        // The largest radius: a disk around the grid covers it; one whose rim crosses row 100
        // covers exactly the rows south of it (the rim bends by (128 cells)^2 / 2r = 1e-3 cells).
        BitTile full;
        ASSERT_TRUE(r.disk({128.0, 128.0}, Rasterizer::kMaxRadiusCells, cov, full).ok());
        EXPECT_TRUE(full == BitTile::full());
        BitTile south;
        ASSERT_TRUE(
            r.disk({128.0, 100.25 + Rasterizer::kMaxRadiusCells}, Rasterizer::kMaxRadiusCells, cov, south).ok());
        BitTile want;
        for (int y = 100; y < 256; ++y) want.fillSpan(y, 0, 256);
        EXPECT_TRUE(south == want);
    }
}

// --- far shapes are clipped without changing the grid's cells ---------------------------------

TEST(RasterizerLimits, PolygonsReachingBeyondTheReachAreClippedToTheSameCells) {
    Rasterizer r;
    // Axis-aligned edges reaching far out cover the same cells as when they end a million cells
    // away (within the reach, drawn as they are).
    for (const double far : {1e7, 1e12, 1e200, kMax}) {
        const std::vector<std::pair<Shape, Shape>> pairs = {
            {Shape({{-far, 10.5}, {far, 10.5}, {far, 20.25}, {-far, 20.25}}),
             Shape({{-1e6, 10.5}, {1e6, 10.5}, {1e6, 20.25}, {-1e6, 20.25}})},
            {Shape({{100.25, -far}, {130.75, -far}, {130.75, far}, {100.25, far}}),
             Shape({{100.25, -1e6}, {130.75, -1e6}, {130.75, 1e6}, {100.25, 1e6}})},
            // A square around the grid with a hole in it.
            {Shape({{-far, -far}, {far, -far}, {far, far}, {-far, far}})
                 .addRing({{50, 50}, {50, 90}, {90, 90}, {90, 50}}),
             Shape({{-1e6, -1e6}, {1e6, -1e6}, {1e6, 1e6}, {-1e6, 1e6}})
                 .addRing({{50, 50}, {50, 90}, {90, 90}, {90, 50}})},
            // A zero-area ring across the grid: touches the cells it passes through.
            {Shape({{-far, 77.5}, {far, 77.5}}), Shape({{-1e6, 77.5}, {1e6, 77.5}})},
            // A spike from a normal polygon out to a far vertex and back along the same line.
            {Shape({{10, 10}, {60, 10}, {60, 30.5}, {far, 30.5}, {60, 30.5}, {60, 60}, {10, 60}}),
             Shape({{10, 10}, {60, 10}, {60, 30.5}, {1e6, 30.5}, {60, 30.5}, {60, 60}, {10, 60}})},
        };
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            for (const RasterOptions o : kAllOptions) {
                BitTile got, want;
                ASSERT_TRUE(r.polygon(pairs[i].first.view(), o, got).ok());
                ASSERT_TRUE(r.polygon(pairs[i].second.view(), o, want).ok());
                EXPECT_TRUE(got == want) << far << " shape " << i << " options " << int(o.fillRule) << int(o.coverage);
                SpanRecorder sink{200, 100, {}, 0, {}};
                ASSERT_TRUE(r.polygonSpans(pairs[i].first.view(), o, 200, 100, sink).ok());
                EXPECT_EQ(sink.outside, 0) << sink.firstOutside;
            }
        }
    }
    // Shapes wholly beyond the reach draw nothing.
    for (const RasterOptions o : kAllOptions) {
        BitTile t;
        ASSERT_TRUE(r.polygon(Shape({{1e300, 0}, {2e300, 0}, {1e300, 1e300}}).view(), o, t).ok());
        ASSERT_TRUE(r.polygon(Shape({{-kMax, -kMax}, {-kMax, 1}, {-1e30, 100}}).view(), o, t).ok());
        EXPECT_TRUE(t.none());
    }
}

TEST(RasterizerLimits, PolylinesReachingBeyondTheReachAreClippedToTheSameCells) {
    Rasterizer r;
    for (const double far : {1e8, 0x1p40, 1e150, kMax}) {
        for (const Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
            for (const double width : {0.0, 3.0, 40.0}) {
                // A horizontal road across the grid with a bend inside it, and a vertical one.
                const std::vector<Vec2> farLine{{-far, 100.5}, {120.25, 100.5}, {140.5, 130.75}, {140.5, far}};
                const std::vector<Vec2> nearLine{{-1e6, 100.5}, {120.25, 100.5}, {140.5, 130.75}, {140.5, 1e6}};
                BitTile got, want;
                ASSERT_TRUE(r.polyline(farLine, width, cov, got).ok());
                ASSERT_TRUE(r.polyline(nearLine, width, cov, want).ok());
                EXPECT_TRUE(got == want) << far << " " << width << " " << int(cov);
                EXPECT_EQ(got.any(), width > 0.0 || cov == Coverage::Conservative);
                // A diagonal run from far away (exactly along (1, 1), so that the near line is
                // the same line): the quad of its clipped end reaches beyond the reach, so it is
                // clipped as a polygon while the run is drawn.
                if (far <= 0x1p40) {
                    const std::vector<Vec2> farDiagonal{{100.25 - far, 50.5 - far}, {100.25, 50.5}, {300.0, 50.5}};
                    const std::vector<Vec2> nearDiagonal{{100.25 - 1e6, 50.5 - 1e6}, {100.25, 50.5}, {300.0, 50.5}};
                    BitTile gotDiagonal, wantDiagonal;
                    ASSERT_TRUE(r.polyline(farDiagonal, width, cov, gotDiagonal).ok());
                    ASSERT_TRUE(r.polyline(nearDiagonal, width, cov, wantDiagonal).ok());
                    EXPECT_TRUE(gotDiagonal == wantDiagonal) << far << " " << width << " " << int(cov);
                }
                // Wholly beyond the reach: nothing, and no error.
                BitTile none;
                const std::vector<Vec2> away{{far, far}, {-far, far}};
                ASSERT_TRUE(r.polyline(away, width, cov, none).ok());
                EXPECT_TRUE(none.none());
            }
        }
    }
}

TEST(RasterizerLimits, OrientedRectangleWhoseCornersOverflowIsRejected) {
    Rasterizer r;
    BitTile t;
    const Status s = r.orientedRectangle({1e308, 0}, {1e308, 1e308}, 0.0, Coverage::CellCentre, t);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("overflows"), std::string::npos) << s.message();
    EXPECT_TRUE(t.none());
    // Huge but finite corners are clipped: the rectangle covers the grid.
    ASSERT_TRUE(r.orientedRectangle({128, 128}, {1e300, 1e300}, 0.3, Coverage::CellCentre, t).ok());
    EXPECT_TRUE(t == BitTile::full());
}

// --- extreme doubles into every shape ----------------------------------------------------------

namespace {

/// A double from the values that break arithmetic, or an ordinary coordinate near the grid.
class ExtremeDoubles {
public:
    explicit ExtremeDoubles(unsigned seed) : mRng(seed) {}

    double next() {
        // clang-format off
        static constexpr double kExtremes[] = {
            kNaN, kInf, -kInf,                                             // non-finite
            kMax, -kMax, 1e308, -1e308, 6.4e307, -6.4e307, 1e300, -1e300,  // overflow when added or squared
            1e154, -1e154, 1e30, -1e30, 1e12, -1e12, 3e9, -3e9,            // overflow an int or a square
            2147483647.0, -2147483648.0, 2147483648.0, 4294967296.0,       // int limits
            0x1p24, -0x1p24, 0x1p24 + 256.0, 0x1p23, 1e6, -1e6,            // around the reach
            kDenormal, -kDenormal, 1e-310, -1e-310, 1e-300, 0.0, -0.0,     // underflow
            0.5, 1.0, 255.5, 256.0, 255.99999999999997, 64.0,              // cell and word borders
        };
        // clang-format on
        std::uniform_int_distribution<int> pick(0, 2);
        if (pick(mRng) == 0) {
            std::uniform_int_distribution<std::size_t> which(0, std::size(kExtremes) - 1);
            return kExtremes[which(mRng)];
        }
        // An ordinary coordinate on a 1/64 grid (so the references are exact).
        std::uniform_int_distribution<int> cell(-40 * 64, 300 * 64);
        return cell(mRng) / 64.0;
    }
    Vec2 point() { return {next(), next()}; }
    int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(mRng); }

private:
    std::mt19937 mRng;
};

/// A coordinate the references decide exactly: on the 1/64 grid and below 2^16, so that their
/// products of differences hold at most 48 bits. (A denormal one would put edges 1e-325 cells
/// from a cell border, where the references and the rasterizer both round.)
bool ordinary(double v) { return std::abs(v) <= 65536.0 && v * 64.0 == std::floor(v * 64.0); }
bool ordinary(Vec2 p) { return ordinary(p.x) && ordinary(p.y); }

/// Distance from p to the closed segment a-b (ordinary coordinates only).
double distanceToSegment(Vec2 p, Vec2 a, Vec2 b) {
    const Vec2 d = b - a;
    const double len2 = dot(d, d);
    const double t = len2 == 0.0 ? 0.0 : std::clamp(dot(p - a, d) / len2, 0.0, 1.0);
    return length(p - (a + d * t));
}

/// A shape's rings, offset and options, exactly, for a failure message.
std::string describe(const PolygonView& shape, RasterOptions o) {
    std::string out = "rule " + std::to_string(int(o.fillRule)) + " coverage " + std::to_string(int(o.coverage));
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, " offset (%a, %a) rings", shape.offset.x, shape.offset.y);
    out += buffer;
    std::uint32_t begin = 0;
    for (const std::uint32_t end : shape.ringEnds) {
        out += " [";
        for (std::uint32_t i = begin; i < end; ++i) {
            std::snprintf(buffer, sizeof buffer, " (%a, %a)", shape.points[i].x, shape.points[i].y);
            out += buffer;
        }
        out += " ]";
        begin = end;
    }
    return out;
}

}  // namespace

TEST(RasterizerLimits, ExtremeDoublesIntoEveryShapeGiveAnErrorOrSpansInTheGridAndSaneBits) {
    constexpr int kWidth = 128, kHeight = 48;  // not a tile: rows and columns both clip
    ExtremeDoubles gen(2112);
    Rasterizer r;
    int drawn = 0, errors = 0;
    for (int round = 0; round < 3000; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        // Polygons: one or two rings of up to five points, an offset, every rule and coverage.
        {
            Shape s;
            const int rings = 1 + gen.below(2);
            for (int k = 0; k < rings; ++k) {
                std::vector<Vec2> ring;
                const int n = 1 + gen.below(5);
                for (int i = 0; i < n; ++i) ring.push_back(gen.point());
                s.addRing(ring);
            }
            const Vec2 offset = gen.below(3) == 0 ? gen.point() : Vec2{};
            const PolygonView view{s.points, s.ringEnds, offset};
            bool allOrdinary = ordinary(offset) && offset == Vec2{};
            for (Vec2 p : s.points) allOrdinary = allOrdinary && ordinary(p);
            for (const RasterOptions o : kAllOptions) {
                SpanRecorder sink{kWidth, kHeight, {}, 0, {}};
                const Status spans = r.polygonSpans(view, o, kWidth, kHeight, sink);
                ASSERT_EQ(sink.outside, 0) << sink.firstOutside << " " << describe(view, o);
                GuardedGrid grid(kWidth, kHeight);
                const Status st = r.polygon(view, o, grid.view());
                ASSERT_EQ(st.ok(), spans.ok()) << st.message() << " / " << spans.message();
                ASSERT_TRUE(grid.guardsClear());
                if (!st.ok()) {
                    ++errors;
                    EXPECT_TRUE(grid.none());
                    EXPECT_TRUE(sink.spans.empty());
                    continue;
                }
                ++drawn;
                // The grid from the spans: the even-odd fill into a grid (parity) and the span
                // walk are separate code, and must agree.
                GuardedGrid fromSpans(kWidth, kHeight);
                for (const auto& sp : sink.spans) fromSpans.view().fillSpan(sp[0], sp[1], sp[2]);
                ASSERT_TRUE(grid.words == fromSpans.words) << describe(view, o);
                if (allOrdinary) {
                    const auto ref = o.coverage == Coverage::CellCentre
                                         ? referenceCentre(view, o.fillRule, kWidth, kHeight)
                                         : referenceConservative(view, o.fillRule, kWidth, kHeight);
                    ASSERT_EQ(mismatches(grid.view(), ref), 0) << describe(view, o);
                }
            }
        }
        // Disks and points.
        for (const Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
            const Vec2 c = gen.point();
            const double radius = gen.below(2) == 0 ? gen.next() : gen.below(40) / 4.0;
            for (const bool isPoint : {false, true}) {
                GuardedGrid grid(kWidth, kHeight);
                const Status st = isPoint ? r.point(c, radius, cov, grid.view()) : r.disk(c, radius, cov, grid.view());
                ASSERT_TRUE(grid.guardsClear());
                const bool bad = !isFinite(c) || !std::isfinite(radius) || radius > Rasterizer::kMaxRadiusCells;
                ASSERT_EQ(st.ok(), !bad) << st.message();
                if (!st.ok()) {
                    EXPECT_TRUE(grid.none());
                    continue;
                }
                // Against the distances, away from ties (the rasterizer rounds differently).
                const double r2 = radius > 0.0 ? radius * radius : -1.0;
                for (int y = 0; y < kHeight; ++y) {
                    for (int x = 0; x < kWidth; ++x) {
                        const bool own = isPoint && std::floor(c.x) == x && std::floor(c.y) == y;
                        double dx, dy;
                        if (cov == Coverage::CellCentre) {
                            dx = x + 0.5 - c.x;
                            dy = y + 0.5 - c.y;
                        } else {
                            dx = std::clamp(c.x, double(x), x + 1.0) - c.x;
                            dy = std::clamp(c.y, double(y), y + 1.0) - c.y;
                        }
                        const double d2 = dx * dx + dy * dy;
                        if (std::abs(d2 - r2) <= 1e-6 * (1.0 + std::abs(r2))) continue;
                        const bool inside = cov == Coverage::CellCentre ? d2 <= r2 : d2 < r2;
                        ASSERT_EQ(grid.test(x, y), inside || own)
                            << x << "," << y << " c " << c.x << "," << c.y << " r " << radius << " cov " << int(cov);
                    }
                }
            }
        }
        // Polylines: up to four points and a width, both coverages.
        for (const Coverage cov : {Coverage::CellCentre, Coverage::Conservative}) {
            std::vector<Vec2> line;
            const int n = 1 + gen.below(4);
            for (int i = 0; i < n; ++i) line.push_back(gen.point());
            const double width = gen.below(2) == 0 ? gen.next() : gen.below(40) / 4.0;
            GuardedGrid grid(kWidth, kHeight);
            const Status st = r.polyline(line, width, cov, grid.view());
            ASSERT_TRUE(grid.guardsClear());
            bool bad = !std::isfinite(width) || width > 2.0 * Rasterizer::kMaxRadiusCells;
            bool allOrdinary = true;
            for (Vec2 p : line) {
                bad = bad || !isFinite(p);
                allOrdinary = allOrdinary && ordinary(p);
            }
            ASSERT_EQ(st.ok(), !bad) << st.message();
            if (!st.ok()) {
                EXPECT_TRUE(grid.none());
                continue;
            }
            if (!allOrdinary) continue;
            // Every cell whose centre is within half the width (away from ties) is covered under
            // either rule; under the centre rule no other cell is, and a conservative cell lies
            // within half the width of the line plus half a cell's diagonal.
            const double half = std::max(width, 0.0) / 2.0;
            for (int y = 0; y < kHeight; ++y) {
                for (int x = 0; x < kWidth; ++x) {
                    const Vec2 centre{x + 0.5, y + 0.5};
                    double d = kInf;
                    for (std::size_t i = 0; i < line.size(); ++i)
                        d = std::min(d, distanceToSegment(centre, line[i], line[std::min(i + 1, line.size() - 1)]));
                    const double tie = 1e-6 * (1.0 + half);
                    if (half > 0.0 && d < half - tie) {
                        ASSERT_TRUE(grid.test(x, y)) << x << "," << y;
                    }
                    if (cov == Coverage::CellCentre && d > half + tie) {
                        ASSERT_FALSE(grid.test(x, y)) << x << "," << y;
                    }
                    if (cov == Coverage::Conservative && d > half + 0.7072) {
                        ASSERT_FALSE(grid.test(x, y)) << x << "," << y;
                    }
                }
            }
        }
        // Triangles, rectangles and oriented rectangles: through polygon(), so the guards and an
        // error for every non-finite value (or corner that overflows) are what is left to check.
        {
            const Vec2 a = gen.point(), b = gen.point(), c = gen.point();
            const Coverage cov = gen.below(2) == 0 ? Coverage::CellCentre : Coverage::Conservative;
            GuardedGrid grid(kWidth, kHeight);
            const Status t = r.triangle(a, b, c, cov, grid.view());
            ASSERT_EQ(t.ok(), isFinite(a) && isFinite(b) && isFinite(c)) << t.message();
            const Status q = r.rectangle(Box2{a, b}, cov, grid.view());
            ASSERT_EQ(q.ok(), isFinite(a) && isFinite(b)) << q.message();
            const double angle = gen.below(2) == 0 ? gen.next() : gen.below(64) / 10.0;
            const Status o = r.orientedRectangle(a, b, angle, cov, grid.view());
            if (!isFinite(a) || !isFinite(b) || !std::isfinite(angle)) {
                ASSERT_FALSE(o.ok());
            }
            ASSERT_TRUE(grid.guardsClear());
        }
    }
    // Both outcomes were exercised.
    EXPECT_GT(drawn, 1000);
    EXPECT_GT(errors, 1000);
}
