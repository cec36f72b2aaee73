#include "terrabit/core/algebra/layer_program.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "program_p.h"

// The compiler: AST -> IR (shared subexpressions, constant folding, not-fusion, open/close/edge
// expanded) -> halo analysis -> flat steps with planes, strip registers and scratch offsets.

namespace terrabit::core::algebra {

namespace {

enum class IrOp : std::uint8_t {
    Layer,
    Zero,
    Ones,
    Random,
    Noise,
    Relief,
    Not,
    And,
    Or,
    Xor,
    AndNot,
    OrNot,
    Xnor,
    Dilate,
    Erode,
    Shift,
};

struct IrNode {
    static IrNode of(IrOp op, int a = -1, int b = -1) {
        IrNode n;
        n.op = op;
        n.a = a;
        n.b = b;
        return n;
    }

    IrOp op = IrOp::Zero;
    int a = -1;
    int b = -1;
    int layer = -1;
    int radius = 0;
    StructuringElement element = StructuringElement::Square;
    int dx = 0;
    int dy = 0;
    RandomMask random;
    NoiseMask noise;
    ReliefMask relief;
};

bool isPure(IrOp op) {
    switch (op) {
        case IrOp::Not:
        case IrOp::And:
        case IrOp::Or:
        case IrOp::Xor:
        case IrOp::AndNot:
        case IrOp::OrNot:
        case IrOp::Xnor:
            return true;
        default:
            return false;
    }
}
bool isNeighbourhood(IrOp op) { return op == IrOp::Dilate || op == IrOp::Erode || op == IrOp::Shift; }
bool isCommutative(IrOp op) { return op == IrOp::And || op == IrOp::Or || op == IrOp::Xor || op == IrOp::Xnor; }

KernelOp kernelOf(IrOp op) {
    switch (op) {
        case IrOp::Not:
            return KernelOp::Not;
        case IrOp::And:
            return KernelOp::And;
        case IrOp::Or:
            return KernelOp::Or;
        case IrOp::Xor:
            return KernelOp::Xor;
        case IrOp::AndNot:
            return KernelOp::AndNot;
        case IrOp::OrNot:
            return KernelOp::OrNot;
        case IrOp::Xnor:
            return KernelOp::Xnor;
        default:
            return KernelOp::Copy;
    }
}

const char* kernelName(KernelOp op) {
    switch (op) {
        case KernelOp::Copy:
            return "copy";
        case KernelOp::Not:
            return "not";
        case KernelOp::And:
            return "and";
        case KernelOp::Or:
            return "or";
        case KernelOp::Xor:
            return "xor";
        case KernelOp::AndNot:
            return "andnot";
        case KernelOp::OrNot:
            return "ornot";
        case KernelOp::Xnor:
            return "xnor";
    }
    return "?";
}

/// Builds IR nodes, sharing equal ones and folding what can be decided without the layers.
class IrBuilder {
public:
    std::vector<IrNode> nodes;

    int zero() { return intern(IrNode::of(IrOp::Zero)); }
    int ones() { return intern(IrNode::of(IrOp::Ones)); }
    int layer(int id) {
        IrNode n = IrNode::of(IrOp::Layer);
        n.layer = id;
        return intern(n);
    }

    int random(const RandomMask& m) {
        if (m.all) return ones();
        if (m.threshold == 0) return zero();
        IrNode n = IrNode::of(IrOp::Random);
        n.random = m;
        return intern(n);
    }
    int noise(const NoiseMask& m) {
        if (m.all) return ones();
        if (m.rawThreshold == 0) return zero();
        IrNode n = IrNode::of(IrOp::Noise);
        n.noise = m;
        return intern(n);
    }

    int relief(const ReliefMask& m) {
        IrNode n = IrNode::of(IrOp::Relief);
        n.relief = m;
        return intern(n);
    }

