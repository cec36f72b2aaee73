#include "terrabit/core/tiling/tile_rasterizer.h"

#include "far_chunks_p.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core {

namespace {

/// Liang–Barsky: clips segment a-b to the square [lo, hi]²; false when nothing is left.
bool clipSegment(Vec2& a, Vec2& b, double lo, double hi) {
    // Most segments of a tile's lines lie inside the square, and most of the rest of a long
    // road wholly beyond one of its sides: no divisions for either.
    if (std::min({a.x, a.y, b.x, b.y}) >= lo && std::max({a.x, a.y, b.x, b.y}) <= hi) return true;
    if (std::max(a.x, b.x) < lo || std::min(a.x, b.x) > hi || std::max(a.y, b.y) < lo || std::min(a.y, b.y) > hi) {
        return false;
    }
    double t0 = 0.0, t1 = 1.0;
    const Vec2 d = b - a;
    const double p[4] = {-d.x, d.x, -d.y, d.y};
    const double q[4] = {a.x - lo, hi - a.x, a.y - lo, hi - a.y};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0.0) {
            if (t > t1) return false;
            t0 = std::fmax(t0, t);
        } else {
            if (t < t0) return false;
            t1 = std::fmin(t1, t);
        }
    }
    // Keep the original end points bit for bit where they are not clipped.
    const Vec2 a0 = a;
    if (t0 > 0.0) a = a0 + d * t0;
    if (t1 < 1.0) b = a0 + d * t1;
    return true;
}

}  // namespace

namespace {

/// One Sutherland–Hodgman pass: the part of ring in[0, n) on the inner side of the line where
/// coordinate Axis (0: x, 1: y) equals `bound` (Min: at or above it, else at or below), into
/// `out`; returns its point count. At most one point is cut per edge, so out needs room for 2n.
template <int Axis, bool Min>
std::size_t clipPass(const Vec2* in, std::size_t n, Vec2* out, double bound) {
    Vec2* o = out;
    const auto inside = [bound](Vec2 p) {
        const double c = Axis == 0 ? p.x : p.y;
        return Min ? c >= bound : c <= bound;
    };
    bool ina = n > 0 && inside(in[0]);
    for (std::size_t i = 0; i < n; ++i) {
        const Vec2 a = in[i];
        const Vec2 b = in[i + 1 == n ? 0 : i + 1];
        const bool inb = inside(b);
        if (ina) *o++ = a;
        if (ina != inb) {
            if constexpr (Axis == 0) {
                const double t = (bound - a.x) / (b.x - a.x);
                *o++ = Vec2{bound, a.y + (b.y - a.y) * t};
            } else {
                const double t = (bound - a.y) / (b.y - a.y);
                *o++ = Vec2{a.x + (b.x - a.x) * t, bound};
            }
        }
        ina = inb;
    }
    return static_cast<std::size_t>(o - out);
}

}  // namespace

void TileRasterizer::clipRing(std::span<const Vec2> ring, Vec2 offset, double lo, double hi, const Box2& reach) {
    // Sutherland–Hodgman against the sides the ring's feature reaches past (most features that
    // cross a tile's border cross one side only). On a concave ring it leaves zero-width bridges
    // along the clip border; they lie kClipMarginCells outside the tile, where the even-odd fill
    // and the conservative edge walk of the rasterizer cannot reach a tile cell. The buffers
    // only grow, and hold a count apart: resizing them to each pass's size zeroed them anew.
    const Box2 local{reach.min - offset, reach.max - offset};
    std::size_t count = ring.size();
    if (mClip.size() < 2 * count) mClip.resize(2 * count);
    for (std::size_t k = 0; k < count; ++k) mClip[k] = ring[k] - offset;
    const auto pass = [&](bool crosses, auto clip) {
        if (!crosses || count == 0) return;
        if (mClipOut.size() < 2 * count) mClipOut.resize(2 * count);
        count = clip(mClip.data(), count, mClipOut.data());
        std::swap(mClip, mClipOut);
    };
    pass(local.min.x < lo,
         [lo](const Vec2* in, std::size_t n, Vec2* out) { return clipPass<0, true>(in, n, out, lo); });
    pass(local.max.x > hi,
         [hi](const Vec2* in, std::size_t n, Vec2* out) { return clipPass<0, false>(in, n, out, hi); });
    pass(local.min.y < lo,
         [lo](const Vec2* in, std::size_t n, Vec2* out) { return clipPass<1, true>(in, n, out, lo); });
    pass(local.max.y > hi,
         [hi](const Vec2* in, std::size_t n, Vec2* out) { return clipPass<1, false>(in, n, out, hi); });
    if (count >= 3) {
        mPoints.insert(mPoints.end(), mClip.begin(), mClip.begin() + static_cast<std::ptrdiff_t>(count));
        mRingEnds.push_back(static_cast<std::uint32_t>(mPoints.size()));
    }
}

