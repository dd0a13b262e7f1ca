// The collectives' init share (host/runtime/process.hpp): PE 0 sends the text of this host's
// calibration file, checked, and every PE installs what it received, so every PE plans alike.
// Apart from calibration.cpp so that its parser builds without the runtime (fuzz/).
#include <string>

#include "collectives/calibration.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/runtime/process.hpp"

namespace gshmem::coll {

namespace {

const bool g_registered = [] {
  InitShare share;
  share.payload = [] {
    std::string text, why;
    if (Env::get().str("GSHMEM_CALIBRATION") == "off") return text;
    const std::string path = calibration_path();
    Calibration check;
    if (read_calibration_file(path, &text, &why) && !parse_calibration(text, &check, &why)) {
      why = path + ": " + why;
      text.clear();
    }
    if (!why.empty()) {
      GSHMEM_WARN(COLL,
                  "ignoring the calibration file %s; the planner uses its constants "
                  "(gshmem-info --calibrate writes a new one)",
                  why.c_str());
      return std::string();
    }
    return text.empty() ? text : path + "\n" + text;
  };
  share.receive = [](const std::string& shared) {
    if (shared.empty()) return install_calibration(nullptr);
    const size_t nl = shared.find('\n');
    auto c = std::make_unique<Calibration>();
    std::string why;
    if (nl == std::string::npos ||
        !parse_calibration(std::string_view(shared).substr(nl + 1), c.get(), &why)) {
      return install_calibration(nullptr);  // PE 0 checked it: not reached
    }
    c->origin = shared.substr(0, nl);
    GSHMEM_INFO(COLL, "planner: calibration %s (%zu table(s), %zu fitted link class(es))",
                c->origin.c_str(), c->tables.size(), c->links.size());
    install_calibration(std::move(c));
  };
  register_init_share(share);
  return true;
}();

}  // namespace

}  // namespace gshmem::coll
