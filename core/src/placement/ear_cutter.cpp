#include "ear_cutter_p.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace terrabit::core::placement::detail {

class EarCutter::Impl {
public:
    /// Triangulates the rings (the first is the shell; open, no repeated corners) into `out`
    /// as corner triples in the rings' orientation. False when the scratch bound is exceeded
    /// (the caller checks the result anyway).
    bool cut(std::span<const std::span<const Vec2>> rings, std::vector<Vec2>& out) {
        std::size_t n = 0;
        for (const auto& r : rings) n += r.size();
        mNodes.clear();
        mNodes.reserve(4 * n + 16);  // corners, two per bridge, two per split (< n splits)
        mOut = &out;
        mNext = 0;
        mOverflow = false;
        Node* outer = ring(rings[0], true);
        if (!outer || outer->next == outer->prev) return !mOverflow;
        if (rings.size() > 1) outer = eliminateHoles(rings.subspan(1), outer);
        if (!outer) return !mOverflow;
        double maxX = outer->x, maxY = outer->y;
        mMinX = outer->x, mMinY = outer->y, mInvSize = 0.0;
        if (n > 80) {
            for (const Vec2& p : rings[0]) {
                mMinX = std::min(mMinX, p.x), mMinY = std::min(mMinY, p.y);
                maxX = std::max(maxX, p.x), maxY = std::max(maxY, p.y);
            }
            const double size = std::max(maxX - mMinX, maxY - mMinY);
            mInvSize = size != 0.0 ? 32767.0 / size : 0.0;
        }
        cutLinked(outer, 0);
        return !mOverflow;
    }

private:
    struct Node {
        double x = 0, y = 0;
        std::uint32_t i = 0;  ///< the corner's number over all rings (bridge copies share it)
        std::uint32_t z = 0;  ///< z-order of the corner
        Node *prev = nullptr, *next = nullptr, *prevZ = nullptr, *nextZ = nullptr;
        bool steiner = false;
    };
    std::vector<Node> mNodes;
    std::vector<Node*> mSort;
    std::vector<Vec2>* mOut = nullptr;
    double mMinX = 0, mMinY = 0, mInvSize = 0;
    std::uint32_t mNext = 0;  ///< the next corner number
    bool mOverflow = false;

    Node* make(std::uint32_t i, double x, double y) {
        if (mNodes.size() == mNodes.capacity()) {  // would move the nodes the links point at
            mOverflow = true;
            return nullptr;
        }
        Node& p = mNodes.emplace_back();
        p.i = i, p.x = x, p.y = y;
        return &p;
    }
    Node* insert(std::uint32_t i, Vec2 v, Node* last) {
        Node* p = make(i, v.x, v.y);
        if (!p) return nullptr;
        if (!last) {
            p->prev = p->next = p;
        } else {
            p->next = last->next, p->prev = last;
            last->next->prev = p, last->next = p;
        }
        return p;
    }
    static void remove(Node* p) {
        p->next->prev = p->prev, p->prev->next = p->next;
        if (p->prevZ) p->prevZ->nextZ = p->nextZ;
        if (p->nextZ) p->nextZ->prevZ = p->prevZ;
    }
    static double area(const Node* p, const Node* q, const Node* r) {
        return (q->y - p->y) * (r->x - q->x) - (q->x - p->x) * (r->y - q->y);
    }
    static bool equals(const Node* a, const Node* b) { return a->x == b->x && a->y == b->y; }
    static bool inTriangle(double ax, double ay, double bx, double by, double cx, double cy, double px, double py) {
        return (cx - px) * (ay - py) >= (ax - px) * (cy - py) && (ax - px) * (by - py) >= (bx - px) * (ay - py) &&
               (bx - px) * (cy - py) >= (cx - px) * (by - py);
    }
    void emit(const Node* a, const Node* b, const Node* c) {
        mOut->insert(mOut->end(), {{a->x, a->y}, {b->x, b->y}, {c->x, c->y}});
    }

