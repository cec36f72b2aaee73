#pragma once
/// Surface textures: the look of a road or water surface as a small tiling picture, made here
/// from code (no downloaded art), as the default models are. A texture repeats every
/// `repeatMetres` on the ground, in world coordinates, so it runs on across tile edges; it is
/// the surface's colour (its rule's or its layer's) with the texture's detail over it.
///
/// The exports embed it (GLB and 3D Tiles as a JPEG image, OSGB and the viewport as an image in
/// the graph); `terrabit-assetgen --textures DIR` writes them out to look at.

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "terrabit/core/result.h"

namespace terrabit::core {

/// Which texture a surface wears (a surface pass's `texture`).
enum class SurfaceTexture : std::uint8_t {
    None,     ///< plain colour
    Asphalt,  ///< fine grey grain with aggregate specks
    Paving,   ///< square slabs with joints
    Gravel,   ///< coarse pebbles
    Water,    ///< soft ripples
};

/// The words a rules file names them by, in the enum's order.
inline constexpr std::array<std::string_view, 5> kSurfaceTextureWords{"none", "asphalt", "paving", "gravel", "water"};

/// A square RGB picture, rows from the north (glTF's and image files' order): texel (i, j) lies
/// i / size of a repeat east and j / size of a repeat south of where the repeat starts.
struct TextureImage {
    int size = 0;
    std::vector<std::uint8_t> rgb;  ///< size × size × 3, sRGB
    double repeatMetres = 1.0;      ///< ground metres one copy covers, each way
};

/// The texture in `colour` (sRGB): its mean is close to the colour, its detail the kind's. The
/// same bytes on every machine (integer hashing, no library noise). Tiles seamlessly: the left
/// column continues from the right one, the top row from the bottom one. None gives a 1 × 1
/// picture of the colour.
TextureImage surfaceTexture(SurfaceTexture kind, std::array<std::uint8_t, 3> colour);

/// The ground metres one copy of a kind's texture covers.
double surfaceTextureRepeatMetres(SurfaceTexture kind);

/// The picture as a baseline JPEG (quality 90): what GLB and 3D Tiles embed.
Result<std::vector<std::uint8_t>> encodeJpeg(const TextureImage& image);
/// encodeJpeg(surfaceTexture(kind, colour)), made once per process and shared (thread-safe):
/// every tile content of a 3D Tiles export embeds the same few pictures.
Result<std::shared_ptr<const std::vector<std::uint8_t>>> surfaceTextureJpeg(SurfaceTexture kind,
                                                                            std::array<std::uint8_t, 3> colour);
/// The picture as a PNG (lossless): what assetgen writes.
Result<std::vector<std::uint8_t>> encodePng(const TextureImage& image);

}  // namespace terrabit::core
