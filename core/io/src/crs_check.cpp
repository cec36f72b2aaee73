#include "crs_check_p.h"

#include <cpl_error.h>

namespace terrabit::core::io::detail {

namespace {

const char* kindOf(const OGRSpatialReference& s) {
    if (s.IsProjected()) return "projected";
    if (s.IsGeocentric()) return "geocentric";
    if (s.IsGeographic()) return "geographic";
    if (s.IsLocal()) return "local";
    if (s.IsVertical()) return "vertical";
    return "unknown";
}

}  // namespace

std::optional<std::string> inconsistentAuthority(const OGRSpatialReference& srs) {
    const char* authority = srs.GetAuthorityName(nullptr);
    const char* code = srs.GetAuthorityCode(nullptr);
    if (!authority || !code || !*authority || !*code) return std::nullopt;
    const std::string named = std::string(authority) + ":" + code;
    OGRSpatialReference reference;
    CPLPushErrorHandler(CPLQuietErrorHandler);  // an unknown code is no error here
    const OGRErr known = reference.SetFromUserInput(named.c_str());
    CPLPopErrorHandler();
    if (known != OGRERR_NONE) return std::nullopt;
    const std::string kind = kindOf(srs), namedKind = kindOf(reference);
    if (kind == namedKind) return std::nullopt;
    return "a " + kind + " coordinate system that names " + named + ", a " + namedKind + " one";
}

}  // namespace terrabit::core::io::detail
