#include "terrabit/render/instanced_block.h"
#include "instanced_block_p.h"

#include <osg/Program>
#include <osg/Shader>
#include <osg/Texture2D>
#include <osg/TextureBuffer>
#include <osg/Uniform>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "instancing_p.h"
#include "terrabit/render/instanced_elements.h"

namespace terrabit::render {

namespace {

// The instance transform is T · Ry · S with per-axis scale (core::transformMatrix), kept as its
// five entries that are not 0 or 1 and its translation, in kTexelsPerInstance texels: (tx, ty, tz,
// sy) and (c·sx, -s·sx, s·sz, c·sz). Half a 4 × 4 matrix's texels, so half the graphics memory and
// half an osgb file's transform bytes, and the shader rebuilds the matrix from the same floats.
// Normals take its inverse transpose, which for R · S is R · S⁻¹: each column divided by its
// squared length. The model's vertex colours are display values already (AssetModel), lit like
// fixed-function GL lights the ground: ambient from the light model plus light 0's diffuse term.
// Two ways to fetch the texels: the live graph's samplerBuffer, and for files (osgDB does not
// write a texture buffer's data) a float texture whose rows hold whole instances.
constexpr const char* kBufferFetch = R"(#version 330 compatibility
uniform samplerBuffer terrabitInstances;
vec4 instanceTexel(int i) { return texelFetch(terrabitInstances, gl_InstanceID * 2 + i); }
)";

constexpr const char* kTextureFetch = R"(#version 330 compatibility
uniform sampler2D terrabitInstances;
vec4 instanceTexel(int i) {
    int texel = gl_InstanceID * 2 + i;
    int width = textureSize(terrabitInstances, 0).x;
    return texelFetch(terrabitInstances, ivec2(texel % width, texel / width), 0);
}
)";

constexpr const char* kVertexBody = R"(
out vec4 vColour;
out vec3 vNormal;
void main() {
    vec4 a = instanceTexel(0), b = instanceTexel(1);
    mat4 m = mat4(vec4(b.x, 0.0, b.y, 0.0), vec4(0.0, a.w, 0.0, 0.0), vec4(b.z, 0.0, b.w, 0.0), vec4(a.xyz, 1.0));
    vec3 c0 = m[0].xyz, c1 = m[1].xyz, c2 = m[2].xyz;
    mat3 normalMatrix = mat3(c0 / max(dot(c0, c0), 1e-12), c1 / max(dot(c1, c1), 1e-12),
                             c2 / max(dot(c2, c2), 1e-12));
    vNormal = gl_NormalMatrix * (normalMatrix * gl_Normal);
    vColour = gl_Color;
    gl_Position = gl_ModelViewProjectionMatrix * (m * gl_Vertex);
}
)";

constexpr const char* kFragmentShader = R"(#version 330 compatibility
in vec4 vColour;
in vec3 vNormal;
void main() {
    vec3 n = normalize(vNormal);
    vec3 l = normalize(gl_LightSource[0].position.xyz);
    float diffuse = max(dot(n, l), 0.0);
    vec3 light = gl_LightModel.ambient.rgb + gl_LightSource[0].ambient.rgb + gl_LightSource[0].diffuse.rgb * diffuse;
    gl_FragColor = vec4(vColour.rgb * light, vColour.a);
}
)";

static_assert(detail::kTexelsPerInstance == 2, "the shaders above fetch two texels per instance");

/// Instances per row of a file's transform texture (4096 texels wide, well within every GL's
/// texture size limit).
constexpr int kInstancesPerRow = 4096 / detail::kTexelsPerInstance;

osg::ref_ptr<osg::Program> makeProgram(const char* name, const char* fetch) {
    osg::ref_ptr<osg::Program> p = new osg::Program;
    p->setName(name);
    p->addShader(new osg::Shader(osg::Shader::VERTEX, std::string(fetch) + kVertexBody));
    p->addShader(new osg::Shader(osg::Shader::FRAGMENT, kFragmentShader));
    return p;
}

osg::ref_ptr<osg::Program> sharedProgram() {
    // One program object for every graph: OSG then links it once per context.
    static const osg::ref_ptr<osg::Program> program = makeProgram(detail::kInstancingProgramName, kBufferFetch);
    return program;
}

