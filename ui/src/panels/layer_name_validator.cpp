#include "terrabit/ui/panels/layer_name_validator.h"

namespace terrabit::ui {

QValidator::State LayerNameValidator::validate(QString& input, int& /*position*/) const {
    if (input.isEmpty()) return Intermediate;
    return core::isLayerName(input.toStdString()) ? Acceptable : Invalid;
}

}  // namespace terrabit::ui
