#include "terrabit/core/rules/classifier.h"

#include "terrabit/core/map/coastline.h"

namespace terrabit::core {

namespace {

bool anyMatch(const std::vector<FeatureMatcher>& matchers, const Feature& f) {
    for (const FeatureMatcher& m : matchers) {
        if (m.matches(f)) return true;
    }
    return false;
}

float sizeFor(const LayerRule& rule, const Feature& f) {
    switch (f.kind) {
        case FeatureKind::Line:
            return static_cast<float>(rule.width.widthOf(f));
        case FeatureKind::Point:
            return static_cast<float>(rule.pointRadiusMetres);
        case FeatureKind::Area:
            return 0.0f;
    }
    return 0.0f;
}

}  // namespace

ClassifiedMap classify(const MapData& map, const RuleSet& rules) {
    ClassifiedMap out;
    out.layers = rules.layerInfos();
    out.featureCounts.assign(out.layers.size(), 0);
    out.extent = map.extent;
    out.source = map.source;
    const auto& layers = rules.layers();

    auto add = [&](const Feature& f, int id) {
        const LayerRule& rule = layers[static_cast<std::size_t>(id)];
        out.entries.push_back({&f, static_cast<std::uint16_t>(id), sizeFor(rule, f)});
        ++out.featureCounts[static_cast<std::size_t>(id)];
        if (rule.info.parent >= 0) ++out.featureCounts[static_cast<std::size_t>(rule.info.parent)];
    };

    for (const Feature& f : map.features) {
        bool taken = false;
        for (std::size_t id = 0; id < layers.size(); ++id) {
            const LayerRule& layer = layers[id];
            if (layer.info.parent >= 0) continue;  // classes are tried through their parent
            int target = -1;
            for (int cls : layer.info.classes) {
                if (anyMatch(layers[static_cast<std::size_t>(cls)].match, f)) {
                    target = cls;
                    break;
                }
            }
            if (target < 0 && anyMatch(layer.match, f)) target = static_cast<int>(id);
            if (target >= 0) {
                add(f, target);
                taken = true;
            }
        }
        if (!taken) ++out.unclassified;
        if (f.kind == FeatureKind::Point && f.tag("highway") == std::optional<std::string_view>("crossing")) {
            out.crossings.push_back(&f);
        }
    }

    if (rules.wantsSea()) {
        SeaArea sea = buildSea(map.features, map.extent, map.source);
        out.warnings.insert(out.warnings.end(), sea.warnings.begin(), sea.warnings.end());
        if (!sea.sea.points.empty()) {
            // Reserve first: entries hold pointers into `derived`.
            out.derived.reserve(1);
            out.derived.push_back(std::move(sea.sea));
            for (std::size_t id = 0; id < layers.size(); ++id) {
                if (layers[id].sea) add(out.derived.back(), static_cast<int>(id));
            }
        }
    }

    for (std::size_t id = 0; id < layers.size(); ++id) {
        if (out.featureCounts[id] == 0 && layers[id].info.parent < 0) {
            out.warnings.push_back(map.source + ": no feature matched layer '" + layers[id].info.name + "' (" +
                                   rules.source() + ":" + std::to_string(layers[id].line) + ")");
        }
    }
    return out;
}

}  // namespace terrabit::core