    /// A ring as a circular list, clockwise (earcut's sense) for the shell, the other way for holes.
    Node* ring(std::span<const Vec2> pts, bool clockwise) {
        double sum = 0.0;
        for (std::size_t i = 0, j = pts.size() - 1; i < pts.size(); j = i++) {
            sum += (pts[j].x - pts[i].x) * (pts[i].y + pts[j].y);
        }
        Node* last = nullptr;
        if (clockwise == (sum > 0)) {
            for (const Vec2& p : pts) last = insert(mNext++, p, last);
        } else {
            for (std::size_t k = pts.size(); k-- > 0;) last = insert(mNext++, pts[k], last);
        }
        if (!last) return nullptr;
        if (equals(last, last->next)) {
            remove(last);
            last = last->next;
        }
        return last;
    }

    /// Drops repeated and collinear corners from start to end.
    static Node* filter(Node* start, Node* end = nullptr) {
        if (!start) return start;
        if (!end) end = start;
        Node* p = start;
        bool again = false;
        do {
            again = false;
            if (!p->steiner && (equals(p, p->next) || area(p->prev, p, p->next) == 0.0)) {
                remove(p);
                p = end = p->prev;
                if (p == p->next) break;
                again = true;
            } else {
                p = p->next;
            }
        } while (again || p != end);
        return end;
    }

    // This loop is hot: every ear test of every corner.
    void cutLinked(Node* ear, int pass) {
        if (!ear || mOverflow) return;
        if (pass == 0 && mInvSize != 0.0) indexCurve(ear);
        Node* stop = ear;
        while (ear->prev != ear->next) {
            Node* prev = ear->prev;
            Node* next = ear->next;
            if (mInvSize != 0.0 ? isEarHashed(ear) : isEar(ear)) {
                emit(prev, ear, next);
                remove(ear);
                ear = next->next;
                stop = next->next;
                continue;
            }
            ear = next;
            if (ear == stop) {
                if (pass == 0) {
                    cutLinked(filter(ear), 1);
                } else if (pass == 1) {
                    cutLinked(cureLocalIntersections(filter(ear)), 2);
                } else {
                    splitCut(ear);
                }
                break;
            }
        }
    }

    bool isEar(const Node* ear) const {
        const Node *a = ear->prev, *b = ear, *c = ear->next;
        if (area(a, b, c) >= 0) return false;  // reflex
        const double x0 = std::min({a->x, b->x, c->x}), x1 = std::max({a->x, b->x, c->x});
        const double y0 = std::min({a->y, b->y, c->y}), y1 = std::max({a->y, b->y, c->y});
        for (const Node* p = c->next; p != a; p = p->next) {
            if (p->x >= x0 && p->x <= x1 && p->y >= y0 && p->y <= y1 &&
                inTriangle(a->x, a->y, b->x, b->y, c->x, c->y, p->x, p->y) && area(p->prev, p, p->next) >= 0) {
                return false;
            }
        }
        return true;
    }

    bool isEarHashed(const Node* ear) const {
        const Node *a = ear->prev, *b = ear, *c = ear->next;
        if (area(a, b, c) >= 0) return false;
        const double x0 = std::min({a->x, b->x, c->x}), x1 = std::max({a->x, b->x, c->x});
        const double y0 = std::min({a->y, b->y, c->y}), y1 = std::max({a->y, b->y, c->y});
        const std::uint32_t minZ = zOrder(x0, y0), maxZ = zOrder(x1, y1);
        const auto blocks = [&](const Node* p) {
            return p->x >= x0 && p->x <= x1 && p->y >= y0 && p->y <= y1 && p != a && p != c &&
                   inTriangle(a->x, a->y, b->x, b->y, c->x, c->y, p->x, p->y) && area(p->prev, p, p->next) >= 0;
        };
        const Node* p = ear->prevZ;
        const Node* n = ear->nextZ;
        while (p && p->z >= minZ && n && n->z <= maxZ) {
            if (blocks(p)) return false;
            p = p->prevZ;
            if (blocks(n)) return false;
            n = n->nextZ;
        }
        for (; p && p->z >= minZ; p = p->prevZ) {
            if (blocks(p)) return false;
        }
        for (; n && n->z <= maxZ; n = n->nextZ) {
            if (blocks(n)) return false;
        }
        return true;
    }