osg::BoundingBox toOsg(const core::Box3f& b) { return {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z}; }

/// Returns a fixed box: OSG would otherwise compute the bound of the untransformed model, at the
/// origin, and cull every instance whenever the origin leaves the view.
class FixedBound : public osg::Drawable::ComputeBoundingBoxCallback {
public:
    explicit FixedBound(const osg::BoundingBox& box) : mBox(box) {}
    osg::BoundingBox computeBound(const osg::Drawable&) const override { return mBox; }

private:
    osg::BoundingBox mBox;
};

}  // namespace

osg::ref_ptr<osg::StateSet> makeInstancingStateSet() {
    osg::ref_ptr<osg::StateSet> state = new osg::StateSet;
    state->setAttributeAndModes(sharedProgram(), osg::StateAttribute::ON);
    state->addUniform(new osg::Uniform(kInstanceSamplerName, kInstanceTextureUnit));
    return state;
}

osg::BoundingBox instanceBounds(const core::ModelBounds& model, std::span<const core::Instance> instances) {
    osg::BoundingBox box;
    if (model.empty()) return box;
    for (const core::Instance& instance : instances) {
        const std::array<float, 16> m = core::transformMatrix(instance);
        for (int corner = 0; corner < 8; ++corner) {
            const double x = (corner & 1) ? model.max[0] : model.min[0];
            const double y = (corner & 2) ? model.max[1] : model.min[1];
            const double z = (corner & 4) ? model.max[2] : model.min[2];
            box.expandBy(static_cast<float>(m[0] * x + m[4] * y + m[8] * z + m[12]),
                         static_cast<float>(m[1] * x + m[5] * y + m[9] * z + m[13]),
                         static_cast<float>(m[2] * x + m[6] * y + m[10] * z + m[14]));
        }
    }
    return box;
}

osg::ref_ptr<osg::TextureBuffer> instanceTransformBuffer(std::span<const core::Instance> instances) {
    const auto count = static_cast<int>(instances.size());
    osg::ref_ptr<osg::Image> transforms = new osg::Image;
    transforms->allocateImage(detail::kTexelsPerInstance * count, 1, 1, GL_RGBA, GL_FLOAT);
    transforms->setInternalTextureFormat(GL_RGBA32F_ARB);
    auto* out = reinterpret_cast<float*>(transforms->data());
    for (const core::Instance& instance : instances) {
        out = detail::packTransform(core::transformMatrix(instance), out);
    }
    osg::ref_ptr<osg::TextureBuffer> buffer = new osg::TextureBuffer(transforms);
    buffer->setInternalFormat(GL_RGBA32F_ARB);
    return buffer;
}

osg::ref_ptr<osg::Geode> makeInstancedBlock(const AssetModel& model, std::span<const core::Instance> instances,
                                            const core::Box3f& bounds) {
    if (!model.geometry() || instances.empty()) return nullptr;
    return makeInstancedBlock(model, instances, bounds, instanceTransformBuffer(instances));
}

osg::ref_ptr<osg::Geode> makeInstancedBlock(const AssetModel& model, std::span<const core::Instance> instances,
                                            const core::Box3f& bounds, osg::ref_ptr<osg::TextureBuffer> buffer) {
    const osg::ref_ptr<osg::Geometry> shared = model.geometry();
    if (!shared || instances.empty() || !buffer || shared->getNumPrimitiveSets() == 0) return nullptr;
    const osg::DrawElements* indices = shared->getPrimitiveSet(0)->getDrawElements();
    if (!indices) return nullptr;
    const auto count = static_cast<int>(instances.size());

    osg::ref_ptr<osg::Geometry> geometry = new osg::Geometry;
    geometry->setName("instances");
    geometry->setVertexArray(shared->getVertexArray());
    geometry->setNormalArray(shared->getNormalArray(), osg::Array::BIND_PER_VERTEX);
    geometry->setColorArray(shared->getColorArray(), osg::Array::BIND_PER_VERTEX);
    geometry->setUseDisplayList(false);
    geometry->setUseVertexBufferObjects(true);
    geometry->addPrimitiveSet(new InstancedElements(indices, count));
    geometry->setStateSet(shared->getStateSet());  // the model's material and face culling

    const osg::BoundingBox box = bounds.empty() ? instanceBounds(model.bounds(), instances) : toOsg(bounds);
    geometry->setInitialBound(box);
    geometry->setComputeBoundingBoxCallback(new FixedBound(box));

    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->addDrawable(geometry);
    // Not ...AndModes: GL_TEXTURE_BUFFER is no enable cap, and glEnable on it fails every frame.
    geode->getOrCreateStateSet()->setTextureAttribute(kInstanceTextureUnit, buffer);
    return geode;
}

