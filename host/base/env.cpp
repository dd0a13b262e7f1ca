#include "host/base/env.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

extern char** environ;

namespace gshmem {

namespace {

// The registry. Keep it sorted by subsystem; gshmem-info prints it in this order.
const std::vector<EnvSpec> kRegistry = {
    // Core
    {"GSHMEM_SYMMETRIC_SIZE", EnvKind::Size, "1G", nullptr,
     "Bytes of symmetric heap per PE (K/M/G/T suffixes). Host heaps reserve address space for "
     "all of it and use memory only for pages touched.",
     false},
    {"GSHMEM_HEAP", EnvKind::Choice, "auto", "auto|host|device",
     "Where the symmetric heap lives: host memory, GPU memory, or auto (the GPU when one is "
     "usable and the program links gshmem::device, i.e. runs gshmem kernels; host memory "
     "otherwise).",
     false},
    {"GSHMEM_CUDA_DEVICE", EnvKind::Int, "-1", nullptr,
     "CUDA device of this PE (an ordinal as this process sees them). Unset: the device the "
     "application made current before gshmem_init, else the PE's index on its node modulo the "
     "device count (several PEs may share a GPU).",
     false},
    {"GSHMEM_DEVICE_CHECKS", EnvKind::Bool, "0", nullptr,
     "Device-side calls validate PE, address, size and operators and trap with a message naming "
     "the call (a debug mode; host calls always validate).",
     false},
    {"GSHMEM_STATIC_DATA", EnvKind::Bool, "1", nullptr,
     "Make the program's global and static variables symmetric (remote targets of RMA and "
     "atomics, as OpenSHMEM allows) by remapping its data segment onto shareable memory.",
     false},
    {"GSHMEM_TIMEOUT", EnvKind::Seconds, "0", nullptr,
     "Seconds any gshmem wait may last before the job is ended with a message naming the wait "
     "(0: no limit; dead PEs are detected regardless).",
     false},
    {"GSHMEM_WAIT_SLEEP", EnvKind::Seconds, "0", nullptr,
     "Seconds a host thread's wait inside gshmem may go without progress before it naps (20 us "
     "at a time, 200 us after ten times as long; the network's news ends a nap) instead of "
     "polling, so a PE blocked on a slow peer leaves the core to other programs. 0: never; waits "
     "poll, yielding the core after GSHMEM_SPIN_BEFORE_YIELD spins, as MPI and OpenSHMEM "
     "libraries do. Across nodes where the proxy thread naps (GSHMEM_PROXY_IDLE=nap, auto with "
     "one core per PE) a nap is a plain pause, which no news ends early; no effect where it "
     "polls (poll, auto with two cores per PE, GPU heaps). A napping PE serves its peers' "
     "operations later: those that need its progress wait for the nap's end, and those its "
     "provider's own thread applies (sockets where the proxy sleeps) for the idle CPU to wake, "
     "tens of microseconds on a virtual machine.",
     false},
    {"GSHMEM_SPIN_BEFORE_YIELD", EnvKind::Int, "-1", nullptr,
     "Spins of a wait before it starts yielding the core (-1: automatic: about 10 ms, or 4 when "
     "this node's PEs outnumber its cores).",
     false},
    {"GSHMEM_CPU_BIND", EnvKind::Choice, "auto", "auto|none|core",
     "Bind each PE's calling thread to one CPU of its affinity mask (its index among the node's "
     "PEs, modulo the CPUs it may use). auto: only when the node's PEs outnumber the CPUs, where "
     "waiting PEs that hand their core straight to the PE they wait for beat the scheduler's "
     "migrations; none: never; core: always. Threads created later inherit the binding; the "
     "proxy thread, started before, keeps the whole mask.",
     false},
    {"GSHMEM_PUSH_STREAM", EnvKind::Choice, "auto", "auto|plain|stream",
     "How a CPU PE copies 64 KiB or more into memory that another PE reads next (a put to a "
     "peer, a collective's step): plain stores, or streamed (non-temporal) stores, which send "
     "the lines to memory instead of into this core's cache. auto: plain, and streamed for a "
     "while after two slow plain copies in a row (the reader's core is far away and each line "
     "written has to be fetched from it first). On CPUs other than x86-64, always plain.",
     false},
    // Bootstrap
    {"GSHMEM_BOOTSTRAP", EnvKind::Choice, "auto", "auto|launcher|pmix|uid|single",
     "How PEs find each other: gshmemrun's socket, PMIx (mpirun, srun --mpi=pmix), a unique-id "
     "TCP rendezvous (torchrun-style), or a single PE. auto picks launcher, then PMIx, then uid "
     "when torchrun's MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE are set, then single.",
     false},
    {"GSHMEM_BOOTSTRAP_TIMEOUT", EnvKind::Seconds, "120", nullptr,
     "Seconds a bootstrap step (init, malloc agreement, finalize) may wait for the other PEs.",
     false},
    {"GSHMEM_BOOTSTRAP_HELLO_TIMEOUT", EnvKind::Seconds, "5", nullptr,
     "Seconds a connection to a bootstrap server (gshmemrun's socket, the unique-id port) has to "
     "present a complete, correct hello before it is closed.",
     false},
    {"GSHMEM_BOOTSTRAP_UID_ADDR", EnvKind::String, "", nullptr,
     "address:port where rank 0 listens for the unique-id bootstrap (e.g. 10.0.0.1:29500; "
     "default under torchrun: MASTER_ADDR and MASTER_PORT + 1). Rank and size come from "
     "GSHMEM_RANK/GSHMEM_NRANKS, else RANK/WORLD_SIZE.",
     false},
    {"GSHMEM_BOOTSTRAP_UID_SECRET", EnvKind::String, "", nullptr,
     "A secret every rank of a unique-id job started without a unique id "
     "(GSHMEM_BOOTSTRAP_UID_ADDR "
     "or torchrun's variables) sets alike; rank 0 admits only ranks that present it. Without it "
     "anyone who can reach the port and knows the job's size can join.",
     false},
    {"GSHMEM_BOOTSTRAP_UID_IFNAME", EnvKind::String, "", nullptr,
     "Network interface whose IPv4 address rank 0 listens on for the unique-id and PMIx "
     "bootstraps (default: the first non-loopback interface that is up, else loopback).",
     false},
    {"GSHMEM_RANK", EnvKind::Int, "-1", nullptr, "This process's rank for the unique-id bootstrap.",
     false},
    {"GSHMEM_NRANKS", EnvKind::Int, "-1", nullptr, "Number of ranks for the unique-id bootstrap.",
     false},
    {"GSHMEM_DISABLE_P2P", EnvKind::Bool, "0", nullptr,
     "1: no two PEs map each other's heaps, even on one node; every peer is reached through the "
     "network transport (as NVSHMEM_DISABLE_P2P does), so the proxy path can be tested on one "
     "machine.",
     false},
    {"GSHMEM_NODE_ID", EnvKind::String, "", nullptr,
     "Names the node this PE is on; PEs with the same id map each other's memory. Default: the "
     "machine's boot id and network namespace. gshmemrun --ppn sets it to make virtual nodes.",
     false},
    // Network transport
    {"GSHMEM_FABRIC", EnvKind::Choice, "auto", "auto|on|off",
     "Start the libfabric transport and its proxy thread: auto when some PE is on another "
     "(virtual) node, on always, off never (then such PEs are unreachable).",
     false},
    {"GSHMEM_FABRIC_PROVIDER", EnvKind::String, "auto", nullptr,
     "libfabric provider: auto (efa where present, else tcp;ofi_rxm, else sockets) or a name "
     "fi_info lists.",
     false},
    {"GSHMEM_FABRIC_NIC", EnvKind::String, "", nullptr,
     "libfabric domain (NIC) to use, e.g. eth0 or rdmap0s6-rdm (default: the one topology picks "
     "for this PE, else the first non-loopback one).",
     false},
    {"GSHMEM_FABRIC_ATOMICS", EnvKind::Choice, "auto", "auto|native|emulated",
     "Remote atomics: the provider's own (native, where it offers them) or messages applied by "
     "the target's proxy with CPU atomics (emulated, as on EFA).",
     false},
    {"GSHMEM_FABRIC_INJECT", EnvKind::String, "", nullptr,
     "Fault injection for tests, comma-separated: reorder,delay hold back fabric operations and "
     "completions and release them out of order; error[=RATE] turns that fraction of transmit "
     "completions into error completions; eagain[=RATE] makes that fraction of posts start a "
     "storm of -FI_EAGAIN lasting about storm=MS (200); seed=N makes the choices reproducible.",
     false},
    {"GSHMEM_FABRIC_FORCE_MR_LOCAL", EnvKind::Bool, "0", nullptr,
     "Treat the provider as requiring FI_MR_LOCAL (bounce unregistered buffers), as EFA does; "
     "for tests.",
     false},
    {"GSHMEM_TOPOLOGY", EnvKind::String, "", nullptr,
     "hwloc topology to use instead of this machine's: xml:FILE or synthetic:DESC (tests, "
     "what-if placement).",
     false},
    {"GSHMEM_PROXY_RING", EnvKind::Int, "1024", nullptr,
     "Commands in the proxy channel's ring (rounded up to a power of two).", false},
    {"GSHMEM_PROXY_IDLE", EnvKind::Choice, "auto", "auto|sleep|poll|nap",
     "What the proxy thread does while no thread of its PE is inside gshmem: sleep on the "
     "completion queue's file descriptor until the network has news (every completion then "
     "signals it: about 2 us per operation on tcp), poll the network (a busy thread per PE), or "
     "nap: look at the network after pauses of up to 0.1 ms (1 ms once idle for long; an idle PE "
     "then costs about what a sleeping one does). auto: poll where the host has two cores per PE "
     "(and always with GPU producers), nap where it has one, sleep where the PEs outnumber the "
     "cores. Where it polls or naps, a provider that offers manual progress (sockets) gets it "
     "and runs no progress thread of its own.",
     false},
    {"GSHMEM_PROXY_GPUVIEW", EnvKind::Bool, "0", nullptr,
     "Test mode for CPU PEs: the proxy reaches the symmetric segments only as it must reach a GPU "
     "heap (through a PROT_NONE alias that faults on direct access), and producers neither ring "
     "nor drive it, as kernels do not.",
     false},
    // OpenSHMEM wrappers (read by the oshcc and oshc++ scripts, listed here for gshmem-info)
    {"GSHMEM_OSHCC", EnvKind::String, "", nullptr,
     "C compiler oshcc runs (default: the one gshmem was built with).", false},
    {"GSHMEM_OSHCXX", EnvKind::String, "", nullptr,
     "C++ compiler oshc++ runs (default: the one gshmem was built with).", false},
    // Collectives
    {"GSHMEM_ALGO", EnvKind::String, "auto", nullptr,
     "Collective algorithm: auto (the planner), one of direct direct2 ring tree rd hier pairwise "
     "for every collective, or coll:algo pairs (allreduce:ring,broadcast:tree). An algorithm a "
     "collective or team lacks falls back to the planner's choice.",
     false},
    {"GSHMEM_PROTO", EnvKind::String, "auto", nullptr,
     "Collective protocol: auto (the planner), simple (data, then a flag; readers ack), or ll "
     "(low latency: data and its tag written together into the reader's buffer, several calls "
     "in flight; the direct algorithm on one node of at most 8 PEs, one channel). Where ll does "
     "not apply the call uses simple.",
     false},
    {"GSHMEM_NCHANNELS", EnvKind::Int, "0", nullptr,
     "Channels per collective (0: the planner decides; at most 16). CPU PEs run them one after "
     "another; a GPU runs one thread block per channel.",
     false},
    {"GSHMEM_CHUNK_SIZE", EnvKind::Size, "0", nullptr,
     "Bytes per pipelining step of the push algorithms (0: the planner decides; capped by the "
     "scratch slots).",
     false},
    {"GSHMEM_ADAPT", EnvKind::Choice, "1", "1|bits|0|on|off|yes|no|true|false",
     "Live choices: CPU PEs time long collective calls (256 KiB and up, or expected to take 10 "
     "us) whose algorithm and protocol the planner chose; the team's members run each close "
     "candidate once in a call shape's first epochs, and again when the one they run is far "
     "slower than expected, and agree to run the fastest. 1: any algorithm (a floating-point "
     "reduction may then differ in its last bits from an earlier call of the same shape, never "
     "between the members of one call); bits: only algorithms that give the same result bit for "
     "bit (floating reductions switch within the direct family only); 0: every call runs the plan "
     "made when its shape was first seen. The same on every PE.",
     false},
    {"GSHMEM_ADAPT_PROBE", EnvKind::Bool, "0", nullptr,
     "1: live choices run each close candidate for one epoch in a call shape's first epochs, and "
     "keep the plan unless another beat it by more than 10%: a calibration made in another state "
     "of the machine is found out even where the plan runs as expected. Off by default: the "
     "probe's epochs fall inside short benchmarks (a perftest's 5 + 20 calls per size). The same "
     "on every PE.",
     false},
    {"GSHMEM_CALIBRATION", EnvKind::Choice, "auto", "auto|off",
     "auto: the collectives planner uses this host's calibration file (gshmem-info --calibrate "
     "writes it; PE 0 reads it at gshmem_init and every PE gets its text), else its constants; "
     "off: the constants only.",
     false},
    {"GSHMEM_CALIBRATION_FILE", EnvKind::String, "", nullptr,
     "The calibration file (default: $XDG_CACHE_HOME or ~/.cache, gshmem/calibration-HOST-"
     "BUILD.txt, one per host and build of libgshmem).",
     false},
    {"GSHMEM_COLL_SCRATCH", EnvKind::Size, "8M", nullptr,
     "Symmetric scratch per PE for collectives, shared by all teams (at least 256K). Larger "
     "means fewer, longer pipeline rounds.",
     false},
    {"GSHMEM_CHECK_CALLS", EnvKind::Bool, "0", nullptr,
     "Before every collective and MoE create/dispatch/combine of CPU PEs, the team's members "
     "exchange a descriptor of the call (which call, team, count, type, operator, root, MoE "
     "config) and fail alike, naming the argument and the PEs on each side, when they differ "
     "(instead of hanging or computing garbage). Costs one all-to-all of 128 B per call (about "
     "1 us at 2 PEs on one node) and 256 B per PE per team slot of heap; the tests run with it.",
     false},
    // Diagnostics
    {"GSHMEM_DEBUG", EnvKind::Choice, "WARN", "NONE|WARN|INFO|TRACE",
     "Log level. Lines carry host, pid and PE.", false},
    {"GSHMEM_DEBUG_SUBSYS", EnvKind::String, "ALL", nullptr,
     "Comma-separated subsystems to log: INIT,BOOTSTRAP,HEAP,TEAM,TRANSPORT,PROXY,COLL,MOE or "
     "ALL; a leading ^ excludes.",
     false},
    // Set by gshmemrun for its PEs.
    {"GSHMEM_LAUNCHER_ADDR", EnvKind::String, "", nullptr,
     "Unix socket (in a private directory) of the gshmemrun that started this PE.", true},
    {"GSHMEM_LAUNCHER_SECRET", EnvKind::String, "", nullptr,
     "Per-job secret a PE presents to gshmemrun.", true},
    {"GSHMEM_LAUNCHER_PE", EnvKind::Int, "-1", nullptr, "This PE's number, from gshmemrun.", true},
    {"GSHMEM_LAUNCHER_NPES", EnvKind::Int, "-1", nullptr, "Number of PEs, from gshmemrun.", true},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_int(std::string_view text, int64_t* out) {
  std::string s(trim(text));
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

bool in_choices(const char* choices, std::string_view value) {
  std::string_view all(choices);
  while (!all.empty()) {
    size_t bar = all.find('|');
    if (all.substr(0, bar) == value) return true;
    if (bar == std::string_view::npos) break;
    all.remove_prefix(bar + 1);
  }
  return false;
}

const char* expected_form(const EnvSpec& spec) {
  switch (spec.kind) {
    case EnvKind::Bool:
      return "0 or 1";
    case EnvKind::Int:
      return "an integer";
    case EnvKind::Size:
      return "a size such as 4096, 512M or 2G";
    case EnvKind::Seconds:
      return "seconds, such as 30 or 0.5";
    case EnvKind::Choice:
      return spec.choices;
    case EnvKind::String:
      return "a string";
  }
  return "a value";
}

bool valid(const EnvSpec& spec, std::string_view value) {
  int64_t i;
  uint64_t u;
  double d;
  bool b;
  switch (spec.kind) {
    case EnvKind::Bool:
      return Env::parse_bool(value, &b);
    case EnvKind::Int:
      return parse_int(value, &i);
    case EnvKind::Size:
      return Env::parse_size(value, &u);
    case EnvKind::Seconds:
      return Env::parse_seconds(value, &d);
    case EnvKind::Choice:
      return in_choices(spec.choices, value);
    case EnvKind::String:
      return true;
  }
  return false;
}

}  // namespace

const std::vector<EnvSpec>& Env::registry() {
  return kRegistry;
}

bool Env::accepts(const EnvSpec& spec, std::string_view value) {
  return valid(spec, value);
}

bool Env::parse_bool(std::string_view text, bool* out) {
  std::string s(trim(text));
  for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (s == "1" || s == "true" || s == "yes" || s == "on") return *out = true, true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return *out = false, true;
  return false;
}

bool Env::parse_size(std::string_view text, uint64_t* bytes) {
  std::string s(trim(text));
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno || end == s.c_str() || v < 0 || !std::isfinite(v)) return false;
  std::string unit(trim(end));
  for (auto& ch : unit) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
  double mult = 1;
  if (unit.empty() || unit == "B") {
    mult = 1;
  } else if (unit == "K") {
    mult = 1024.0;
  } else if (unit == "M") {
    mult = 1024.0 * 1024;
  } else if (unit == "G") {
    mult = 1024.0 * 1024 * 1024;
  } else if (unit == "T") {
    mult = 1024.0 * 1024 * 1024 * 1024;
  } else {
    return false;
  }
  double total = v * mult;
  if (total >= 18446744073709551615.0 || total != std::floor(total)) return false;
  *bytes = uint64_t(total);
  return true;
}

bool Env::parse_seconds(std::string_view text, double* seconds) {
  std::string s(trim(text));
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  std::string_view unit = trim(end);
  if (errno || end == s.c_str() || v < 0 || !std::isfinite(v)) return false;
  if (unit == "ms") {
    v /= 1000;
  } else if (unit == "m" || unit == "min") {
    v *= 60;
  } else if (!unit.empty() && unit != "s") {
    return false;
  }
  // Longer than anything runs means never; the bound keeps every conversion (nanoseconds, time_t,
  // clock deadlines) in range.
  *seconds = std::min(v, kForeverSeconds);
  return true;
}

Env::Env() {
  bool bad = false;
  for (const EnvSpec& spec : kRegistry) {
    const char* v = std::getenv(spec.name);
    Entry e{&spec, v ? v : spec.default_value, v != nullptr};
    if (v && !valid(spec, e.value)) {
      std::fprintf(stderr, "gshmem: %s=\"%s\" is not valid: expected %s (default %s)\n", spec.name,
                   v, expected_form(spec), spec.default_value);
      bad = true;
    }
    entries_.push_back(std::move(e));
  }
  if (bad) std::exit(2);
  for (char** p = environ; p && *p; ++p) {
    std::string_view kv(*p);
    if (kv.rfind("GSHMEM_", 0) != 0) continue;
    std::string name(kv.substr(0, kv.find('=')));
    bool known = false;
    for (const EnvSpec& spec : kRegistry) known = known || name == spec.name;
    if (!known) unknown_.push_back(name);
  }
}

const Env& Env::get() {
  static const Env env;
  return env;
}

const Env::Entry& Env::entry(std::string_view name, EnvKind expected) const {
  for (const Entry& e : entries_) {
    if (e.spec->name == name) {
      if (e.spec->kind != expected &&
          !(expected == EnvKind::String && e.spec->kind == EnvKind::Choice)) {
        std::fprintf(stderr, "gshmem: internal error: %.*s read with the wrong type\n",
                     int(name.size()), name.data());
        std::abort();
      }
      return e;
    }
  }
  std::fprintf(stderr, "gshmem: internal error: %.*s is not in the registry\n", int(name.size()),
               name.data());
  std::abort();
}

bool Env::flag(std::string_view name) const {
  bool b = false;
  parse_bool(entry(name, EnvKind::Bool).value, &b);
  return b;
}

int64_t Env::integer(std::string_view name) const {
  int64_t i = 0;
  parse_int(entry(name, EnvKind::Int).value, &i);
  return i;
}

uint64_t Env::size(std::string_view name) const {
  uint64_t b = 0;
  parse_size(entry(name, EnvKind::Size).value, &b);
  return b;
}

double Env::seconds(std::string_view name) const {
  double s = 0;
  parse_seconds(entry(name, EnvKind::Seconds).value, &s);
  return s;
}

uint64_t Env::to_nanoseconds(double seconds) {
  double ns = seconds * 1e9;
  if (ns >= 0x1p64) return UINT64_MAX;
  // A positive value never rounds down to 0, which means "never" to its readers.
  return ns > 0 && ns < 1 ? 1 : uint64_t(ns);
}

uint64_t Env::nanoseconds(std::string_view name) const {
  return to_nanoseconds(seconds(name));
}

const std::string& Env::str(std::string_view name) const {
  return entry(name, EnvKind::String).value;
}

bool Env::is_set(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.spec->name == name) return e.from_environment;
  }
  return false;
}

std::string format_bytes(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[48];
  if (v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  } else {
    // Never round up to a whole unit: "1023.98 MiB" is not "1 GiB".
    double shown = std::floor(v * 100) / 100;
    std::snprintf(buf, sizeof buf, "%.2f %s", shown, units[u]);
  }
  return buf;
}

}  // namespace gshmem