void TileRasterizer::drawLine(std::span<const Vec2> line, Vec2 offset, double halfWidth, Coverage coverage,
                              const Box2& reach, BitTile& target) {
    const double lo = -kClipMarginCells - halfWidth;
    const double hi = kTileCells + kClipMarginCells + halfWidth;
    mPoints.clear();
    // The feature's bounds: its reach shrunk back, with a hair to spare for the rounding.
    const double shrink = halfWidth + kClipMarginCells - 1e-6;
    if (!line.empty() && reach.min.x + shrink - offset.x >= lo && reach.min.y + shrink - offset.y >= lo &&
        reach.max.x - shrink - offset.x <= hi && reach.max.y - shrink - offset.y <= hi) {
        // The whole line lies in the clip square, so every segment would be kept whole and
        // joined into one run: the line as it is, moved.
        mPoints.resize(line.size());
        for (std::size_t i = 0; i < line.size(); ++i) mPoints[i] = line[i] - offset;
        (void)mRasterizer.polyline(mPoints, 2.0 * halfWidth, coverage, target);
        return;
    }
    auto flush = [&] {
        if (!mPoints.empty()) (void)mRasterizer.polyline(mPoints, 2.0 * halfWidth, coverage, target);
        mPoints.clear();
    };
    if (line.size() == 1) {
        Vec2 p = line[0] - offset;
        if (p.x >= lo && p.x <= hi && p.y >= lo && p.y <= hi)
            (void)mRasterizer.polyline({&p, 1}, 2.0 * halfWidth, coverage, target);
        return;
    }
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
        const Vec2 a0 = line[i] - offset;
        const Vec2 b0 = line[i + 1] - offset;
        Vec2 a = a0, b = b0;
        if (!clipSegment(a, b, lo, hi)) {
            flush();
            continue;
        }
        // Continue the current run when this segment starts where the last one ended unclipped.
        if (mPoints.empty() || !(a == a0) || !(mPoints.back() == a0)) {
            flush();
            mPoints.push_back(a);
        }
        mPoints.push_back(b);
        if (!(b == b0)) flush();
    }
    flush();
}

Status TileRasterizer::rasterize(const TileIndex& index, std::size_t slot, std::span<BitTile> out) {
    const Status status = draw(index, slot, out);
    for (std::size_t l = 0; l < mDrawn.size() && l < out.size(); ++l) {
        if (!mDrawn[l]) out[l].reset();
    }
    return status;
}

