// The network path as one unit: the proxy channel, the proxy thread and the libfabric
// transport. The runtime starts it when some PE is on another node.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/bootstrap/bootstrap.hpp"
#include "host/bootstrap/node_mesh.hpp"
#include "transports/fabric/fabric.hpp"
#include "transports/proxy/channel_host.hpp"
#include "transports/proxy/proxy.hpp"

namespace gshmem {

class Network {
 public:
  // Whether GSHMEM_FABRIC asks for the transport, given how many nodes the job spans.
  static bool wanted(int n_nodes);

  // Collective over boot. `segments`: this PE's symmetric regions by segment number.
  // gpu_producers: kernels push commands, so the channel lives in pinned mapped host memory.
  // `abort` (the job is ending) ends the proxy's and the fabric's own waits, as it ends the PE's.
  Network(Bootstrap& boot, const NodeMesh& mesh, const std::vector<FabricRegion>& segments,
          std::function<void(const std::string&)> fail, bool gpu_producers = false,
          const AbortState* abort = nullptr);
  ~Network();

  detail::ChannelDevice* channel() { return channel_.device(); }
  const Fabric& fabric() const { return *fabric_; }
  // Whether this host's busy threads outnumber its cores while its PEs wait (per PE: the PE and
  // the provider's own progress thread, if any): the runtime's waiters go by it. The proxy thread
  // gets the same count plus itself where it polls (see the constructor).
  bool oversubscribed() const { return oversubscribed_; }
  // Stops the proxy thread; call once no peer needs this PE's progress any more.
  void stop();
  // See Proxy::drive_from_waiter.
  bool drive(bool post_only) { return proxy_->drive_from_waiter(post_only); }
  // See Proxy::wait_for_news.
  bool wait_for_news(uint64_t ns) { return proxy_->wait_for_news(ns); }

 private:
  ChannelHost channel_;
  std::unique_ptr<Proxy> proxy_;
  std::unique_ptr<Fabric> fabric_;
  bool oversubscribed_ = false;
};

}  // namespace gshmem
