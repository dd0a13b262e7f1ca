#include "transports/fabric/fabric.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gshmem/gshmem.hpp"
#include "host/base/env.hpp"
#include "host/base/log.hpp"
#include "host/topology/topology.hpp"

namespace gshmem {

namespace {

constexpr uint32_t kApiVersion = FI_VERSION(1, 9);
constexpr size_t kNameBytes = 256;

uint64_t mr_modes_we_handle() {
  return FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
}

fi_info* make_hints(const std::string& provider, bool atomics, bool hmem, bool manual) {
  fi_info* h = fi_allocinfo();
  h->ep_attr->type = FI_EP_RDM;
  h->caps = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_MSG | FI_SEND |
            FI_RECV | (atomics ? FI_ATOMIC : 0) | (hmem ? FI_HMEM : 0);
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->domain_attr->mr_mode = int(mr_modes_we_handle() | (hmem ? FI_MR_HMEM : 0));
  h->domain_attr->threading = FI_THREAD_DOMAIN;
  h->domain_attr->av_type = FI_AV_TABLE;
  h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
  if (manual) h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
  h->fabric_attr->prov_name = strdup(provider.c_str());
  return h;
}

// fi_getinfo for one provider, with atomics if it has them (and FI_HMEM when `hmem`: GPU memory
// is registered), with manual progress if asked for and the provider offers it. nullptr when it
// is not usable here.
fi_info* query(const std::string& provider, bool* atomics, bool hmem = false, bool manual = false) {
  for (bool want_atomics : {true, false}) {
    for (bool want_manual : {manual, false}) {
      fi_info* hints = make_hints(provider, want_atomics, hmem, want_manual);
      fi_info* info = nullptr;
      int rc = fi_getinfo(kApiVersion, nullptr, nullptr, 0, hints, &info);
      fi_freeinfo(hints);
      if (rc == 0 && info) {
        *atomics = want_atomics;
        return info;
      }
      if (!want_manual) break;
    }
  }
  return nullptr;
}

std::vector<std::string> candidates(const std::string& wanted) {
  if (wanted.empty() || wanted == "auto") return {"efa", "tcp;ofi_rxm", "sockets"};
  return {wanted};
}

FabricDescription describe_info(const fi_info* i, bool atomics) {
  FabricDescription d;
  d.provider = i->fabric_attr->prov_name;
  d.fabric = i->fabric_attr->name;
  d.domain = i->domain_attr->name;
  uint64_t caps = i->caps;
  d.caps = fi_tostr(&caps, FI_TYPE_CAPS);
  int mr = i->domain_attr->mr_mode;
  d.mr_mode = fi_tostr(&mr, FI_TYPE_MR_MODE);
  if (d.mr_mode.empty()) d.mr_mode = "(none required)";
  d.atomics = atomics;
  d.delivery_complete = (i->tx_attr->op_flags & FI_DELIVERY_COMPLETE) != 0;
  d.inject_size = i->tx_attr->inject_size;
  d.progress = i->domain_attr->data_progress == FI_PROGRESS_MANUAL ? "manual" : "auto";
  return d;
}

fi_datatype fi_type(detail::AmoType t) {
  switch (t) {
    case detail::AmoType::I32:
      return FI_INT32;
    case detail::AmoType::U32:
      return FI_UINT32;
    case detail::AmoType::I64:
      return FI_INT64;
    case detail::AmoType::U64:
      return FI_UINT64;
    case detail::AmoType::F32:
      return FI_FLOAT;
    case detail::AmoType::F64:
      return FI_DOUBLE;
  }
  return FI_UINT64;
}

enum class Form { Plain, Fetch, Compare };

struct FiOp {
  fi_op op;
  Form form;
};

FiOp fi_op_of(AmoOp op) {
  switch (op) {
    case AmoOp::Fetch:
      return {FI_ATOMIC_READ, Form::Fetch};
    case AmoOp::Set:
      return {FI_ATOMIC_WRITE, Form::Plain};
    case AmoOp::Swap:
      return {FI_ATOMIC_WRITE, Form::Fetch};
    case AmoOp::CompareSwap:
      return {FI_CSWAP, Form::Compare};
    case AmoOp::FetchAdd:
    case AmoOp::FetchInc:
      return {FI_SUM, Form::Fetch};
    case AmoOp::Add:
    case AmoOp::Inc:
      return {FI_SUM, Form::Plain};
    case AmoOp::FetchAnd:
      return {FI_BAND, Form::Fetch};
    case AmoOp::And:
      return {FI_BAND, Form::Plain};
    case AmoOp::FetchOr:
      return {FI_BOR, Form::Fetch};
    case AmoOp::Or:
      return {FI_BOR, Form::Plain};
    case AmoOp::FetchXor:
      return {FI_BXOR, Form::Fetch};
    case AmoOp::Xor:
      return {FI_BXOR, Form::Plain};
  }
  return {FI_SUM, Form::Plain};
}

[[noreturn]] void fail(const std::string& what, int rc) {
  throw Error(GSHMEM_ERROR_TRANSPORT, "fabric", "", what + ": " + fi_strerror(rc < 0 ? -rc : rc));
}

uint64_t now_ns() {
  return detail::now_ns();
}

}  // namespace

void parse_fabric_inject(const std::string& spec, FabricOptions* o) {
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t end = std::min(spec.find(',', pos), spec.size());
    std::string item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq),
                value = eq == std::string::npos ? "" : item.substr(eq + 1);
    auto bad = [&] {
      throw Error(GSHMEM_ERROR_INVALID_ARGUMENT, "gshmem_init", "GSHMEM_FABRIC_INJECT",
                  "'" + item +
                      "': want a comma-separated list of reorder, delay, error[=RATE], "
                      "eagain[=RATE] (RATE 0..1), storm=MS, seed=N");
    };
    auto number = [&](double lo, double hi, double fallback) {
      if (value.empty()) {
        if (fallback < 0) bad();
        return fallback;
      }
      char* e = nullptr;
      double v = std::strtod(value.c_str(), &e);
      if (*e || !(v >= lo && v <= hi)) bad();
      return v;
    };
    if (key == "reorder" && value.empty()) {
      o->inject_reorder = true;
    } else if (key == "delay" && value.empty()) {
      o->inject_delay = true;
    } else if (key == "error") {
      o->inject_error = number(0, 1, 0.001);
    } else if (key == "eagain") {
      o->inject_eagain = number(0, 1, 0.001);
    } else if (key == "storm") {
      o->inject_storm_ms = number(0, 1e7, -1);
    } else if (key == "seed") {
      o->inject_seed = uint64_t(number(1, 1e18, -1));
    } else {
      bad();
    }
  }
}

