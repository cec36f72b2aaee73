#include "terrabit/core/scene/scene.h"

#include <algorithm>
#include <cmath>

namespace terrabit::core {

void Box3f::extend(Vec3f p) {
    min = {std::min(min.x, p.x), std::min(min.y, p.y), std::min(min.z, p.z)};
    max = {std::max(max.x, p.x), std::max(max.y, p.y), std::max(max.z, p.z)};
}

void Box3f::extend(const Box3f& b) {
    if (b.empty()) return;
    extend(b.min);
    extend(b.max);
}

std::array<float, 16> transformMatrix(const Instance& i) {
    // T · Ry(yaw) · S, column-major. Ry turns +X towards -Z (counter-clockwise seen from +Y).
    const float c = std::cos(i.yaw);
    const float s = std::sin(i.yaw);
    return {c * i.scale.x, 0.0f,         -s * i.scale.x, 0.0f,  // column 0
            0.0f,          i.scale.y,    0.0f,           0.0f,  // column 1
            s * i.scale.z, 0.0f,         c * i.scale.z,  0.0f,  // column 2
            i.position.x,  i.position.y, i.position.z,   1.0f};
}

std::array<float, 4> rotationQuaternion(const Instance& i) {
    const float h = 0.5f * i.yaw;
    return {0.0f, std::sin(h), 0.0f, std::cos(h)};
}

std::array<std::int16_t, 4> rotationQuaternionSnorm16(const Instance& i) {
    const std::array<float, 4> q = rotationQuaternion(i);
    std::array<std::int16_t, 4> out{};
    for (std::size_t c = 0; c < 4; ++c) {
        out[c] = static_cast<std::int16_t>(std::lround(std::clamp(q[c], -1.0f, 1.0f) * 32767.0f));
    }
    return out;
}

const char* outcomeName(BuildingOutcome outcome) {
    switch (outcome) {
        case BuildingOutcome::Placed:
            return "placed";
        case BuildingOutcome::NoModelFits:
            return "no model fits";
        case BuildingOutcome::Blocked:
            return "blocked";
        case BuildingOutcome::BlockedBySlope:
            return "blocked: slope";
        case BuildingOutcome::Generated:
            return "generated";
    }
    return "unknown";
}

std::string outcomeText(const BuildingRecord& b, std::span<const std::string> sources,
                        std::span<const std::string> layerNames) {
    if (b.outcome == BuildingOutcome::Generated && b.partOfSource < sources.size()) {
        return "generated: part of building " + sources[b.partOfSource];
    }
    if (b.outcome != BuildingOutcome::Blocked) return outcomeName(b.outcome);
    switch (b.blocker) {
        case Blocker::Building:
            return b.blockerSource < sources.size() ? "blocked: building " + sources[b.blockerSource]
                                                    : std::string("blocked: building");
        case Blocker::Layers:
            return b.blockerLayer < layerNames.size() ? "blocked: " + layerNames[b.blockerLayer]
                                                      : std::string("blocked: blocked_by layers");
        case Blocker::Unbaked:
            return "blocked: unbaked tiles";
        case Blocker::None:
            break;
    }
    return outcomeName(b.outcome);
}

std::array<PlinthFace, 5> plinthFaces(const Plinth& p) {
    const double c = std::cos(p.box.angle), s = std::sin(p.box.angle);
    const Vec2 u{c, s}, v{-s, c};  // the box's width and depth axes, ground (east, north)
    const double hx = p.box.halfExtents.x + kPlinthOutsetMetres, hy = p.box.halfExtents.y + kPlinthOutsetMetres;
    // Counter-clockwise seen from above (east, north).
    const std::array<Vec2, 4> g{p.box.centre - u * hx - v * hy, p.box.centre + u * hx - v * hy,
                                p.box.centre + u * hx + v * hy, p.box.centre - u * hx + v * hy};
    std::array<PlinthFace, 5> faces;
    for (std::size_t i = 0; i < 4; ++i) {
        const Vec2 a = g[i], b = g[(i + 1) % 4];
        const Vec2 out = i == 0 ? v * -1.0 : i == 1 ? u : i == 2 ? v : u * -1.0;
        faces[i].corners = {groundToScene(a, p.bottom), groundToScene(b, p.bottom), groundToScene(b, p.top),
                            groundToScene(a, p.top)};
        faces[i].normal = {static_cast<float>(out.x), 0.0f, static_cast<float>(-out.y)};
    }
    faces[4].corners = {groundToScene(g[0], p.top), groundToScene(g[1], p.top), groundToScene(g[2], p.top),
                        groundToScene(g[3], p.top)};
    faces[4].normal = {0.0f, 1.0f, 0.0f};
    return faces;
}

std::size_t Scene::instanceCount() const {
    std::size_t n = 0;
    for (const InstanceBlock& b : blocks) n += b.instances.size();
    return n;
}

const GroundTile* Scene::groundOf(const TileId& tile) const {
    const auto it = std::lower_bound(ground.begin(), ground.end(), tile,
                                     [](const GroundTile& g, const TileId& t) { return northToSouth(g.mesh.tile, t); });
    return it != ground.end() && it->mesh.tile == tile ? &*it : nullptr;
}

}  // namespace terrabit::core
