#include "terrabit/core/export/scene_tile_items.h"

namespace terrabit::core {

SceneTileItems::SceneTileItems(const Scene& scene) {
    for (const SurfacePatch& s : scene.surfaces) mByTile[s.tile].surfaces.push_back(&s);
    for (const InstanceBlock& b : scene.blocks) mByTile[b.tile].blocks.push_back(&b);
    for (const Plinth& p : scene.plinths) mByTile[p.tile].plinths.push_back(&p);
    for (const GeneratedBuilding& g : scene.generated) mByTile[g.tile].generated.push_back(&g);
    for (const BridgeDeck& b : scene.bridges) mByTile[b.tile].bridges.push_back(&b);
}

}  // namespace terrabit::core