std::vector<FabricDescription> Fabric::describe(const std::string& wanted) {
  std::vector<FabricDescription> out;
  for (const std::string& p : candidates(wanted)) {
    bool atomics = false;
    fi_info* info = query(p, &atomics);
    for (fi_info* i = info; i; i = i->next) out.push_back(describe_info(i, atomics));
    if (info) fi_freeinfo(info);
    bool manual_atomics = false;
    fi_info* manual = out.empty() ? nullptr : query(p, &manual_atomics, false, true);
    if (manual) {
      for (FabricDescription& d : out) {
        d.manual_offered = manual->domain_attr->data_progress == FI_PROGRESS_MANUAL;
      }
      fi_freeinfo(manual);
    }
    if (!out.empty()) break;
  }
  return out;
}

Fabric::Fabric(Bootstrap& boot, const FabricOptions& options,
               const std::vector<FabricRegion>& regions, size_t symmetric)
    : options_(options),
      my_pe_(boot.rank()),
      regions_(regions),
      rng_((options.inject_seed ? options.inject_seed : uint64_t(now_ns())) ^
           (uint64_t(boot.rank()) * 0x9e3779b97f4a7c15ULL)) {
  bool atomics = false;
  fi_info* all = nullptr;
  std::string tried;
  bool hmem = std::any_of(regions.begin(), regions.end(),
                          [](const FabricRegion& r) { return r.cuda_device >= 0 && r.size; });
  for (const std::string& p : candidates(options.provider)) {
    if ((all = query(p, &atomics, hmem, options.manual_progress))) break;
    tried += (tried.empty() ? "" : ", ") + p;
  }
  if (!all && hmem) {
    throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "GSHMEM_HEAP",
                "the symmetric heap is in GPU memory and no libfabric RDM provider offers FI_HMEM "
                "to register it (tried " +
                    tried + "); the network path needs a host heap here: set GSHMEM_HEAP=host");
  }
  if (!all) {
    throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "GSHMEM_FABRIC_PROVIDER",
                "no usable libfabric RDM provider (tried " + tried +
                    "); set GSHMEM_FABRIC_PROVIDER to one fi_info lists");
  }
  // One domain (NIC): the one asked for, else topology's choice, else the first that is not
  // loopback.
  fi_info* pick = nullptr;
  for (fi_info* i = all; i && !pick && !options.nic.empty(); i = i->next) {
    if (domain_matches_nic(i->domain_attr->name, options.nic)) pick = i;
  }
  for (fi_info* i = all; i && !pick && options.nic.empty(); i = i->next) {
    if (domain_matches_nic(i->domain_attr->name, options.nic_hint)) pick = i;
  }
  for (fi_info* i = all; i && !pick && options.nic.empty(); i = i->next) {
    if (std::string(i->domain_attr->name) != "lo") pick = i;
  }
  if (!pick && !options.nic.empty()) {
    std::string names;
    for (fi_info* i = all; i; i = i->next) names += std::string(" ") + i->domain_attr->name;
    fi_freeinfo(all);
    throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "GSHMEM_FABRIC_NIC",
                "no domain named \"" + options.nic + "\"; the provider offers:" + names);
  }
  if (!pick) pick = all;
  info_ = fi_dupinfo(pick);
  fi_freeinfo(all);
  desc_ = describe_info(info_, atomics);

  // Every PE must speak the same provider.
  char mine[64] = {};
  std::strncpy(mine, desc_.provider.c_str(), sizeof mine - 1);
  std::vector<char> provs(64 * size_t(boot.size()));
  boot.allgather(mine, provs.data(), sizeof mine, "gshmem_init (fabric provider)");
  for (int pe = 0; pe < boot.size(); ++pe) {
    if (std::strncmp(provs.data() + 64 * pe, mine, sizeof mine) != 0) {
      throw Error(GSHMEM_ERROR_TRANSPORT, "gshmem_init", "GSHMEM_FABRIC_PROVIDER",
                  "PE " + std::to_string(pe) + " uses provider " + (provs.data() + 64 * pe) +
                      ", this PE " + mine + "; set GSHMEM_FABRIC_PROVIDER the same everywhere");
    }
  }

  uint64_t mr_mode = uint64_t(info_->domain_attr->mr_mode);
  local_mr_ = (mr_mode & FI_MR_LOCAL) || options.force_mr_local;
  virt_addr_ = mr_mode & FI_MR_VIRT_ADDR;
  int rc;
  if ((rc = fi_fabric(info_->fabric_attr, &fabric_, nullptr))) fail("fi_fabric", rc);
  if ((rc = fi_domain(fabric_, info_, &domain_, nullptr))) fail("fi_domain", rc);
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_MSG;
  cq_attr.size = 4096;
  cq_attr.wait_obj = FI_WAIT_FD;  // lets an idle proxy sleep until traffic arrives
  if (options.wait_fd && fi_cq_open(domain_, &cq_attr, &cq_, nullptr) == 0) {
    if (fi_control(&cq_->fid, FI_GETWAIT, &wait_fd_) != 0) wait_fd_ = -1;
  } else {
    cq_attr.wait_obj = FI_WAIT_NONE;
    if ((rc = fi_cq_open(domain_, &cq_attr, &cq_, nullptr))) fail("fi_cq_open", rc);
  }
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  av_attr.count = size_t(boot.size());
  if ((rc = fi_av_open(domain_, &av_attr, &av_, nullptr))) fail("fi_av_open", rc);
  if ((rc = fi_endpoint(domain_, info_, &ep_, nullptr))) fail("fi_endpoint", rc);
  if ((rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV))) fail("fi_ep_bind(cq)", rc);
  if ((rc = fi_ep_bind(ep_, &av_->fid, 0))) fail("fi_ep_bind(av)", rc);
  if ((rc = fi_enable(ep_))) fail("fi_enable", rc);

  for (size_t r = 0; r < regions_.size(); ++r) {
    fid_mr* mr = nullptr;
    if (!regions_[r].size) {  // a segment this PE does not have (no static data, say)
      mrs_.push_back(nullptr);
      continue;
    }
    uint64_t access = FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
    if (regions_[r].cuda_device >= 0) {
      iovec iov{regions_[r].base, regions_[r].size};
      fi_mr_attr attr{};
      attr.mr_iov = &iov;
      attr.iov_count = 1;
      attr.access = access;
      attr.requested_key = uint64_t(r + 1);
      attr.iface = FI_HMEM_CUDA;
      attr.device.cuda = regions_[r].cuda_device;
      rc = fi_mr_regattr(domain_, &attr, 0, &mr);
    } else {
      rc = fi_mr_reg(domain_, regions_[r].base, regions_[r].size, access, 0, uint64_t(r + 1), 0,
                     &mr, nullptr);
    }
    if (rc) fail("fi_mr_reg(" + format_bytes(regions_[r].size) + ")", rc);
    if (mr_mode & FI_MR_ENDPOINT) {
      if ((rc = fi_mr_bind(mr, &ep_->fid, 0))) fail("fi_mr_bind", rc);
      if ((rc = fi_mr_enable(mr))) fail("fi_mr_enable", rc);
    }
    mrs_.push_back(mr);
  }

  // Exchange endpoint names, and keys and bases of the symmetric regions.
  struct Card {
    uint64_t name_len;
    char name[kNameBytes];
    uint64_t key[4];
    uint64_t base[4];
  };
  if (symmetric > 4) throw Error(GSHMEM_ERROR_INTERNAL, "gshmem_init", "", "too many segments");
  Card card{};
  card.name_len = kNameBytes;
  if ((rc = fi_getname(&ep_->fid, card.name, &card.name_len))) fail("fi_getname", rc);
  for (size_t s = 0; s < symmetric; ++s) {
    card.key[s] = mrs_[s] ? fi_mr_key(mrs_[s]) : 0;
    card.base[s] = reinterpret_cast<uintptr_t>(regions_[s].base);
  }
  std::vector<Card> cards(static_cast<size_t>(boot.size()));
  boot.allgather(&card, cards.data(), sizeof card, "gshmem_init (fabric addresses)");
  addrs_.assign(cards.size(), FI_ADDR_UNSPEC);
  keys_.resize(cards.size());
  bases_.resize(cards.size());
  for (size_t pe = 0; pe < cards.size(); ++pe) {
    if (fi_av_insert(av_, cards[pe].name, 1, &addrs_[pe], 0, nullptr) != 1) {
      fail("fi_av_insert(PE " + std::to_string(pe) + ")", -FI_EINVAL);
    }
    keys_[pe].assign(cards[pe].key, cards[pe].key + symmetric);
    bases_[pe].assign(cards[pe].base, cards[pe].base + symmetric);
  }
  GSHMEM_INFO(TRANSPORT, "fabric: provider %s, domain %s, mr_mode %s, atomics %s, progress %s",
              desc_.provider.c_str(), desc_.domain.c_str(), desc_.mr_mode.c_str(),
              desc_.atomics ? "native" : "emulated", desc_.progress.c_str());
}