    int notOf(int a) {
        const IrNode& n = nodes[static_cast<std::size_t>(a)];
        switch (n.op) {
            case IrOp::Zero:
                return ones();
            case IrOp::Ones:
                return zero();
            case IrOp::Not:
                return n.a;
            case IrOp::Xor:
                return binary(IrOp::Xnor, n.a, n.b);
            case IrOp::Xnor:
                return binary(IrOp::Xor, n.a, n.b);
            case IrOp::AndNot:
                return binary(IrOp::OrNot, n.b, n.a);  // ~(a & ~b) = b | ~a
            case IrOp::OrNot:
                return binary(IrOp::AndNot, n.b, n.a);  // ~(a | ~b) = b & ~a
            default:
                return intern(IrNode::of(IrOp::Not, a));
        }
    }

    int binary(IrOp op, int a, int b) {
        const bool aZero = is(a, IrOp::Zero), bZero = is(b, IrOp::Zero);
        const bool aOnes = is(a, IrOp::Ones), bOnes = is(b, IrOp::Ones);
        const int na = negated(a), nb = negated(b);
        const bool complements = na == b || nb == a;
        switch (op) {
            case IrOp::And:
                if (aZero || bZero || complements) return zero();
                if (aOnes || a == b) return b;
                if (bOnes) return a;
                if (na >= 0 && nb < 0) return binary(IrOp::AndNot, b, na);
                if (nb >= 0 && na < 0) return binary(IrOp::AndNot, a, nb);
                break;
            case IrOp::Or:
                if (aOnes || bOnes || complements) return ones();
                if (aZero || a == b) return b;
                if (bZero) return a;
                if (na >= 0 && nb < 0) return binary(IrOp::OrNot, b, na);
                if (nb >= 0 && na < 0) return binary(IrOp::OrNot, a, nb);
                if (const int f = factorOr(a, b); f >= 0) return f;
                break;
            case IrOp::Xor:
                if (a == b) return zero();
                if (complements) return ones();
                if (aZero) return b;
                if (bZero) return a;
                if (aOnes) return notOf(b);
                if (bOnes) return notOf(a);
                if (na >= 0 && nb >= 0) return binary(IrOp::Xor, na, nb);
                if (na >= 0) return binary(IrOp::Xnor, na, b);
                if (nb >= 0) return binary(IrOp::Xnor, a, nb);
                break;
            case IrOp::Xnor:
                if (a == b) return ones();
                if (complements) return zero();
                if (aZero) return notOf(b);
                if (bZero) return notOf(a);
                if (aOnes) return b;
                if (bOnes) return a;
                if (na >= 0 && nb >= 0) return binary(IrOp::Xnor, na, nb);
                if (na >= 0) return binary(IrOp::Xor, na, b);
                if (nb >= 0) return binary(IrOp::Xor, a, nb);
                break;
            case IrOp::AndNot:  // a & ~b
                if (aZero || bOnes || a == b) return zero();
                if (bZero) return a;
                if (aOnes) return notOf(b);
                if (nb >= 0) return binary(IrOp::And, a, nb);
                if (na == b) return a;  // ~b & ~b
                break;
            case IrOp::OrNot:  // a | ~b
                if (aOnes || bZero || a == b) return ones();
                if (bOnes) return a;
                if (aZero) return notOf(b);
                if (nb >= 0) return binary(IrOp::Or, a, nb);
                if (na == b) return a;  // ~b | ~b
                break;
            default:
                break;
        }
        if (isCommutative(op) && a > b) std::swap(a, b);
        return intern(IrNode::of(op, a, b));
    }

    /// (x - g) | (y - g) is (x | y) - g, and (x & c) | (y & c) is (x | y) & c: one operation
    /// fewer per shared term. Also looks one level into an or-chain on either side, so
    /// a | (x - g) | (y - g), written left-associated, is found too. -1 when nothing factors.
    int factorOr(int a, int b) {
        if (const int f = factorPair(a, b); f >= 0) return f;
        for (int side = 0; side < 2; ++side) {
            const int chain = side == 0 ? a : b;
            const int term = side == 0 ? b : a;
            const IrNode& c = nodes[static_cast<std::size_t>(chain)];
            if (c.op != IrOp::Or) continue;
            const int p = c.a, q = c.b;
            if (const int f = factorPair(q, term); f >= 0) return binary(IrOp::Or, p, f);
            if (const int f = factorPair(p, term); f >= 0) return binary(IrOp::Or, q, f);
        }
        return -1;
    }