std::span<const float> instanceTransforms(const osg::Geometry& geometry) {
    const osg::Node* parent = geometry.getNumParents() > 0 ? geometry.getParent(0) : nullptr;
    const osg::StateSet* state = parent ? parent->getStateSet() : nullptr;
    const osg::StateAttribute* texture =
        state ? state->getTextureAttribute(kInstanceTextureUnit, osg::StateAttribute::TEXTURE) : nullptr;
    const osg::Image* image = nullptr;
    if (const auto* buffer = dynamic_cast<const osg::TextureBuffer*>(texture)) {
        image = buffer->getImage();
    } else if (const auto* file = dynamic_cast<const osg::Texture2D*>(texture)) {
        image = file->getImage();
    }
    if (!image || image->getDataType() != GL_FLOAT || geometry.getNumPrimitiveSets() == 0) return {};
    const auto instances = static_cast<std::size_t>(std::max(0, geometry.getPrimitiveSet(0)->getNumInstances()));
    const std::size_t floats = static_cast<std::size_t>(image->s()) * static_cast<std::size_t>(image->t()) * 4;
    return {reinterpret_cast<const float*>(image->data()), std::min(instances * detail::kFloatsPerInstance, floats)};
}

std::array<float, 16> instanceMatrix(std::span<const float> transforms, std::size_t k) {
    const float* t = transforms.data() + k * detail::kFloatsPerInstance;
    return {t[4], 0.0f, t[5], 0.0f, 0.0f, t[3], 0.0f, 0.0f, t[6], 0.0f, t[7], 0.0f, t[0], t[1], t[2], 1.0f};
}

namespace detail {

float* packTransform(const std::array<float, 16>& m, float* out) {
    const std::array<float, kFloatsPerInstance> packed{m[12], m[13], m[14], m[5], m[0], m[2], m[8], m[10]};
    std::memcpy(out, packed.data(), sizeof(packed));
    return out + kFloatsPerInstance;
}

osg::ref_ptr<osg::Program> fileInstancingProgram() {
    static const osg::ref_ptr<osg::Program> program = makeProgram(kFileInstancingProgramName, kTextureFetch);
    return program;
}

osg::ref_ptr<osg::Texture2D> fileTransformTexture(const osg::Image& buffer) {
    const int instances = buffer.s() / kTexelsPerInstance;
    const int perRow = std::max(1, std::min(instances, kInstancesPerRow));
    const int rows = (instances + perRow - 1) / perRow;
    osg::ref_ptr<osg::Image> image = new osg::Image;
    image->allocateImage(kTexelsPerInstance * perRow, std::max(rows, 1), 1, GL_RGBA, GL_FLOAT);
    image->setInternalTextureFormat(GL_RGBA32F_ARB);
    std::memset(image->data(), 0, image->getTotalSizeInBytes());
    // Row-major and whole instances per row: instance i's texels are contiguous, as in the buffer.
    std::memcpy(image->data(), buffer.data(), static_cast<std::size_t>(instances) * kFloatsPerInstance * sizeof(float));
    osg::ref_ptr<osg::Texture2D> texture = new osg::Texture2D(image.get());
    texture->setInternalFormat(GL_RGBA32F_ARB);
    texture->setSourceType(GL_FLOAT);
    texture->setFilter(osg::Texture::MIN_FILTER, osg::Texture::NEAREST);
    texture->setFilter(osg::Texture::MAG_FILTER, osg::Texture::NEAREST);
    texture->setResizeNonPowerOfTwoHint(false);  // a resampled matrix is no matrix
    texture->setUseHardwareMipMapGeneration(false);
    return texture;
}

}  // namespace detail

}  // namespace terrabit::render