Fabric::~Fabric() {
  // The receives this endpoint still has posted are ours to take back before it closes.
  if (ep_) {
    for (void* ctx : posted_recvs_) fi_cancel(&ep_->fid, ctx);
    fi_close(&ep_->fid);
  }
  for (fid_mr* mr : mrs_) {
    if (mr) fi_close(&mr->fid);
  }
  if (av_) fi_close(&av_->fid);
  if (cq_) fi_close(&cq_->fid);
  if (domain_) fi_close(&domain_->fid);
  if (fabric_) fi_close(&fabric_->fid);
  if (info_) fi_freeinfo(info_);
}

bool Fabric::native_atomic(detail::AmoType type, AmoOp op) const {
  if (!desc_.atomics) return false;
  FiOp f = fi_op_of(op);
  size_t count = 0;
  fi_datatype dt = fi_type(type);
  switch (f.form) {
    case Form::Plain:
      return fi_atomicvalid(ep_, dt, f.op, &count) == 0;
    case Form::Fetch:
      return fi_fetch_atomicvalid(ep_, dt, f.op, &count) == 0;
    case Form::Compare:
      return fi_compare_atomicvalid(ep_, dt, f.op, &count) == 0;
  }
  return false;
}

void* Fabric::desc(const void* p, size_t bytes) const {
  auto a = reinterpret_cast<uintptr_t>(p);
  for (size_t r = 0; r < regions_.size(); ++r) {
    auto b = reinterpret_cast<uintptr_t>(regions_[r].base);
    if (mrs_[r] && a >= b && a + bytes <= b + regions_[r].size) return fi_mr_desc(mrs_[r]);
  }
  if (local_mr_) {
    throw Error(GSHMEM_ERROR_INTERNAL, "fabric", "",
                "a local buffer outside the registered regions reached the provider");
  }
  return nullptr;
}