    int factorPair(int a, int b) {
        const IrNode x = nodes[static_cast<std::size_t>(a)];
        const IrNode y = nodes[static_cast<std::size_t>(b)];
        if (x.op == IrOp::AndNot && y.op == IrOp::AndNot && x.b == y.b) {
            return binary(IrOp::AndNot, binary(IrOp::Or, x.a, y.a), x.b);
        }
        if (x.op == IrOp::And && y.op == IrOp::And) {
            int common = -1, xo = -1, yo = -1;
            if (x.a == y.a) {
                common = x.a, xo = x.b, yo = y.b;
            } else if (x.a == y.b) {
                common = x.a, xo = x.b, yo = y.a;
            } else if (x.b == y.a) {
                common = x.b, xo = x.a, yo = y.b;
            } else if (x.b == y.b) {
                common = x.b, xo = x.a, yo = y.a;
            }
            if (common >= 0) return binary(IrOp::And, binary(IrOp::Or, xo, yo), common);
        }
        return -1;
    }

    int morph(bool dilate, int a, int radius, StructuringElement element) {
        // Constant masks are their own dilation and erosion (the plane is unbounded), radius 0
        // is the identity, and a disk of radius 1 differs from the square only from radius 2 on
        // in name: keep the element as written so listings match the text.
        if (radius == 0 || is(a, IrOp::Zero) || is(a, IrOp::Ones)) return a;
        IrNode n = IrNode::of(dilate ? IrOp::Dilate : IrOp::Erode, a);
        n.radius = radius;
        n.element = element;
        return intern(n);
    }

    int shift(int a, int dx, int dy) {
        if ((dx == 0 && dy == 0) || is(a, IrOp::Zero) || is(a, IrOp::Ones)) return a;
        IrNode n = IrNode::of(IrOp::Shift, a);
        n.dx = dx;
        n.dy = dy;
        return intern(n);
    }

private:
    using Key = std::tuple<int, int, int, int, int, int, int, int, std::uint64_t, std::uint64_t, bool, std::uint64_t,
                           std::uint64_t, std::uint64_t, std::uint32_t, bool, int, double, double, double, double>;

    bool is(int i, IrOp op) const { return nodes[static_cast<std::size_t>(i)].op == op; }
    int negated(int i) const {
        const IrNode& n = nodes[static_cast<std::size_t>(i)];
        return n.op == IrOp::Not ? n.a : -1;
    }

    int intern(const IrNode& n) {
        const Key key{static_cast<int>(n.op),
                      n.a,
                      n.b,
                      n.layer,
                      n.radius,
                      static_cast<int>(n.element),
                      n.dx,
                      n.dy,
                      n.random.key,
                      n.random.threshold,
                      n.random.all,
                      n.noise.keys[0],
                      n.noise.keys[1],
                      n.noise.stepQ32,
                      n.noise.rawThreshold,
                      n.noise.all,
                      static_cast<int>(n.relief.kind),
                      n.relief.above,
                      n.relief.below,
                      n.relief.direction,
                      n.relief.within};
        auto [it, inserted] = mIndex.emplace(key, static_cast<int>(nodes.size()));
        if (inserted) nodes.push_back(n);
        return it->second;
    }

    std::map<Key, int> mIndex;
};

struct Need {
    int rows = 0;   // halo rows north and south
    int cells = 0;  // halo cells east and west
};

int wordsFor(int cells) { return (cells + 63) / 64; }

std::size_t roundUp4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

std::shared_ptr<const ProgramData> emptyProgram() {
    static const std::shared_ptr<const ProgramData> empty = [] {
        auto p = std::make_shared<ProgramData>();
        Step fill;
        fill.kind = StepKind::Fill;
        p->steps.push_back(fill);
        return p;
    }();
    return empty;
}

/// Plans the steps for the IR rooted at `root`.
class Planner {
public:
    Planner(const std::vector<IrNode>& nodes, int root, ProgramData& out) : mNodes(nodes), mRoot(root), mOut(out) {}

