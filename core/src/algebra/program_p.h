#pragma once
// The compiled form of a layer expression, shared by the compiler (layer_program.cpp) and the
// evaluator (layer_evaluator.cpp). Private to core.
//
// Memory model: an evaluator owns one scratch buffer of ProgramData::scratchWords words. Every
// materialised value is a Plane inside it: the tile plus a halo of marginRows rows above and
// below and marginWords 64-cell words left and right, row-major. Plane row i is tile row
// i - marginRows; plane word j is tile word j - marginWords (tile word w holds cells 64w..64w+63).
// The cells of a plane that are more than its needed halo away from the tile (the rounding of the
// halo up to whole words) may hold anything: no step reads them for a cell it needs.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "terrabit/core/algebra/expression_ast.h"
#include "terrabit/core/algebra/noise_mask.h"
#include "terrabit/core/algebra/random_mask.h"
#include "terrabit/core/algebra/relief_mask.h"

namespace terrabit::core::algebra {

/// Row-wise boolean kernels, d = op(a, b).
enum class KernelOp : std::uint8_t { Copy, Not, And, Or, Xor, AndNot, OrNot, Xnor };

struct Plane {
    int marginRows = 0;      // rows of halo above and below the tile
    int marginWords = 0;     // words of halo left and right of the tile
    std::size_t offset = 0;  // first word in the scratch buffer (a multiple of 4)
    int wordsPerRow() const { return 4 + 2 * marginWords; }
    int rows() const { return 256 + 2 * marginRows; }
    std::size_t words() const { return static_cast<std::size_t>(wordsPerRow()) * static_cast<std::size_t>(rows()); }
};

/// An operand of a boolean instruction.
struct Operand {
    enum class Kind : std::uint8_t {
        Register,  // index = register; rows of the current strip, stride = the stage's width
        Plane,     // index = plane; offset = words from the plane's start to the stage window
        Layer,     // index = layer id; the source tile itself (only in stages without halo)
    };
    Kind kind = Kind::Register;
    int index = 0;
    std::size_t offset = 0;
};

struct Instruction {
    KernelOp op = KernelOp::Copy;
    int dst = -1;  // register, or -1 for the stage's output
    Operand a;
    Operand b;  // unused by Copy and Not
};

enum class StepKind : std::uint8_t {
    Fill,     // output = all ones (fillOnes) or all zeros
    Gather,   // plane = layer over the plane's window, read from the tile and its neighbours
    Random,   // plane = random mask over its window
    Noise,    // plane = noise mask over its window
    Relief,   // plane = relief mask over its window, from each covered tile's own heights
    Boolean,  // output = instructions streamed over the window in strips of rows
    Morph,    // output = dilate/erode(input plane)
    Shift,    // output = shift(input plane)
};

struct Step {
    StepKind kind = StepKind::Fill;
    int output = -1;  // plane written, or -1 for the output tile (margins 0)
    // Fill
    bool fillOnes = false;
    // Gather
    int layer = -1;
    // Random / Noise
    RandomMask random;
    NoiseMask noise;
    // Relief
    ReliefMask relief;
    // Boolean: instructions [firstInstruction, firstInstruction + instructionCount)
    int firstInstruction = 0;
    int instructionCount = 0;
    int stripRows = 0;  // rows per strip
    // Morph / Shift
    int input = -1;  // plane read
    bool dilate = true;
    StructuringElement element = StructuringElement::Square;
    int radius = 0;
    int dx = 0;
    int dy = 0;
    // The window of the output: margins of the output plane (0 for the output tile).
    int marginRows = 0;
    int marginWords = 0;
};

struct ProgramData {
    int zoom = -1;  // -1: any zoom (the empty program)
    int layerCount = 0;
    std::vector<int> layersRead;    // ascending
    std::vector<int> directLayers;  // layers read straight from the tile (stages without halo)
    std::vector<Plane> planes;
    std::vector<Step> steps;
    std::vector<Instruction> instructions;
    int registers = 0;                   // strip registers
    std::size_t registerWords = 0;       // words per register
    std::size_t registerOffset = 0;      // first register in the scratch
    std::size_t tempPlaneOffset = 0;     // a temporary plane for separable morphology
    std::size_t noiseScratchOffset = 0;  // int32 scratch for noise rows (in words)
    int maxPlaneWords = 0;               // widest plane row, in words
    std::size_t scratchWords = 0;
    int haloRows = 0;
    int haloCells = 0;
};

/// Words per boolean strip register: strips are this many words (rows x width) so that a few
/// registers and their operands stay in L1.
inline constexpr int kStripWords = 256;

// -- kernels (bit_kernels.cpp) --------------------------------------------------------------------

/// d = op(a, b) over `rows` rows of `words` words; sd, sa, sb are the row strides in words.
/// d may equal a or b (element-wise, ascending order), or point sd*k words before b for k >= 1.
void applyRows(KernelOp op, std::uint64_t* d, int sd, const std::uint64_t* a, int sa, const std::uint64_t* b, int sb,
               int rows, int words);

/// Morphology with a square of radius r (0..64): out = dilate/erode(in). `in` points at the
/// first of inRows input rows of inStride words; output row y is centred on input row y + r
/// (so there are inRows - 2r output rows) and output word j on input word wordOffset + j.
/// temp needs inRows * inStride words.
void morphSquare(bool dilate, int r, const std::uint64_t* in, int inStride, int inRows, std::uint64_t* out,
                 int outStride, int outWords, int wordOffset, std::uint64_t* temp);
/// The same with a disk (dx² + dy² <= r²); temp needs inRows * inStride words too.
void morphDisk(bool dilate, int r, const std::uint64_t* in, int inStride, int inRows, std::uint64_t* out, int outStride,
               int outWords, int wordOffset, std::uint64_t* temp);

/// out = in shifted: output row y, word j holds the cells of input row y starting at bit
/// 64 * (firstSourceWord + j) + bit of the row (bit 0..63); input words outside [0, inWords) read
/// as clear. in points at the input row matching output row 0.
void shiftRows(const std::uint64_t* in, int inStride, int inWords, std::uint64_t* out, int outStride, int outRows,
               int outWords, int firstSourceWord, int bit);

}  // namespace terrabit::core::algebra