uint64_t Fabric::remote_addr(int pe, int segment, uint64_t offset) const {
  return virt_addr_ ? bases_[size_t(pe)][size_t(segment)] + offset : offset;
}

uint64_t Fabric::jitter() {
  return options_.inject_delay ? rng_() % 200000 : 0;  // up to 200 us
}

double Fabric::uniform() {
  return double(rng_() >> 11) * 0x1.0p-53;
}

void Fabric::hold(std::function<int()> op, const char* what, int pe) {
  held_.push_back({std::move(op), now_ns() + jitter(), what, pe});
}

bool Fabric::eagain_storm() {
  const uint64_t now = now_ns();
  if (now < storm_until_) return true;
  if (uniform() >= options_.inject_eagain) return false;
  double ms = options_.inject_storm_ms * (0.5 + uniform());
  storm_until_ = now + uint64_t(ms * 1e6);
  if (storms_++ % 100 == 0) {
    GSHMEM_WARN(TRANSPORT, "fault injection: a -FI_EAGAIN storm of %.0f ms (%llu so far)", ms,
                static_cast<unsigned long long>(storms_));
  }
  return true;
}

bool Fabric::refused(int rc, const char* what, int pe) {
  std::string call = std::string(what) + (pe >= 0 ? " to PE " + std::to_string(pe) : "");
  if (rc != -FI_EAGAIN) fail(call, rc);
  // The callers retry at once: this is their wait, and it must hear that the job ends (a PE
  // retrying here when a peer times out would otherwise be killed without naming the call).
  if (options_.abort && options_.abort->raised()) {
    options_.abort->exit_now((call + " (retrying -FI_EAGAIN)").c_str());
  }
  const uint64_t now = now_ns();
  if (!eagain_since_) eagain_since_ = now;
  double waited = double(now - eagain_since_) / 1e9;
  // A provider that stays out of resources this long is broken, or a peer stopped draining it:
  // fail naming the operation rather than spin until the waiters' timeout names only a peer.
  if (options_.eagain_timeout_s > 0 && waited > options_.eagain_timeout_s) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "the provider answered -FI_EAGAIN (out of resources) for %.1f s%s; gave up",
                  waited, options_.inject_eagain > 0 ? " (GSHMEM_FABRIC_INJECT=eagain)" : "");
    throw Error(GSHMEM_ERROR_TRANSPORT, "fabric", "", call + ": " + why);
  }
  return false;
}