    void run() {
        const std::size_t n = mNodes.size();
        const IrNode& rootNode = node(mRoot);
        if (rootNode.op == IrOp::Zero || rootNode.op == IrOp::Ones) {
            Step fill;
            fill.kind = StepKind::Fill;
            fill.fillOnes = rootNode.op == IrOp::Ones;
            mOut.steps.push_back(fill);
            return;
        }

        // Reachability and halo needs, consumers before their operands (ids descend).
        mReachable.assign(n, false);
        mNeed.assign(n, Need{});
        mMaterialised.assign(n, false);
        mReachable[static_cast<std::size_t>(mRoot)] = true;
        mMaterialised[static_cast<std::size_t>(mRoot)] = true;
        for (int i = mRoot; i >= 0; --i) {
            if (!mReachable[static_cast<std::size_t>(i)]) continue;
            const IrNode& v = node(i);
            Need add;
            if (v.op == IrOp::Dilate || v.op == IrOp::Erode) add = {v.radius, v.radius};
            if (v.op == IrOp::Shift) add = {std::abs(v.dy), std::abs(v.dx)};
            for (int c : {v.a, v.b}) {
                if (c < 0) continue;
                Need& nc = mNeed[static_cast<std::size_t>(c)];
                const Need& ni = mNeed[static_cast<std::size_t>(i)];
                nc.rows = std::max(nc.rows, ni.rows + add.rows);
                nc.cells = std::max(nc.cells, ni.cells + add.cells);
                mReachable[static_cast<std::size_t>(c)] = true;
                if (isNeighbourhood(v.op)) mMaterialised[static_cast<std::size_t>(c)] = true;
            }
        }

        // Planes: gathered layers with a halo, random and noise masks, neighbourhood results,
        // and the materialised pure values (inputs of a neighbourhood operation).
        mPlaneOf.assign(n, -1);
        for (int i = 0; i <= mRoot; ++i) {
            if (!mReachable[static_cast<std::size_t>(i)]) continue;
            const IrNode& v = node(i);
            const Need nd = mNeed[static_cast<std::size_t>(i)];
            if (v.op == IrOp::Layer) {
                mLayers.push_back(v.layer);
                if (nd.rows > 0 || nd.cells > 0) addPlane(i);
            } else if (v.op == IrOp::Random || v.op == IrOp::Noise || v.op == IrOp::Relief) {
                addPlane(i);
            } else if (i != mRoot &&
                       (isNeighbourhood(v.op) || (isPure(v.op) && mMaterialised[static_cast<std::size_t>(i)]))) {
                addPlane(i);
            }
            mOut.haloRows = std::max(mOut.haloRows, nd.rows);
            mOut.haloCells = std::max(mOut.haloCells, nd.cells);
        }

        // Steps: sources first, then every materialised value in dependency order.
        for (int i = 0; i <= mRoot; ++i) {
            if (!mReachable[static_cast<std::size_t>(i)] || mPlaneOf[static_cast<std::size_t>(i)] < 0) continue;
            const IrNode& v = node(i);
            Step s = windowStep(i, mPlaneOf[static_cast<std::size_t>(i)]);
            if (v.op == IrOp::Layer) {
                s.kind = StepKind::Gather;
                s.layer = v.layer;
            } else if (v.op == IrOp::Random) {
                s.kind = StepKind::Random;
                s.random = v.random;
            } else if (v.op == IrOp::Relief) {
                s.kind = StepKind::Relief;
                s.relief = v.relief;
            } else if (v.op == IrOp::Noise) {
                s.kind = StepKind::Noise;
                s.noise = v.noise;
                mMaxNoiseWords =
                    std::max(mMaxNoiseWords, mOut.planes[static_cast<std::size_t>(s.output)].wordsPerRow());
            } else {
                continue;
            }
            mOut.steps.push_back(s);
        }
        for (int i = 0; i <= mRoot; ++i) {
            if (!mReachable[static_cast<std::size_t>(i)]) continue;
            const IrNode& v = node(i);
            const int output = i == mRoot ? -1 : mPlaneOf[static_cast<std::size_t>(i)];
            if (isNeighbourhood(v.op)) {
                addNeighbourhoodStep(i, output);
            } else if (isPure(v.op) && mMaterialised[static_cast<std::size_t>(i)]) {
                addBooleanStep(i, output);
            } else if (i == mRoot) {
                addBooleanStep(i, output);  // a bare layer, random or noise: copied out
            }
        }

        std::sort(mLayers.begin(), mLayers.end());
        mLayers.erase(std::unique(mLayers.begin(), mLayers.end()), mLayers.end());
        mOut.layersRead = mLayers;
        std::sort(mDirect.begin(), mDirect.end());
        mDirect.erase(std::unique(mDirect.begin(), mDirect.end()), mDirect.end());
        mOut.directLayers = mDirect;
        layoutScratch();
    }

private:
    const IrNode& node(int i) const { return mNodes[static_cast<std::size_t>(i)]; }