    /// Two corners' neighbours crossing each other: clip the triangle that undoes the crossing.
    Node* cureLocalIntersections(Node* start) {
        Node* p = start;
        do {
            Node* a = p->prev;
            Node* b = p->next->next;
            if (!equals(a, b) && intersects(a, p, p->next, b) && locallyInside(a, b) && locallyInside(b, a)) {
                emit(a, p, b);
                remove(p);
                remove(p->next);
                p = start = b;
            }
            p = p->next;
        } while (p != start);
        return filter(p);
    }

    /// Splits what is left along a valid diagonal and cuts both halves.
    void splitCut(Node* start) {
        Node* a = start;
        do {
            for (Node* b = a->next->next; b != a->prev; b = b->next) {
                if (a->i != b->i && isValidDiagonal(a, b)) {
                    Node* c = split(a, b);
                    if (!c) return;
                    a = filter(a, a->next);
                    c = filter(c, c->next);
                    cutLinked(a, 0);
                    cutLinked(c, 0);
                    return;
                }
            }
            a = a->next;
        } while (a != start);
    }

    /// Joins each hole to the shell, leftmost hole first.
    Node* eliminateHoles(std::span<const std::span<const Vec2>> holes, Node* outer) {
        std::vector<Node*> queue;
        for (const auto& h : holes) {
            Node* list = ring(h, false);
            if (!list) return nullptr;
            if (list == list->next) list->steiner = true;
            queue.push_back(leftmost(list));
        }
        std::sort(queue.begin(), queue.end(), [](const Node* a, const Node* b) { return a->x < b->x; });
        for (Node* hole : queue) {
            Node* bridge = holeBridge(hole, outer);
            if (!bridge) continue;
            Node* reverse = split(bridge, hole);
            if (!reverse) return nullptr;
            Node* filtered = filter(bridge, bridge->next);
            filter(reverse, reverse->next);
            if (outer == bridge) outer = filtered;
            outer = filter(outer, outer->next);
        }
        return outer;
    }

    /// David Eberly's hole bridge: the shell corner the hole's leftmost corner sees to its left.
    Node* holeBridge(const Node* hole, Node* outer) const {
        Node* p = outer;
        const double hx = hole->x, hy = hole->y;
        double qx = -std::numeric_limits<double>::infinity();
        Node* m = nullptr;
        do {
            if (hy <= p->y && hy >= p->next->y && p->next->y != p->y) {
                const double x = p->x + (hy - p->y) * (p->next->x - p->x) / (p->next->y - p->y);
                if (x <= hx && x > qx) {
                    qx = x;
                    m = p->x < p->next->x ? p : p->next;
                    if (x == hx) return m;  // the hole touches the shell's edge
                }
            }
            p = p->next;
        } while (p != outer);
        if (!m) return nullptr;
        const Node* stop = m;
        const double mx = m->x, my = m->y;
        double tanMin = std::numeric_limits<double>::infinity();
        p = m;
        do {
            if (hx >= p->x && p->x >= mx && hx != p->x &&
                inTriangle(hy < my ? hx : qx, hy, mx, my, hy < my ? qx : hx, hy, p->x, p->y)) {
                const double tan = std::abs(hy - p->y) / (hx - p->x);
                if (locallyInside(p, hole) &&
                    (tan < tanMin ||
                     (tan == tanMin && (p->x > m->x || (p->x == m->x && sectorContainsSector(m, p)))))) {
                    m = p;
                    tanMin = tan;
                }
            }
            p = p->next;
        } while (p != stop);
        return m;
    }

    static bool sectorContainsSector(const Node* m, const Node* p) {
        return area(m->prev, m, p->prev) < 0 && area(p->next, m, m->next) < 0;
    }

    void indexCurve(Node* start) {
        mSort.clear();
        Node* p = start;
        do {
            p->z = zOrder(p->x, p->y);
            mSort.push_back(p);
            p = p->next;
        } while (p != start);
        std::stable_sort(mSort.begin(), mSort.end(), [](const Node* a, const Node* b) { return a->z < b->z; });
        for (std::size_t k = 0; k < mSort.size(); ++k) {
            mSort[k]->prevZ = k > 0 ? mSort[k - 1] : nullptr;
            mSort[k]->nextZ = k + 1 < mSort.size() ? mSort[k + 1] : nullptr;
        }
    }

