#pragma once
// A GDAL dataset owned by a unique_ptr, closed with GDALClose. Internal to io.

#include <gdal_priv.h>

#include <memory>

namespace terrabit::core::io {

struct DatasetCloser {
    void operator()(GDALDataset* d) const { GDALClose(GDALDataset::ToHandle(d)); }
};
using DatasetPtr = std::unique_ptr<GDALDataset, DatasetCloser>;

}  // namespace terrabit::core::io