    void addPlane(int i) {
        const Need nd = mNeed[static_cast<std::size_t>(i)];
        Plane p;
        p.marginRows = nd.rows;
        p.marginWords = wordsFor(nd.cells);
        mPlaneOf[static_cast<std::size_t>(i)] = static_cast<int>(mOut.planes.size());
        mOut.planes.push_back(p);
    }

    Step windowStep(int i, int output) const {
        Step s;
        s.output = output;
        if (output >= 0) {
            const Plane& p = mOut.planes[static_cast<std::size_t>(output)];
            s.marginRows = p.marginRows;
            s.marginWords = p.marginWords;
        }
        (void)i;
        return s;
    }

    void addNeighbourhoodStep(int i, int output) {
        const IrNode& v = node(i);
        Step s = windowStep(i, output);
        s.input = mPlaneOf[static_cast<std::size_t>(v.a)];
        const Plane& in = mOut.planes[static_cast<std::size_t>(s.input)];
        if (v.op == IrOp::Shift) {
            s.kind = StepKind::Shift;
            s.dx = v.dx;
            s.dy = v.dy;
        } else {
            s.kind = StepKind::Morph;
            s.dilate = v.op == IrOp::Dilate;
            s.element = v.element;
            s.radius = v.radius;
            const std::size_t inRows = 256 + 2 * static_cast<std::size_t>(s.marginRows + v.radius);
            mTempWords = std::max(mTempWords, inRows * static_cast<std::size_t>(in.wordsPerRow()));
        }
        mOut.steps.push_back(s);
    }