Status TileRasterizer::draw(const TileIndex& index, std::size_t slot, std::span<BitTile> out) {
    const ClassifiedMap& map = index.map();
    const std::size_t layerCount = map.layers.size();
    mDrawn.assign(layerCount, 0);
    if (out.size() < layerCount) {
        return Error{"TileRasterizer: " + std::to_string(out.size()) + " tiles given for " +
                     std::to_string(layerCount) + " layers"};
    }
    // Which layers this tile draws into, each cleared before its first shape: a parent unites
    // only the classes that hold something.
    const TileId tile = index.tiles()[slot];
    const Vec2 offset{static_cast<double>(tile.x) * kTileCells, static_cast<double>(tile.y) * kTileCells};
    const Box2 clipBox{{offset.x - kClipMarginCells, offset.y - kClipMarginCells},
                       {offset.x + kTileCells + kClipMarginCells, offset.y + kTileCells + kClipMarginCells}};

    // This loop is hot: it runs for every feature of every tile.
    Status status;
    for (const TileIndex::EntryInfo& info : index.entryInfos(slot)) {
        BitTile& target = out[info.layer];
        if (!mDrawn[info.layer]) {
            target.reset();
            mDrawn[info.layer] = 1;
        }
        const Coverage coverage = map.layers[info.layer].coverage;
        const std::span<const Vec2> cells = index.cells(info);
        const std::span<const std::uint32_t> partEnds = index.partEnds(info);
        const double size = info.sizeCells;
        const auto keepFirstError = [&](const Status& s) {
            if (!s && status) status = Error{"feature " + map.entries[info.entry].feature->id + ": " + s.message()};
        };
        switch (info.kind) {
            case FeatureKind::Area: {
                mPoints.clear();
                mRingEnds.clear();
                const Box2& reach = info.reach;
                const bool inside = reach.min.x >= clipBox.min.x && reach.max.x <= clipBox.max.x &&
                                    reach.min.y >= clipBox.min.y && reach.max.y <= clipBox.max.y;
                if (inside) {
                    // Nothing to clip: the rasterizer reads the feature's own cells, moved.
                    if (partEnds.empty()) break;
                    keepFirstError(mRasterizer.polygon(PolygonView{cells, partEnds, offset},
                                                       {FillRule::EvenOdd, coverage}, target));
                    break;
                }
                const std::span<const Box2> chunks = index.chunks(info);
                std::size_t chunk = 0;
                std::uint32_t begin = 0;
                for (const std::uint32_t end : partEnds) {
                    std::span<const Vec2> ring = cells.subspan(begin, end - begin);
                    if (!chunks.empty()) {
                        // A chunk wholly beyond one side of the clip box becomes a chord.
                        detail::reduceFarChunks(ring, chunks, chunk, clipBox, mReduced);
                        ring = mReduced;
                    }
                    clipRing(ring, offset, -kClipMarginCells, kTileCells + kClipMarginCells, reach);
                    begin = end;
                }
                if (mRingEnds.empty()) break;
                keepFirstError(
                    mRasterizer.polygon(PolygonView{mPoints, mRingEnds}, {FillRule::EvenOdd, coverage}, target));
                break;
            }
            case FeatureKind::Line: {
                std::uint32_t begin = 0;
                for (const std::uint32_t end : partEnds) {
                    drawLine(cells.subspan(begin, end - begin), offset, size, coverage, info.reach, target);
                    begin = end;
                }
                break;
            }
            case FeatureKind::Point: {
                const double reachCells = size + kClipMarginCells;
                for (const Vec2& c : cells) {
                    const Vec2 p = c - offset;
                    if (p.x < -reachCells || p.y < -reachCells || p.x > kTileCells + reachCells ||
                        p.y > kTileCells + reachCells) {
                        continue;
                    }
                    (void)mRasterizer.point(p, size, coverage, target);
                }
                break;
            }
        }
    }

    for (std::size_t l = 0; l < layerCount; ++l) {
        for (const int cls : map.layers[l].classes) {
            if (!mDrawn[static_cast<std::size_t>(cls)]) continue;
            if (!mDrawn[l]) {
                out[l] = out[static_cast<std::size_t>(cls)];
                mDrawn[l] = 1;  // a parent that is itself a class passes this on
            } else {
                out[l] |= out[static_cast<std::size_t>(cls)];
            }
        }
    }
    return status;
}

}  // namespace terrabit::core
