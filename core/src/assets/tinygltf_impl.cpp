// The one translation unit of the whole project that compiles tinygltf's implementation
// (Debian ships it header-only style; linking Debian's libtinygltf.so as well would define
// everything twice). terrabit_core links PUBLIC to nlohmann_json and stb, so render, export
// and tests include <tiny_gltf.h> and use these symbols without defining them again.
// stb_image's own implementation comes from Debian's libstb, not from here.
#define TINYGLTF_IMPLEMENTATION
#include <tiny_gltf.h>
