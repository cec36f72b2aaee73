#include "terrabit/cli/merge_command.h"

namespace terrabit::cli {

using core::scale::MergedOutput;
using core::scale::MergeReport;

void printMergeReport(std::ostream& out, std::ostream& err, const MergeReport& report,
                      const std::filesystem::path& outDir) {
    for (const std::filesystem::path& f : report.unjoinable) {
        err << "warning: " << f.string() << " covers the shard's tiles only and cannot be joined; "
            << (f.filename() == "scene.glb"
                    ? "bake the shards again with this terrabit-cli, whose shards keep a scene.part that merge "
                      "joins into scene.glb\n"
                    : "bake it on one machine\n");
    }
    if (!report.started) return;
    out << "merging " << report.shardCount << " shards, " << report.tiles << " tiles, into " << outDir.string()
        << ":\n";
    for (const MergedOutput& w : report.written) {
        out << "  " << w.path.string();
        switch (w.kind) {
            case MergedOutput::Kind::Tileset:
                out << " (" << w.files << " tile contents)\n";
                break;
            case MergedOutput::Kind::Manifest:
                out << " (" << w.instances << " instances in " << w.instanceRuns << " runs, " << w.buildings
                    << " buildings in " << w.buildingRuns << " runs)\n";
                break;
            case MergedOutput::Kind::Layers:
                out << "/ (" << w.files << " files)\n";
                break;
            case MergedOutput::Kind::Collision:
                out << " (" << w.tiles << " tiles from " << w.files << " parts)\n";
                break;
            case MergedOutput::Kind::SceneGraph:
                out << " (" << w.files << " group files in " << w.path.stem().string() << "/)\n";
                break;
            case MergedOutput::Kind::Scene:
                out << " (encoded from " << w.files << " shards' scene.part)\n";
                break;
        }
    }
}

int runMerge(const MergeCommand& command, std::ostream& out, std::ostream& err) {
    MergeReport report;
    const core::Status merged = core::scale::mergeShards(command, report);
    printMergeReport(out, err, report, command.outDir);
    if (!merged) return fail(err, merged.error());
    return kExitOk;
}

}  // namespace terrabit::cli
