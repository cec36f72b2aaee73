#include "terrabit/ui/document/recovery_store.h"

#include <QSaveFile>

#include <fstream>

#include <sstream>
#include "terrabit/ui/document/map_document.h"

namespace terrabit::ui {

namespace {
constexpr const char* kProjectName = "recovery.terrabit";
constexpr const char* kOriginName = "recovery-origin.txt";
}  // namespace

RecoveryStore::RecoveryStore(std::filesystem::path folder) : mFolder(std::move(folder)) {}

core::Status RecoveryStore::save(const core::project::Project& project, const std::filesystem::path& origin) {
    std::error_code ec;
    std::filesystem::create_directories(mFolder, ec);
    if (ec) return core::Error{mFolder.string() + ": cannot create the recovery folder: " + ec.message()};
    // The origin first: a recovery file is never found without the name of what it recovers.
    QSaveFile originFile(QString::fromStdString((mFolder / kOriginName).string()));
    if (!originFile.open(QIODevice::WriteOnly)) return core::Error{originFile.errorString().toStdString()};
    originFile.write(QByteArray::fromStdString(origin.string()));
    if (!originFile.commit()) return core::Error{originFile.errorString().toStdString()};
    return writeProjectFile(project, mFolder / kProjectName);
}

bool RecoveryStore::exists() const {
    std::error_code ec;
    return std::filesystem::is_regular_file(mFolder / kProjectName, ec);
}

core::Result<std::pair<core::project::Project, std::filesystem::path>> RecoveryStore::load() const {
    auto project = core::project::loadProject(mFolder / kProjectName);
    if (!project) return project.error();
    std::ifstream in(mFolder / kOriginName);
    std::ostringstream origin;
    origin << in.rdbuf();
    return std::make_pair(std::move(*project), std::filesystem::path(origin.str()));
}

void RecoveryStore::clear() {
    std::error_code ec;
    std::filesystem::remove(mFolder / kProjectName, ec);
    std::filesystem::remove(mFolder / kOriginName, ec);
}

}  // namespace terrabit::ui
