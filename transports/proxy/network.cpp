#include "transports/proxy/network.hpp"

#include <cstdlib>

#include "host/base/env.hpp"
#include "gshmem/gshmem.hpp"
#include "host/base/log.hpp"
#include "host/base/sock.hpp"
#include "host/base/system.hpp"
#include "host/topology/topology.hpp"

namespace gshmem {

bool Network::wanted(int n_nodes) {
  const std::string& mode = Env::get().str("GSHMEM_FABRIC");
  return mode == "on" || (mode == "auto" && n_nodes > 1);
}

namespace {

// The NIC topology suggests for this PE: PEs of a node spread over the NICs nearest to their
// GPUs (or NUMA nodes). Collective over boot (every PE says where it is bound).
std::string topology_nic(Bootstrap& boot, const NodeMesh& mesh) {
  int mine = Topology::current_numa();
  std::vector<int> numa(static_cast<size_t>(boot.size()));
  boot.allgather(&mine, numa.data(), sizeof mine, "gshmem_init (topology)");
  const std::string& source = Env::get().str("GSHMEM_TOPOLOGY");
  try {
    Topology topo = Topology::load(source);
    std::vector<int> local_numa;
    size_t me = 0;
    for (int pe : mesh.local_pes()) {
      if (pe == boot.rank()) me = local_numa.size();
      local_numa.push_back(numa[size_t(pe)]);
    }
    std::vector<Placement> placement = topo.place(local_numa);
    if (boot.rank() == mesh.local_pes().front()) {
      GSHMEM_INFO(TRANSPORT, "topology of node %d (%s):\n%s%s", mesh.node_of(boot.rank()),
                  topo.source.c_str(), topo.describe().c_str(),
                  topo.describe_placement(placement).c_str());
    }
    int nic = placement[me].nic;
    return nic >= 0 ? topo.devices[size_t(nic)].name : "";
  } catch (const Error& e) {
    GSHMEM_INFO(TRANSPORT, "no topology: %s", e.what());
    return "";
  }
}

FabricOptions fabric_options() {
  const Env& env = Env::get();
  FabricOptions o;
  o.provider = env.str("GSHMEM_FABRIC_PROVIDER");
  o.nic = env.str("GSHMEM_FABRIC_NIC");
  o.force_mr_local = env.flag("GSHMEM_FABRIC_FORCE_MR_LOCAL");
  parse_fabric_inject(env.str("GSHMEM_FABRIC_INJECT"), &o);
  // A post that cannot go out for half of GSHMEM_TIMEOUT makes its waiter time out anyway;
  // failing it first names the operation and the peer, not only the peer.
  o.eagain_timeout_s = env.seconds("GSHMEM_TIMEOUT") / 2;
  return o;
}

}  // namespace

Network::Network(Bootstrap& boot, const NodeMesh& mesh, const std::vector<FabricRegion>& segments,
                 std::function<void(const std::string&)> fail, bool gpu_producers,
                 const AbortState* abort)
    : channel_(size_t(std::max<int64_t>(2, Env::get().integer("GSHMEM_PROXY_RING"))),
               gpu_producers) {
  const Env& env = Env::get();
  ProxyOptions po;
  po.emulate_atomics = env.str("GSHMEM_FABRIC_ATOMICS") == "emulated";
  // Virtual nodes on one host share its cores: count every PE of this host.
  const int host_pes = int(mesh.host_pes().size());
  po.abort = abort;
  po.timeout_s = env.seconds("GSHMEM_TIMEOUT");
  // Messages between proxies carry this key: anything that reaches the endpoint can send to it,
  // only the job's PEs know the key.
  if (boot.rank() == 0) sock::random_bytes(&po.job_key, sizeof po.job_key);
  boot.broadcast(&po.job_key, sizeof po.job_key, 0, "gshmem_init (network key)");
  // The proxy's view of local memory: how a GPU heap must be reached, or the test mode that makes
  // a host heap look like one.
  std::vector<FabricRegion> seen = segments;
  std::unique_ptr<LocalMemory> memory;
  bool gpuview = env.flag("GSHMEM_PROXY_GPUVIEW") && !gpu_producers;
  if (gpu_producers) {
    memory = gpu_memory(segments.front().cuda_device);
  } else if (gpuview) {
    memory = aliased_memory(seen);
  } else {
    memory = host_memory();
  }
  po.gpu_producers = gpu_producers || gpuview;
  // Polling: kernels ring no doorbell; otherwise where there is a core for each PE's proxy
  // thread, or where asked. A polling proxy thread is one more busy thread per PE. Napping
  // between looks: where each PE has a core but not two (the provider then signals no file
  // descriptor on every completion, about 2 us per operation on tcp, and an idle PE costs about
  // what a sleeping one does once idle for long). Sleeping on the network: where the PEs
  // outnumber the cores, so that idle PEs cost nothing at all.
  const std::string idle = env.str("GSHMEM_PROXY_IDLE");
  const int cpus = cpus_available();
  const bool poll = po.gpu_producers || idle == "poll" || (idle == "auto" && 2 * host_pes <= cpus);
  const bool nap = !poll && (idle == "nap" || (idle == "auto" && host_pes <= cpus));
  po.poll_idle = poll || nap;
  if (nap) po.nap_ns = kProxyNapNs;
  // The sockets provider's progress thread spins FI_SOCKETS_PE_WAITTIME ms (10) before it sleeps.
  // Where the proxy thread sleeps (cores are scarce), that spin takes the core the operation
  // waits for, and a put costs milliseconds instead of tens of microseconds. Unless the user
  // chose a value, it sleeps at once (libfabric reads it when first used, which is below). Where
  // the proxy naps, the provider has no such thread (manual progress, below) unless it lacks
  // that mode.
  if (!poll) setenv("FI_SOCKETS_PE_WAITTIME", "0", 0);
  po.flush_before_signal = gpu_producers || gpuview;
  proxy_ = std::make_unique<Proxy>(channel_, seen, std::move(memory), boot.rank(), boot.size(), po,
                                   std::move(fail));
  std::vector<FabricRegion> regions = segments;
  regions.push_back(proxy_->arena());
  FabricOptions fo = fabric_options();
  fo.abort = abort;
  fo.wait_fd = !po.poll_idle;
  // Where a thread always polls (the proxy, or its PE's waiters), a provider that can also leave
  // progress to the polls (sockets) runs no thread of its own: on sockets with 2 PEs on 2 cores,
  // a raw loop's fetch_add took 24-30 us that way against 70-122 us with the provider's thread.
  fo.manual_progress = po.poll_idle;
  GSHMEM_INFO(TRANSPORT, "proxy: %s while idle (GSHMEM_PROXY_IDLE=%s; %d PE(s) on %d core(s) here)",
              nap    ? "polls the network between naps"
              : poll ? "polls the network"
                     : "sleeps on the completion queue",
              idle.c_str(), host_pes, cpus);
  fo.nic_hint = topology_nic(boot, mesh);
  fabric_ = std::make_unique<Fabric>(boot, fo, regions, segments.size());
  if (gpu_producers && (po.emulate_atomics || !fabric_->description().atomics)) {
    // Emulated atomics are applied at the target by its proxy thread with host loads and stores,
    // which GPU memory does not allow.
    throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "GSHMEM_HEAP",
                "the symmetric heap is in GPU memory but provider " +
                    fabric_->description().provider +
                    " has no native atomics (or GSHMEM_FABRIC_ATOMICS=emulated); remote atomics "
                    "on a GPU heap need them: set GSHMEM_HEAP=host or use a provider with "
                    "atomics");
  }
  if (env.str("GSHMEM_FABRIC_ATOMICS") == "native" && !fabric_->description().atomics) {
    GSHMEM_WARN(TRANSPORT,
                "GSHMEM_FABRIC_ATOMICS=native but provider %s has no atomics; "
                "emulating them",
                fabric_->description().provider.c_str());
  }
  // Where the busy threads outnumber the cores, every wait gives its core away soon: the thread
  // it waits for may need it. Per PE: the PE itself, and the provider's progress thread where the
  // provider moves the data in a thread of its own (sockets). The proxy thread steps aside while
  // its PE waits (the waiter drives the network), so the waiters do not count it; the proxy's own
  // loop does where it polls.
  const int per_pe = 1 + int(fabric_->progresses_itself());
  oversubscribed_ = host_pes * per_pe > cpus;
  proxy_->start(*fabric_, host_pes * (per_pe + int(poll)) > cpus);
}

Network::~Network() {
  stop();
}

void Network::stop() {
  if (proxy_) proxy_->stop();
}

}  // namespace gshmem
