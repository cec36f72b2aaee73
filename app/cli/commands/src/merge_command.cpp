#include "terrabit/cli/merge_command.h"

namespace terrabit::cli {

int runMerge(const MergeCommand& command, std::ostream& out, std::ostream& err) {
    if (core::Status s = core::scale::mergeShards(command, out, err); !s) return fail(err, s.error());
    return kExitOk;
}

}  // namespace terrabit::cli
