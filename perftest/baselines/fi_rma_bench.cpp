// The network path without gshmem: fi_write, fi_read and fi_fetch_atomic loops on the same
// provider, sizes and window as gshmem's put_bw, get_bw, put_latency and atomic_latency, so that
// gshmem's overhead over the network is one ratio. Every operation asks for delivery-complete,
// the completion semantics gshmem needs (its quiet and put-with-signal rest on it).
//
// Run with 2 PEs under gshmemrun on one node: gshmem is used only to start the processes and
// swap endpoint names through its symmetric heap; it starts no network transport of its own
// (no --ppn), so nothing of gshmem runs while the loops are timed. PE 0 measures; PE 1 polls its
// completion queue (providers such as tcp;ofi_rxm progress only when the target polls).
//   gshmemrun -n 2 gshmem_fi_rma_bench [put_bw] [get_bw] [put_latency] [atomic_latency] [flags]
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "perftest/common/options.hpp"
#include "perftest/common/table.hpp"
#include "perftest/common/timing.hpp"
#include "gshmem/gshmem.h"

namespace {

[[noreturn]] void die(const char* what, int rc) {
  std::fprintf(stderr, "fi_rma_bench: %s: %s\n", what, fi_strerror(rc < 0 ? -rc : rc));
  gshmem_global_exit(2);
  std::exit(2);
}

struct Endpoint {
  fi_info* info = nullptr;
  fid_fabric* fabric = nullptr;
  fid_domain* domain = nullptr;
  fid_ep* ep = nullptr;
  fid_av* av = nullptr;
  fid_cq* cq = nullptr;
  fid_mr* mr = nullptr;
  fi_addr_t peer = FI_ADDR_UNSPEC;
  uint64_t peer_key = 0, peer_base = 0;
  bool virt_addr = false;
  // The provider progresses in threads of its own (sockets): a poller that finds nothing gives
  // them the core, or on a machine with fewer cores than busy threads an operation waits for the
  // scheduler's time slice (milliseconds) rather than the network.
  bool yield = false;
  size_t outstanding = 0;

  uint64_t remote(uint64_t offset) const { return virt_addr ? peer_base + offset : offset; }

  // Waits for n completions (polling, as the target of rxm must too).
  void wait(size_t n) {
    while (n) {
      fi_cq_entry e[16];
      ssize_t got = fi_cq_read(cq, e, n < 16 ? n : 16);
      if (got == -FI_EAGAIN) {
        if (yield) sched_yield();
        continue;
      }
      if (got < 0) {
        fi_cq_err_entry err{};
        fi_cq_readerr(cq, &err, 0);
        die("completion", err.err);
      }
      n -= size_t(got);
      outstanding -= size_t(got);
    }
  }
  void progress() {
    fi_cq_entry e[16];
    ssize_t got = fi_cq_read(cq, e, 16);
    if (got > 0) outstanding -= size_t(got);
    if (got == -FI_EAGAIN && yield) sched_yield();
  }
  // Posts with retry on EAGAIN (rxm returns it while it connects).
  template <class Post>
  void post(Post&& op, const char* what) {
    int rc;
    while ((rc = int(op())) == -FI_EAGAIN) progress();
    if (rc) die(what, rc);
    ++outstanding;
  }
};

// cq_wait_fd: the completion queue has a file descriptor to sleep on, as gshmem's is where its
// proxy thread sleeps (GSHMEM_PROXY_IDLE): what the provider charges each operation for it.
// manual: asks for FI_PROGRESS_MANUAL where the provider offers it (sockets: no progress thread
// of its own; the loops' polls progress), as gshmem does wherever no thread sleeps on the fd.
Endpoint open(char* buffer, size_t bytes, bool cq_wait_fd, bool manual) {
  Endpoint e;
  fi_info* hints = fi_allocinfo();
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_RMA | FI_ATOMIC | FI_MSG;
  hints->mode = FI_CONTEXT | FI_CONTEXT2;
  hints->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
  if (manual) hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
  const char* prov = std::getenv("GSHMEM_FABRIC_PROVIDER");
  std::string provider = prov && *prov && std::string(prov) != "auto" ? prov : "tcp;ofi_rxm";
  hints->fabric_attr->prov_name = strdup(provider.c_str());
  fi_info* all = nullptr;
  int rc = fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, hints, &all);
  if (rc && manual) {  // the provider has only its own progress
    hints->domain_attr->data_progress = FI_PROGRESS_UNSPEC;
    rc = fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, hints, &all);
  }
  fi_freeinfo(hints);
  if (rc) die(("fi_getinfo(" + provider + ")").c_str(), rc);
  fi_info* pick = all;  // the first non-loopback domain, as gshmem picks by default
  for (fi_info* i = all; i; i = i->next) {
    if (std::string(i->domain_attr->name) != "lo") {
      pick = i;
      break;
    }
  }
  e.info = fi_dupinfo(pick);
  fi_freeinfo(all);
  uint64_t mr_mode = uint64_t(e.info->domain_attr->mr_mode);
  e.virt_addr = mr_mode & FI_MR_VIRT_ADDR;
  e.yield = e.info->domain_attr->data_progress == FI_PROGRESS_AUTO;
  if ((rc = fi_fabric(e.info->fabric_attr, &e.fabric, nullptr))) die("fi_fabric", rc);
  if ((rc = fi_domain(e.fabric, e.info, &e.domain, nullptr))) die("fi_domain", rc);
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_CONTEXT;
  cq_attr.size = 4096;
  cq_attr.wait_obj = cq_wait_fd ? FI_WAIT_FD : FI_WAIT_NONE;
  if ((rc = fi_cq_open(e.domain, &cq_attr, &e.cq, nullptr))) die("fi_cq_open", rc);
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  if ((rc = fi_av_open(e.domain, &av_attr, &e.av, nullptr))) die("fi_av_open", rc);
  if ((rc = fi_endpoint(e.domain, e.info, &e.ep, nullptr))) die("fi_endpoint", rc);
  if ((rc = fi_ep_bind(e.ep, &e.cq->fid, FI_TRANSMIT | FI_RECV))) die("fi_ep_bind", rc);
  if ((rc = fi_ep_bind(e.ep, &e.av->fid, 0))) die("fi_ep_bind", rc);
  if ((rc = fi_enable(e.ep))) die("fi_enable", rc);
  uint64_t access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  if ((rc = fi_mr_reg(e.domain, buffer, bytes, access, 0, 1, 0, &e.mr, nullptr))) {
    die("fi_mr_reg", rc);
  }
  if (mr_mode & FI_MR_ENDPOINT) {
    if ((rc = fi_mr_bind(e.mr, &e.ep->fid, 0)) || (rc = fi_mr_enable(e.mr))) die("fi_mr_bind", rc);
  }
  return e;
}