    /// Streams the pure nodes under `target` (down to leaves and other materialised values)
    /// over target's window.
    void addBooleanStep(int target, int output) {
        Step s = windowStep(target, output);
        s.kind = StepKind::Boolean;
        const int width = 4 + 2 * s.marginWords;
        const int rows = 256 + 2 * s.marginRows;
        s.stripRows = std::clamp(kStripWords / width, 1, rows);
        mOut.registerWords = std::max(mOut.registerWords, static_cast<std::size_t>(s.stripRows * width));

        // The nodes computed in this step, in dependency order.
        std::vector<int> body;
        std::vector<char> seen(mNodes.size(), 0);
        collect(target, target, body, seen);
        std::sort(body.begin(), body.end());
        std::vector<int> lastUse(mNodes.size(), -1);
        for (std::size_t k = 0; k < body.size(); ++k) {
            const IrNode& v = node(body[k]);
            for (int c : {v.a, v.b}) {
                if (c >= 0) lastUse[static_cast<std::size_t>(c)] = static_cast<int>(k);
            }
        }

        std::vector<int> registerOf(mNodes.size(), -1);
        std::vector<char> busy;
        s.firstInstruction = static_cast<int>(mOut.instructions.size());
        if (body.empty()) {  // the root is a leaf: copy it out
            Instruction ins;
            ins.op = KernelOp::Copy;
            ins.a = operand(target, s, registerOf);
            ins.b = ins.a;
            mOut.instructions.push_back(ins);
        }
        for (std::size_t k = 0; k < body.size(); ++k) {
            const int i = body[k];
            const IrNode& v = node(i);
            Instruction ins;
            ins.op = kernelOf(v.op);
            ins.a = operand(v.a, s, registerOf);
            ins.b = v.b >= 0 ? operand(v.b, s, registerOf) : ins.a;
            // Registers of operands used for the last time are free before the result is
            // placed: the kernels work element by element, so d may be a or b.
            for (int c : {v.a, v.b}) {
                if (c >= 0 && registerOf[static_cast<std::size_t>(c)] >= 0 &&
                    lastUse[static_cast<std::size_t>(c)] == static_cast<int>(k)) {
                    busy[static_cast<std::size_t>(registerOf[static_cast<std::size_t>(c)])] = 0;
                }
            }
            if (i == target) {
                ins.dst = -1;
            } else {
                int r = 0;
                while (r < static_cast<int>(busy.size()) && busy[static_cast<std::size_t>(r)]) ++r;
                if (r == static_cast<int>(busy.size())) busy.push_back(0);
                busy[static_cast<std::size_t>(r)] = 1;
                registerOf[static_cast<std::size_t>(i)] = r;
                ins.dst = r;
            }
            mOut.instructions.push_back(ins);
        }
        mOut.registers = std::max(mOut.registers, static_cast<int>(busy.size()));
        s.instructionCount = static_cast<int>(mOut.instructions.size()) - s.firstInstruction;
        mOut.steps.push_back(s);
    }

    void collect(int i, int target, std::vector<int>& body, std::vector<char>& seen) const {
        if (seen[static_cast<std::size_t>(i)]) return;
        seen[static_cast<std::size_t>(i)] = 1;
        const IrNode& v = node(i);
        if (!isPure(v.op)) return;                                              // a leaf
        if (i != target && mMaterialised[static_cast<std::size_t>(i)]) return;  // computed by its own step
        for (int c : {v.a, v.b}) {
            if (c >= 0) collect(c, target, body, seen);
        }
        body.push_back(i);
    }

    Operand operand(int i, const Step& s, const std::vector<int>& registerOf) {
        Operand o;
        if (registerOf[static_cast<std::size_t>(i)] >= 0) {
            o.kind = Operand::Kind::Register;
            o.index = registerOf[static_cast<std::size_t>(i)];
            return o;
        }
        const int plane = mPlaneOf[static_cast<std::size_t>(i)];
        if (node(i).op == IrOp::Layer && (s.marginRows == 0 && s.marginWords == 0)) {
            // Without a halo the stage reads the source tile itself: no copy.
            o.kind = Operand::Kind::Layer;
            o.index = node(i).layer;
            mDirect.push_back(node(i).layer);
            return o;
        }
        const Plane& p = mOut.planes[static_cast<std::size_t>(plane)];
        o.kind = Operand::Kind::Plane;
        o.index = plane;
        o.offset = static_cast<std::size_t>(p.marginRows - s.marginRows) * static_cast<std::size_t>(p.wordsPerRow()) +
                   static_cast<std::size_t>(p.marginWords - s.marginWords);
        return o;
    }

    void layoutScratch() {
        std::size_t at = 0;
        int widest = 4;
        for (Plane& p : mOut.planes) {
            p.offset = at;
            at = roundUp4(at + p.words());
            widest = std::max(widest, p.wordsPerRow());
        }
        mOut.maxPlaneWords = widest;
        mOut.registerOffset = at;
        at = roundUp4(at + static_cast<std::size_t>(mOut.registers) * mOut.registerWords);
        mOut.tempPlaneOffset = at;
        at = roundUp4(at + mTempWords);
        mOut.noiseScratchOffset = at;
        if (mMaxNoiseWords > 0) at = roundUp4(at + (NoiseMask::scratchSize(mMaxNoiseWords) + 1) / 2);
        mOut.scratchWords = at;
    }