    /// The z-order (Morton code) of a point's 15-bit coordinates in the shape's box.
    std::uint32_t zOrder(double px, double py) const {
        auto x = static_cast<std::uint32_t>((px - mMinX) * mInvSize);
        auto y = static_cast<std::uint32_t>((py - mMinY) * mInvSize);
        const auto spread = [](std::uint32_t v) {
            v = (v | (v << 8)) & 0x00FF00FFu;
            v = (v | (v << 4)) & 0x0F0F0F0Fu;
            v = (v | (v << 2)) & 0x33333333u;
            return (v | (v << 1)) & 0x55555555u;
        };
        return spread(x) | (spread(y) << 1);
    }

    static Node* leftmost(Node* start) {
        Node* p = start;
        Node* best = start;
        do {
            if (p->x < best->x || (p->x == best->x && p->y < best->y)) best = p;
            p = p->next;
        } while (p != start);
        return best;
    }

    bool isValidDiagonal(const Node* a, const Node* b) const {
        return a->next->i != b->i && a->prev->i != b->i && !intersectsPolygon(a, b) &&
               ((locallyInside(a, b) && locallyInside(b, a) && middleInside(a, b) &&
                 (area(a->prev, a, b->prev) != 0.0 || area(a, b->prev, b) != 0.0)) ||
                (equals(a, b) && area(a->prev, a, a->next) > 0 && area(b->prev, b, b->next) > 0));
    }

    static int sign(double v) { return (v > 0) - (v < 0); }
    static bool onSegment(const Node* p, const Node* q, const Node* r) {
        return q->x <= std::max(p->x, r->x) && q->x >= std::min(p->x, r->x) && q->y <= std::max(p->y, r->y) &&
               q->y >= std::min(p->y, r->y);
    }
    static bool intersects(const Node* p1, const Node* q1, const Node* p2, const Node* q2) {
        const int o1 = sign(area(p1, q1, p2)), o2 = sign(area(p1, q1, q2));
        const int o3 = sign(area(p2, q2, p1)), o4 = sign(area(p2, q2, q1));
        if (o1 != o2 && o3 != o4) return true;
        if (o1 == 0 && onSegment(p1, p2, q1)) return true;
        if (o2 == 0 && onSegment(p1, q2, q1)) return true;
        if (o3 == 0 && onSegment(p2, p1, q2)) return true;
        if (o4 == 0 && onSegment(p2, q1, q2)) return true;
        return false;
    }
    static bool intersectsPolygon(const Node* a, const Node* b) {
        const Node* p = a;
        do {
            if (p->i != a->i && p->next->i != a->i && p->i != b->i && p->next->i != b->i &&
                intersects(p, p->next, a, b)) {
                return true;
            }
            p = p->next;
        } while (p != a);
        return false;
    }
    static bool locallyInside(const Node* a, const Node* b) {
        return area(a->prev, a, a->next) < 0 ? area(a, b, a->next) >= 0 && area(a, a->prev, b) >= 0
                                             : area(a, b, a->prev) < 0 || area(a, a->next, b) < 0;
    }
    static bool middleInside(const Node* a, const Node* b) {
        const Node* p = a;
        bool inside = false;
        const double px = (a->x + b->x) / 2, py = (a->y + b->y) / 2;
        do {
            if (((p->y > py) != (p->next->y > py)) && p->next->y != p->y &&
                (px < (p->next->x - p->x) * (py - p->y) / (p->next->y - p->y) + p->x)) {
                inside = !inside;
            }
            p = p->next;
        } while (p != a);
        return inside;
    }

    /// Links a to b by two copies of each, splitting the ring in two; returns b's copy.
    Node* split(Node* a, Node* b) {
        Node* a2 = make(a->i, a->x, a->y);
        Node* b2 = make(b->i, b->x, b->y);
        if (!a2 || !b2) return nullptr;
        Node* an = a->next;
        Node* bp = b->prev;
        a->next = b, b->prev = a;
        a2->next = an, an->prev = a2;
        b2->next = a2, a2->prev = b2;
        bp->next = b2, b2->prev = bp;
        return b2;
    }
};

EarCutter::EarCutter() : mImpl(std::make_unique<Impl>()) {}
EarCutter::~EarCutter() = default;

bool EarCutter::cut(std::span<const std::span<const Vec2>> rings, std::vector<Vec2>& out) {
    return mImpl->cut(rings, out);
}

}  // namespace terrabit::core::placement::detail