// Swaps endpoint names, keys and bases with the other PE through gshmem's symmetric heap.
void connect(Endpoint& e, const char* buffer) {
  struct Card {
    uint64_t name_len, key, base;
    char name[256];
  };
  auto* cards = static_cast<Card*>(gshmem_calloc(2, sizeof(Card)));
  int me = gshmem_my_pe(), other = 1 - me;
  Card mine{};
  mine.name_len = sizeof mine.name;
  int rc = fi_getname(&e.ep->fid, mine.name, &mine.name_len);
  if (rc) die("fi_getname", rc);
  mine.key = fi_mr_key(e.mr);
  mine.base = reinterpret_cast<uintptr_t>(buffer);
  gshmem_putmem(&cards[me], &mine, sizeof mine, other);
  gshmem_barrier_all();
  if (fi_av_insert(e.av, cards[other].name, 1, &e.peer, 0, nullptr) != 1) {
    die("fi_av_insert", -FI_EINVAL);
  }
  e.peer_key = cards[other].key;
  e.peer_base = cards[other].base;
  gshmem_barrier_all();
  gshmem_free(cards);
}

}  // namespace

int main(int argc, char** argv) {
  gshmem_init();
  int me = gshmem_my_pe();
  perftest::Options defaults;
  defaults.max_size = size_t(4) << 20;
  defaults.iters = 200;
  defaults.warmup = 20;
  perftest::Usage usage{"gshmem_fi_rma_bench",
                        "raw libfabric RMA loops, the reference for gshmem over the network",
                        "[put_bw] [get_bw] [put_latency] [atomic_latency] [cq_wait_fd] "
                        "[auto_progress]: the tests to run (default: all); cq_wait_fd opens the "
                        "completion queue with a file descriptor to sleep on, with the provider's "
                        "default progress, as gshmem does where its proxy thread sleeps; "
                        "auto_progress keeps the provider's default progress too (otherwise "
                        "manual progress where the provider offers it, as gshmem's where no "
                        "thread sleeps)"};
  perftest::Args args = perftest::parse_args(argc, argv, usage, defaults, me == 0);
  if (args.exit_code || gshmem_n_pes() != 2) {
    if (me == 0 && !args.exit_code) std::fprintf(stderr, "fi_rma_bench: run with 2 PEs\n");
    gshmem_finalize();
    return args.exit_code.value_or(2);
  }
  std::vector<std::string> tests = args.operands;
  auto fd = std::find(tests.begin(), tests.end(), "cq_wait_fd");
  const bool cq_wait_fd = fd != tests.end();
  if (cq_wait_fd) tests.erase(fd);
  auto ap = std::find(tests.begin(), tests.end(), "auto_progress");
  const bool auto_progress = ap != tests.end();
  if (auto_progress) tests.erase(ap);
  const std::vector<std::string> known = {"put_bw", "get_bw", "put_latency", "atomic_latency"};
  if (tests.empty()) tests = known;
  for (const std::string& t : tests) {
    if (std::find(known.begin(), known.end(), t) != known.end()) continue;
    if (me == 0) std::fprintf(stderr, "fi_rma_bench: unknown test '%s' (see -h)\n", t.c_str());
    gshmem_finalize();
    return 2;
  }

  perftest::Options o = args.over(defaults);
  size_t bytes = o.max_size * size_t(o.window) + 4096;
  std::vector<char> buffer(bytes, char(me + 1));
  Endpoint e = open(buffer.data(), bytes, cq_wait_fd, !cq_wait_fd && !auto_progress);
  connect(e, buffer.data());
  void* desc = fi_mr_desc(e.mr);
  auto* done = static_cast<int*>(gshmem_calloc(1, sizeof(int)));

  for (const std::string& test : tests) {
    bool bw = test == "put_bw" || test == "get_bw";
    bool read = test == "get_bw";
    perftest::Options t = args.over(defaults);
    std::string what = test == "atomic_latency" ? "fi_fetch_atomic(FI_SUM, uint64)"
                       : bw
                           ? "window of " + std::to_string(t.window) +
                                 (read ? " fi_read" : " fi_write") + " + wait for their completions"
                           : "fi_write + wait for its completion";
    what += e.yield ? ", the provider's progress thread" : ", manual progress";
    if (cq_wait_fd) what += ", completion queue with a wait fd";
    perftest::Table table(test, what + " on " + e.info->fabric_attr->prov_name + ", PE 0 -> PE 1",
                          test == "atomic_latency" ? std::vector<perftest::Column>{{"op", "op"}}
                                                   : std::vector<perftest::Column>{},
                          bw ? perftest::kBandwidth : perftest::kLatency, t.json, me == 0);
    std::vector<size_t> sizes = test == "atomic_latency" ? std::vector<size_t>{8} : t.sizes();
    if (test == "put_latency") {
      sizes.clear();
      for (size_t s : t.sizes()) {
        if (s <= (size_t(1) << 20)) sizes.push_back(s);
      }
    }
    for (size_t size : sizes) {
      gshmem_barrier_all();
      if (me == 1) {
        // The target's part: progress until PE 0 says this size is done.
        while (!gshmem_int_atomic_fetch(done, 1)) e.progress();
        *done = 0;
        continue;
      }
      int window = bw ? t.window : 1;
      uint64_t operand = 1, result = 0;
      double s = perftest::seconds_per_iter(t.warmup, t.iters, [&](long) {
        for (int w = 0; w < window; ++w) {
          char* local = buffer.data() + size_t(w) * size;
          uint64_t remote = e.remote(size_t(w) * size);
          if (test == "atomic_latency") {
            e.post(
                [&] {
                  return fi_fetch_atomic(e.ep, &operand, 1, desc, &result, desc, e.peer,
                                         e.remote(0), e.peer_key, FI_UINT64, FI_SUM, nullptr);
                },
                "fi_fetch_atomic");
          } else if (read) {
            e.post(
                [&] {
                  return fi_read(e.ep, local, size, desc, e.peer, remote, e.peer_key, nullptr);
                },
                "fi_read");
          } else {
            e.post(
                [&] {
                  return fi_write(e.ep, local, size, desc, e.peer, remote, e.peer_key, nullptr);
                },
                "fi_write");
          }
        }
        e.wait(e.outstanding);
      });
      if (test == "atomic_latency") {
        table.row(size, {"fetch_add"}, perftest::usec(s));
      } else {
        table.row(size, bw ? perftest::gb_per_s(double(size) * window, s) : perftest::usec(s));
      }
      gshmem_int_atomic_set(done, 1, 1);
    }
  }
  gshmem_barrier_all();
  gshmem_free(done);
  fi_close(&e.ep->fid);
  fi_close(&e.mr->fid);
  fi_close(&e.av->fid);
  fi_close(&e.cq->fid);
  fi_close(&e.domain->fid);
  fi_close(&e.fabric->fid);
  fi_freeinfo(e.info);
  gshmem_finalize();
  return 0;
}