    const std::vector<IrNode>& mNodes;
    int mRoot;
    ProgramData& mOut;
    std::vector<char> mReachable;
    std::vector<char> mMaterialised;
    std::vector<Need> mNeed;
    std::vector<int> mPlaneOf;
    std::vector<int> mLayers;
    std::vector<int> mDirect;
    std::size_t mTempWords = 0;
    int mMaxNoiseWords = 0;
};

}  // namespace

LayerProgram::LayerProgram() : mData(emptyProgram()) {}
LayerProgram::~LayerProgram() = default;
LayerProgram::LayerProgram(const LayerProgram&) = default;
LayerProgram& LayerProgram::operator=(const LayerProgram&) = default;
LayerProgram::LayerProgram(LayerProgram&&) noexcept = default;
LayerProgram& LayerProgram::operator=(LayerProgram&&) noexcept = default;
LayerProgram::LayerProgram(std::shared_ptr<const ProgramData> data) : mData(std::move(data)) {}

Result<LayerProgram> LayerProgram::compile(std::string_view text, const std::vector<std::string>& layerNames,
                                           const ExpressionOptions& options, ExpressionDiagnostic* diagnostic) {
    Result<ExpressionAst> ast = ExpressionAst::parse(text, layerNames, options, diagnostic);
    if (!ast) return ast.error();
    return compile(*ast);
}

LayerProgram LayerProgram::compile(const ExpressionAst& ast, int node) {
    if (node < 0) node = ast.root;
    if (node < 0 || node >= static_cast<int>(ast.nodes.size())) return LayerProgram();

    // AST nodes come children first, so one pass maps each to its IR node.
    IrBuilder b;
    std::vector<int> ir(static_cast<std::size_t>(node) + 1, -1);
    const int zoom = ast.options.zoom;
    const std::uint64_t seed = ast.options.seed;
    for (int i = 0; i <= node; ++i) {
        const ExprNode& e = ast.nodes[static_cast<std::size_t>(i)];
        auto arg = [&](int k) { return ir[static_cast<std::size_t>(k)]; };
        int r = -1;
        switch (e.op) {
            case ExprOp::Layer:
                r = b.layer(e.layer);
                break;
            case ExprOp::All:
                r = b.ones();
                break;
            case ExprOp::None:
                r = b.zero();
                break;
            case ExprOp::Not:
                r = b.notOf(arg(e.a));
                break;
            case ExprOp::Or:
                r = b.binary(IrOp::Or, arg(e.a), arg(e.b));
                break;
            case ExprOp::Xor:
                r = b.binary(IrOp::Xor, arg(e.a), arg(e.b));
                break;
            case ExprOp::And:
                r = b.binary(IrOp::And, arg(e.a), arg(e.b));
                break;
            case ExprOp::AndNot:
                r = b.binary(IrOp::AndNot, arg(e.a), arg(e.b));
                break;
            case ExprOp::Dilate:
                r = b.morph(true, arg(e.a), e.radius, e.element);
                break;
            case ExprOp::Erode:
                r = b.morph(false, arg(e.a), e.radius, e.element);
                break;
            case ExprOp::Open:
                r = b.morph(true, b.morph(false, arg(e.a), e.radius, e.element), e.radius, e.element);
                break;
            case ExprOp::Close:
                r = b.morph(false, b.morph(true, arg(e.a), e.radius, e.element), e.radius, e.element);
                break;
            case ExprOp::Edge:
                r = b.binary(IrOp::AndNot, arg(e.a), b.morph(false, arg(e.a), 1, StructuringElement::Square));
                break;
            case ExprOp::Shift:
                r = b.shift(arg(e.a), e.dx, e.dy);
                break;
            case ExprOp::Random:
                r = b.random(RandomMask::make(seed, e.seed, zoom, e.probability));
                break;
            case ExprOp::Noise:
                r = b.noise(NoiseMask::make(seed, e.seed, zoom, e.scaleCells, e.threshold));
                break;
            case ExprOp::Height:
                r = b.relief(ReliefMask::make(ReliefMask::Kind::Height, e.above, e.below));
                break;
            case ExprOp::Slope:
                r = b.relief(ReliefMask::make(ReliefMask::Kind::Slope, e.above, e.below));
                break;
            case ExprOp::Aspect:
                r = b.relief(ReliefMask::make(ReliefMask::Kind::Aspect, e.direction, e.within));
                break;
        }
        ir[static_cast<std::size_t>(i)] = r;
    }

    auto data = std::make_shared<ProgramData>();
    data->zoom = zoom;
    data->layerCount = ast.layerCount;
    Planner(b.nodes, ir[static_cast<std::size_t>(node)], *data).run();
    return LayerProgram(std::move(data));
}

int LayerProgram::zoom() const { return mData->zoom; }
int LayerProgram::layerCount() const { return mData->layerCount; }
std::span<const int> LayerProgram::layersRead() const { return mData->layersRead; }
int LayerProgram::haloRows() const { return mData->haloRows; }
int LayerProgram::haloCells() const { return mData->haloCells; }
std::size_t LayerProgram::scratchWords() const { return mData->scratchWords; }

std::string LayerProgram::listing() const {
    const ProgramData& d = *mData;
    auto where = [&](const Step& s) {
        return s.output < 0 ? std::string("out")
                            : "p" + std::to_string(s.output) + " (halo " + std::to_string(s.marginRows) + " rows, " +
                                  std::to_string(s.marginWords) + " words)";
    };
    auto name = [](const Operand& o) {
        switch (o.kind) {
            case Operand::Kind::Register:
                return "r" + std::to_string(o.index);
            case Operand::Kind::Plane:
                return "p" + std::to_string(o.index);
            case Operand::Kind::Layer:
                return "layer" + std::to_string(o.index);
        }
        return std::string("?");
    };
    std::string out;
    for (const Step& s : d.steps) {
        switch (s.kind) {
            case StepKind::Fill:
                out += where(s) + " = " + (s.fillOnes ? "all" : "none");
                break;
            case StepKind::Gather:
                out += where(s) + " = gather layer" + std::to_string(s.layer);
                break;
            case StepKind::Random:
                out += where(s) + " = random";
                break;
            case StepKind::Noise:
                out += where(s) + " = noise";
                break;
            case StepKind::Relief: {
                const ReliefMask& m = s.relief;
                auto bound = [](double v) {
                    char text[32];
                    std::snprintf(text, sizeof text, "%g", v);
                    return std::string(text);
                };
                if (m.kind == ReliefMask::Kind::Aspect) {
                    out += where(s) + " = aspect " + bound(m.direction) + " within " + bound(m.within);
                } else {
                    out += where(s) + " = " + (m.kind == ReliefMask::Kind::Height ? "height" : "slope");
                    if (std::isfinite(m.above)) out += " >" + bound(m.above);
                    if (std::isfinite(m.below)) out += " <" + bound(m.below);
                }
                break;
            }
            case StepKind::Morph:
                out += where(s) + " = " + (s.dilate ? "dilate" : "erode") + " p" + std::to_string(s.input) +
                       " r=" + std::to_string(s.radius) + (s.element == StructuringElement::Disk ? " disk" : " square");
                break;
            case StepKind::Shift:
                out += where(s) + " = shift p" + std::to_string(s.input) + " dx=" + std::to_string(s.dx) +
                       " dy=" + std::to_string(s.dy);
                break;
            case StepKind::Boolean: {
                out += where(s) + " = stream " + std::to_string(s.instructionCount) + " ops in strips of " +
                       std::to_string(s.stripRows) + " rows:";
                for (int k = 0; k < s.instructionCount; ++k) {
                    const Instruction& ins = d.instructions[static_cast<std::size_t>(s.firstInstruction + k)];
                    out += "\n    " + (ins.dst < 0 ? std::string("out") : "r" + std::to_string(ins.dst)) + " = " +
                           kernelName(ins.op) + " " + name(ins.a);
                    if (ins.op != KernelOp::Copy && ins.op != KernelOp::Not) out += " " + name(ins.b);
                }
                break;
            }
        }
        out += '\n';
    }
    return out;
}

}  // namespace terrabit::core::algebra