void Fabric::write(int pe, int segment, uint64_t offset, const void* src, size_t bytes, void* ctx) {
  void* d = desc(src, bytes);
  uint64_t addr = remote_addr(pe, segment, offset), key = keys_[size_t(pe)][size_t(segment)];
  fi_addr_t dest = addrs_[size_t(pe)];
  post([=, this] { return int(fi_write(ep_, src, bytes, d, dest, addr, key, ctx)); }, "fi_write",
       pe);
}

void Fabric::read(int pe, int segment, uint64_t offset, void* dst, size_t bytes, void* ctx) {
  void* d = desc(dst, bytes);
  uint64_t addr = remote_addr(pe, segment, offset), key = keys_[size_t(pe)][size_t(segment)];
  fi_addr_t dest = addrs_[size_t(pe)];
  post([=, this] { return int(fi_read(ep_, dst, bytes, d, dest, addr, key, ctx)); }, "fi_read", pe);
}

void Fabric::atomic(int pe, int segment, uint64_t offset, detail::AmoType type, AmoOp op,
                    const void* operand, const void* compare, void* result, void* ctx) {
  FiOp f = fi_op_of(op);
  fi_datatype dt = fi_type(type);
  void* od = desc(operand, 8);
  void* cd = compare ? desc(compare, 8) : nullptr;
  void* rd = result ? desc(result, 8) : nullptr;
  uint64_t addr = remote_addr(pe, segment, offset), key = keys_[size_t(pe)][size_t(segment)];
  fi_addr_t dest = addrs_[size_t(pe)];
  switch (f.form) {
    case Form::Plain:
      post(
          [=, this] { return int(fi_atomic(ep_, operand, 1, od, dest, addr, key, dt, f.op, ctx)); },
          "fi_atomic", pe);
      break;
    case Form::Fetch:
      post(
          [=, this] {
            return int(
                fi_fetch_atomic(ep_, operand, 1, od, result, rd, dest, addr, key, dt, f.op, ctx));
          },
          "fi_fetch_atomic", pe);
      break;
    case Form::Compare:
      post(
          [=, this] {
            return int(fi_compare_atomic(ep_, operand, 1, od, compare, cd, result, rd, dest, addr,
                                         key, dt, f.op, ctx));
          },
          "fi_compare_atomic", pe);
      break;
  }
}

