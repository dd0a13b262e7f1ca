#include "transports/proxy/network.hpp"

#include "host/env.hpp"
#include "host/log.hpp"

namespace gshmem {

bool Network::wanted(int n_nodes) {
  const std::string& mode = Env::get().str("GSHMEM_FABRIC");
  return mode == "on" || (mode == "auto" && n_nodes > 1);
}

namespace {

FabricOptions fabric_options() {
  const Env& env = Env::get();
  FabricOptions o;
  o.provider = env.str("GSHMEM_FABRIC_PROVIDER");
  o.nic = env.str("GSHMEM_FABRIC_NIC");
  o.force_mr_local = env.flag("GSHMEM_FABRIC_FORCE_MR_LOCAL");
  const std::string& inject = env.str("GSHMEM_FABRIC_INJECT");
  o.inject_reorder = inject.find("reorder") != std::string::npos;
  o.inject_delay = inject.find("delay") != std::string::npos;
  return o;
}

}  // namespace

Network::Network(Bootstrap& boot, const std::vector<FabricRegion>& segments,
                 std::function<void(const std::string&)> fail)
    : channel_(size_t(std::max<int64_t>(2, Env::get().integer("GSHMEM_PROXY_RING")))) {
  const Env& env = Env::get();
  ProxyOptions po;
  po.emulate_atomics = env.str("GSHMEM_FABRIC_ATOMICS") == "emulated";
  proxy_ = std::make_unique<Proxy>(channel_, segments, boot.rank(), boot.size(), po,
                                   std::move(fail));
  std::vector<FabricRegion> regions = segments;
  regions.push_back(proxy_->arena());
  fabric_ = std::make_unique<Fabric>(boot, fabric_options(), regions, segments.size());
  if (env.str("GSHMEM_FABRIC_ATOMICS") == "native" && !fabric_->description().atomics) {
    GSHMEM_WARN(TRANSPORT, "GSHMEM_FABRIC_ATOMICS=native but provider %s has no atomics; "
                           "emulating them",
                fabric_->description().provider.c_str());
  }
  proxy_->start(*fabric_);
}

Network::~Network() { stop(); }

void Network::stop() {
  if (proxy_) proxy_->stop();
}

}  // namespace gshmem
