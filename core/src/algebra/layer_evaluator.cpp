#include "terrabit/core/algebra/layer_evaluator.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>

#include "program_p.h"
#include "terrabit/core/terrain/height_tile.h"

namespace terrabit::core::algebra {

namespace {

using Word = std::uint64_t;

constexpr std::align_val_t kScratchAlignment{64};

void freeScratch(std::uint64_t* p) { ::operator delete[](p, kScratchAlignment); }

std::uint64_t* allocateScratch(std::size_t words) {
    // At least one cache line, so an evaluator of the empty program still owns a valid buffer.
    return static_cast<std::uint64_t*>(
        ::operator new[](std::max<std::size_t>(words, 8) * sizeof(Word), kScratchAlignment));
}

const BitTile& zeroTile() {
    static const BitTile zero;
    return zero;
}

/// floor(a / b) for b > 0.
int floorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// Copies a layer over a plane's window from the tile and its neighbours; absent tiles (and rows
/// beyond the world's north and south edges) are clear.
void gather(const LayerSource& source, const TileId& tile, int layer, const Plane& plane, Word* dst) {
    const int mr = plane.marginRows;
    const int mw = plane.marginWords;
    const int width = plane.wordsPerRow();
    const int tyFirst = floorDiv(-mr, 256), tyLast = floorDiv(255 + mr, 256);
    const int txFirst = floorDiv(-mw, 4), txLast = floorDiv(3 + mw, 4);
    for (int ty = tyFirst; ty <= tyLast; ++ty) {
        const int y0 = std::max(-mr, 256 * ty), y1 = std::min(256 + mr, 256 * ty + 256);
        for (int tx = txFirst; tx <= txLast; ++tx) {
            const int w0 = std::max(-mw, 4 * tx), w1 = std::min(4 + mw, 4 * tx + 4);
            const BitTile* t = nullptr;
            if (tx == 0 && ty == 0) {
                t = source.tile(tile, layer);
            } else if (const std::optional<TileId> n = tile.neighbour(tx, ty)) {
                t = source.tile(*n, layer);
            }
            // At most 4 words per row: a plain loop, where a memcpy call per row would cost more
            // than the copy.
            const int n = w1 - w0;
            for (int y = y0; y < y1; ++y) {
                Word* row = dst + static_cast<std::ptrdiff_t>(y + mr) * width + (w0 + mw);
                if (t) {
                    const Word* src = t->row(y - 256 * ty) + (w0 - 4 * tx);
                    for (int k = 0; k < n; ++k) row[k] = src[k];
                } else {
                    for (int k = 0; k < n; ++k) row[k] = 0;
                }
            }
        }
    }
}

/// Fills a relief mask over a plane's window: each covered tile's cells from that tile's own
/// heights; tiles without heights (or beyond the world's north and south edges) are clear.
void relief(const LayerSource& source, const TileId& tile, const ReliefMask& mask, int mr, int mw, Word* dst) {
    const int width = 4 + 2 * mw;
    const int tyFirst = floorDiv(-mr, 256), tyLast = floorDiv(255 + mr, 256);
    const int txFirst = floorDiv(-mw, 4), txLast = floorDiv(3 + mw, 4);
    for (int ty = tyFirst; ty <= tyLast; ++ty) {
        const int y0 = std::max(-mr, 256 * ty), y1 = std::min(256 + mr, 256 * ty + 256);
        for (int tx = txFirst; tx <= txLast; ++tx) {
            const int w0 = std::max(-mw, 4 * tx), w1 = std::min(4 + mw, 4 * tx + 4);
            const terrain::HeightTile* h = nullptr;
            if (tx == 0 && ty == 0) {
                h = source.heights(tile);
            } else if (const std::optional<TileId> n = tile.neighbour(tx, ty)) {
                h = source.heights(*n);
            }
            if (h && h->heights.size() != terrain::kHeightSampleCount) h = nullptr;  // never filled
            const int n = w1 - w0;
            for (int y = y0; y < y1; ++y) {
                Word* row = dst + static_cast<std::ptrdiff_t>(y + mr) * width + (w0 + mw);
                if (h) {
                    mask.fillRow(*h, y - 256 * ty, w0 - 4 * tx, n, row);
                } else {
                    for (int k = 0; k < n; ++k) row[k] = 0;
                }
            }
        }
    }
}

}  // namespace

LayerEvaluator::LayerEvaluator(LayerProgram program)
    : mProgram(std::move(program)),
      mScratch(allocateScratch(mProgram.scratchWords()), &freeScratch),
      mLayerRows(static_cast<std::size_t>(mProgram.layerCount()), nullptr) {
    std::memset(mScratch.get(), 0, std::max<std::size_t>(mProgram.scratchWords(), 8) * sizeof(Word));
}

LayerEvaluator::~LayerEvaluator() = default;
LayerEvaluator::LayerEvaluator(LayerEvaluator&&) noexcept = default;
LayerEvaluator& LayerEvaluator::operator=(LayerEvaluator&&) noexcept = default;

Status LayerEvaluator::evaluate(const LayerSource& source, const TileId& tile, BitTile& out) {
    const ProgramData& p = mProgram.data();
    if (p.zoom >= 0 && tile.zoom != p.zoom) {
        return Error{"layer expression: tile " + tile.quadkey() + " is at zoom " + std::to_string(tile.zoom) +
                     " but the expression was compiled for zoom " + std::to_string(p.zoom)};
    }
    if (static_cast<int>(source.layerNames().size()) < p.layerCount) {
        return Error{"layer expression: the source has " + std::to_string(source.layerNames().size()) +
                     " layers but the expression was compiled against " + std::to_string(p.layerCount)};
    }

    Word* scratch = mScratch.get();
    for (int layer : p.directLayers) {
        const BitTile* t = source.tile(tile, layer);
        mLayerRows[static_cast<std::size_t>(layer)] = (t ? *t : zeroTile()).words().data();
    }
    Word* outWords = out.words().data();
    auto target = [&](const Step& s) {
        return s.output < 0 ? outWords : scratch + p.planes[static_cast<std::size_t>(s.output)].offset;
    };
    const std::int64_t tileX = std::int64_t{tile.x} * 256;
    const std::int64_t tileY = std::int64_t{tile.y} * 256;

    for (const Step& s : p.steps) {
        const int width = 4 + 2 * s.marginWords;
        const int rows = 256 + 2 * s.marginRows;
        Word* dst = target(s);
        switch (s.kind) {
            case StepKind::Fill:
                std::memset(dst, s.fillOnes ? 0xff : 0, sizeof(Word) * BitTile::kWords);
                break;
            case StepKind::Gather:
                gather(source, tile, s.layer, p.planes[static_cast<std::size_t>(s.output)], dst);
                break;
            case StepKind::Random:
                for (int y = 0; y < rows; ++y) {
                    s.random.fillRow(tileX - 64 * s.marginWords, tileY + y - s.marginRows,
                                     dst + std::ptrdiff_t{y} * width, width);
                }
                break;
            case StepKind::Noise: {
                auto* ints = reinterpret_cast<std::int32_t*>(scratch + p.noiseScratchOffset);
                const std::span<std::int32_t> noiseScratch(ints,
                                                           static_cast<std::size_t>(NoiseMask::scratchSize(width)));
                for (int y = 0; y < rows; ++y) {
                    s.noise.fillRow(tileX - 64 * s.marginWords, tileY + y - s.marginRows,
                                    dst + std::ptrdiff_t{y} * width, width, noiseScratch);
                }
                break;
            }
            case StepKind::Relief:
                relief(source, tile, s.relief, s.marginRows, s.marginWords, dst);
                break;
            case StepKind::Boolean: {
                // This code is hot: strips of rows through every instruction, registers in L1.
                Word* registers = scratch + p.registerOffset;
                for (int r0 = 0; r0 < rows; r0 += s.stripRows) {
                    const int n = std::min(s.stripRows, rows - r0);
                    for (int k = 0; k < s.instructionCount; ++k) {
                        const Instruction& ins = p.instructions[static_cast<std::size_t>(s.firstInstruction + k)];
                        auto resolve = [&](const Operand& o, int& stride) -> const Word* {
                            switch (o.kind) {
                                case Operand::Kind::Register:
                                    stride = width;
                                    return registers + static_cast<std::size_t>(o.index) * p.registerWords;
                                case Operand::Kind::Plane: {
                                    const Plane& pl = p.planes[static_cast<std::size_t>(o.index)];
                                    stride = pl.wordsPerRow();
                                    return scratch + pl.offset + o.offset + static_cast<std::size_t>(r0) * stride;
                                }
                                case Operand::Kind::Layer:
                                    stride = BitTile::kWordsPerRow;
                                    return mLayerRows[static_cast<std::size_t>(o.index)] + r0 * BitTile::kWordsPerRow;
                            }
                            return nullptr;
                        };
                        int sa = 0, sb = 0;
                        const Word* a = resolve(ins.a, sa);
                        const Word* b = resolve(ins.b, sb);
                        Word* d = ins.dst < 0 ? dst + static_cast<std::size_t>(r0) * width
                                              : registers + static_cast<std::size_t>(ins.dst) * p.registerWords;
                        applyRows(ins.op, d, width, a, sa, b, sb, n, width);
                    }
                }
                break;
            }
            case StepKind::Morph: {
                const Plane& in = p.planes[static_cast<std::size_t>(s.input)];
                const int inStride = in.wordsPerRow();
                const int skip = in.marginRows - s.marginRows - s.radius;
                const Word* first = scratch + in.offset + static_cast<std::size_t>(skip) * inStride;
                const int inRows = rows + 2 * s.radius;
                Word* temp = scratch + p.tempPlaneOffset;
                if (s.element == StructuringElement::Square) {
                    morphSquare(s.dilate, s.radius, first, inStride, inRows, dst, width, width,
                                in.marginWords - s.marginWords, temp);
                } else {
                    morphDisk(s.dilate, s.radius, first, inStride, inRows, dst, width, width,
                              in.marginWords - s.marginWords, temp);
                }
                break;
            }
            case StepKind::Shift: {
                const Plane& in = p.planes[static_cast<std::size_t>(s.input)];
                const int inStride = in.wordsPerRow();
                const int skip = in.marginRows - s.marginRows - s.dy;
                const Word* first = scratch + in.offset + static_cast<std::ptrdiff_t>(skip) * inStride;
                // Output word j starts at cell 64 (j - marginWords) - dx of the tile, which is bit
                // 64 (j + in.marginWords - marginWords) - dx of the input row.
                const int p0 = 64 * (in.marginWords - s.marginWords) - s.dx;
                shiftRows(first, inStride, inStride, dst, width, rows, width, p0 >> 6, p0 & 63);
                break;
            }
        }
    }
    return {};
}

}  // namespace terrabit::core::algebra