void Fabric::send(int pe, const void* buf, size_t bytes, void* ctx) {
  void* d = desc(buf, bytes);
  fi_addr_t dest = addrs_[size_t(pe)];
  post([=, this] { return int(fi_send(ep_, buf, bytes, d, dest, ctx)); }, "fi_send", pe);
}

void Fabric::recv(void* buf, size_t bytes, void* ctx) {
  void* d = desc(buf, bytes);
  auto op = [=, this] { return int(fi_recv(ep_, buf, bytes, d, FI_ADDR_UNSPEC, ctx)); };
  while (!attempt(op, "fi_recv", -1)) read_cq(nullptr);
  posted_recvs_.insert(ctx);
}

int Fabric::read_cq(const Done& done) {
  int delivered = 0;
  bool delay = options_.inject_delay || options_.inject_reorder;
  for (;;) {
    fi_cq_msg_entry entries[16];
    ssize_t n = fi_cq_read(cq_, entries, 16);
    if (n == -FI_EAGAIN) break;
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      fi_cq_readerr(cq_, &err, 0);
      char buf[256];
      const char* why = fi_cq_strerror(cq_, err.prov_errno, err.err_data, buf, sizeof buf);
      std::string msg = std::string(fi_strerror(err.err)) + " (" + (why ? why : "?") + ")";
      if (!(err.flags & FI_RECV)) --in_flight_;
      if (err.flags & FI_RECV) posted_recvs_.erase(err.op_context);
      held_done_.push_back({err.op_context, false, msg, 0});
      continue;
    }
    if (n < 0) fail("fi_cq_read", int(n));
    for (ssize_t i = 0; i < n; ++i) {
      bool recv = entries[i].flags & FI_RECV;
      if (!recv) --in_flight_;
      if (recv) posted_recvs_.erase(entries[i].op_context);
      // Fault injection: the operation completed, its initiator is told it failed (receives
      // are left alone: a lost request would only show as a peer's timeout).
      if (!recv && options_.inject_error > 0 && uniform() < options_.inject_error) {
        held_done_.push_back({entries[i].op_context, false,
                              "injected error completion (GSHMEM_FABRIC_INJECT=error)", 0});
      } else if (delay || !done) {
        held_done_.push_back({entries[i].op_context, true, "", delay ? now_ns() + jitter() : 0});
      } else {
        done(entries[i].op_context, true, "");
        ++delivered;
      }
    }
    if (n < 16) break;
  }
  return delivered;
}

bool Fabric::may_block() {
  if (wait_fd_ < 0 || !held_.empty() || !held_done_.empty()) return false;
  fid* f = &cq_->fid;
  return fi_trywait(fabric_, &f, 1) == 0;
}

int Fabric::progress(const Done& done) {
  // Fault injection: post some held operations, in random order when asked to.
  if (!held_.empty()) {
    uint64_t now = now_ns();
    size_t budget = held_.size();
    while (budget-- && !held_.empty()) {
      size_t k = options_.inject_reorder ? size_t(rng_() % held_.size()) : 0;
      if (held_[k].not_before > now) continue;
      if (!attempt(held_[k].post, held_[k].what, held_[k].pe)) break;
      held_.erase(held_.begin() + long(k));
    }
  }
  int delivered = read_cq(done);
  if (!held_done_.empty()) {
    uint64_t now = now_ns();
    if (options_.inject_reorder) std::shuffle(held_done_.begin(), held_done_.end(), rng_);
    std::vector<HeldCompletion> later;
    std::vector<HeldCompletion> ready;
    ready.swap(held_done_);
    for (auto& h : ready) {
      if (h.not_before > now) {
        later.push_back(std::move(h));
      } else {
        done(h.ctx, h.ok, h.why);
        ++delivered;
      }
    }
    for (auto& h : later) held_done_.push_back(std::move(h));
  }
  return delivered;
}

}  // namespace gshmem
