#include "perftest/coll/nccl_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>

namespace collperf {

namespace {

const char* const kOpNames[] = {"allreduce", "allgather", "reducescatter",
                                "broadcast", "alltoall",  "reduce"};
const char* const kNcclNames[] = {"all_reduce", "all_gather", "reduce_scatter",
                                  "broadcast",  "alltoall",   "reduce"};
const char* const kTypeNames[] = {"float", "double", "half",   "bfloat16", "int8",
                                  "uint8", "int32",  "uint32", "int64",    "uint64"};
const size_t kTypeSizes[] = {4, 8, 2, 2, 1, 1, 4, 4, 8, 8};
const char* const kRedopNames[] = {"sum", "prod", "min", "max", "avg"};

// nccl-tests' number format: as many decimals as fit the width.
std::string num(double value, int width) {
  char buf[32];
  int power = 0;
  for (uint64_t v = 1; value >= double(v) && power < 19; v *= 10) power++;
  if (power < width - 2) {
    std::snprintf(buf, sizeof buf, "%*.2f", width, value);
  } else if (power < width - 1) {
    std::snprintf(buf, sizeof buf, "%*.1f", width, value);
  } else if (power < width + 1) {
    std::snprintf(buf, sizeof buf, "%*.0f", width, value);
  } else {
    std::snprintf(buf, sizeof buf, "%*.1e", width, value);
  }
  return buf;
}

// Half and bfloat16 conversions for small integers (exact both ways).
uint16_t int_to_half(int v) {
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned a = unsigned(v < 0 ? -v : v);
  int e = 0;
  while ((a >> e) > 1) ++e;
  uint16_t mant = uint16_t(((a << 10) >> e) & 0x3ff);
  return uint16_t(sign | uint16_t((e + 15) << 10) | mant);
}
double half_to_double(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
uint16_t int_to_bf16(int v) {
  float f = float(v);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return uint16_t(x >> 16);
}
double bf16_to_double(uint16_t h) {
  uint32_t x = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

bool is_unsigned(Type t) {
  return t == Type::Uint8 || t == Type::Uint32 || t == Type::Uint64;
}

// PE p's element k: a small integer; +-1 for PROD so products stay exact and tiny. Unsigned
// types get non-negative values (0..8, PROD 1 or 2), so nothing wraps past what a double holds.
int value(Type t, Redop r, int p, size_t k, uint64_t salt) {
  uint64_t h = (uint64_t(p) * 0x9e3779b97f4a7c15ull) ^ (uint64_t(k) * 0xbf58476d1ce4e5b9ull) ^ salt;
  h ^= h >> 29;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 32;
  if (r == Redop::Prod) return (h & 1) ? 1 : is_unsigned(t) ? 2 : -1;
  return int(h % 9) - (is_unsigned(t) ? 0 : 4);
}

void store(Type t, void* buf, size_t i, double v) {
  switch (t) {
    case Type::Float:
      static_cast<float*>(buf)[i] = float(v);
      break;
    case Type::Double:
      static_cast<double*>(buf)[i] = v;
      break;
    case Type::Half:
      static_cast<uint16_t*>(buf)[i] = int_to_half(int(v));
      break;
    case Type::BFloat16:
      static_cast<uint16_t*>(buf)[i] = int_to_bf16(int(v));
      break;
    case Type::Int8:
      static_cast<int8_t*>(buf)[i] = int8_t(v);
      break;
    case Type::Uint8:
      static_cast<uint8_t*>(buf)[i] = uint8_t(int64_t(v));
      break;
    case Type::Int32:
      static_cast<int32_t*>(buf)[i] = int32_t(v);
      break;
    case Type::Uint32:
      static_cast<uint32_t*>(buf)[i] = uint32_t(int64_t(v));
      break;
    case Type::Int64:
      static_cast<int64_t*>(buf)[i] = int64_t(v);
      break;
    case Type::Uint64:
      static_cast<uint64_t*>(buf)[i] = uint64_t(int64_t(v));
      break;
  }
}

double load(Type t, const void* buf, size_t i) {
  switch (t) {
    case Type::Float:
      return static_cast<const float*>(buf)[i];
    case Type::Double:
      return static_cast<const double*>(buf)[i];
    case Type::Half:
      return half_to_double(static_cast<const uint16_t*>(buf)[i]);
    case Type::BFloat16:
      return bf16_to_double(static_cast<const uint16_t*>(buf)[i]);
    case Type::Int8:
      return static_cast<const int8_t*>(buf)[i];
    case Type::Uint8:
      return static_cast<const uint8_t*>(buf)[i];
    case Type::Int32:
      return static_cast<const int32_t*>(buf)[i];
    case Type::Uint32:
      return static_cast<const uint32_t*>(buf)[i];
    case Type::Int64:
      return double(static_cast<const int64_t*>(buf)[i]);
    case Type::Uint64:
      return double(static_cast<const uint64_t*>(buf)[i]);
  }
  return 0;
}

// What `store` makes of v in type t (unsigned types wrap, narrow ones too), as a double.
double as_type(Type t, double v) {
  unsigned char tmp[8];
  store(t, tmp, 0, v);
  return load(t, tmp, 0);
}

// The reduction of element k over n PEs, as type t holds it.
double reduced(Type t, Redop r, size_t k, int n, uint64_t salt) {
  double acc = as_type(t, value(t, r, 0, k, salt));
  for (int p = 1; p < n; ++p) {
    double v = as_type(t, value(t, r, p, k, salt));
    switch (r) {
      case Redop::Prod:
        acc *= v;
        break;
      case Redop::Min:
        acc = std::fmin(acc, v);
        break;
      case Redop::Max:
        acc = std::fmax(acc, v);
        break;
      default:
        acc += v;
        break;
    }
  }
  if (r == Redop::Avg) {
    // The library divides the exact sum once in the type's arithmetic (fp32 for half/bf16).
    if (t == Type::Float || t == Type::Half || t == Type::BFloat16) {
      const float q = float(acc) / float(n);
      if (t == Type::Float || q == 0) return q;
      // Round the fp32 quotient to nearest-even with the 16-bit type's significand.
      const int bits = t == Type::Half ? 11 : 8;
      int e;
      std::frexp(std::fabs(double(q)), &e);
      const int ulp = t == Type::Half ? std::max(e - bits, -24) : e - bits;
      return std::ldexp(std::nearbyint(std::ldexp(double(q), -ulp)), ulp);
    }
    return acc / n;
  }
  return as_type(t, acc);
}

}  // namespace

const char* op_name(Op c) {
  return kOpNames[int(c)];
}
bool parse_op(const std::string& s, Op* out) {
  for (int i = 0; i < 6; ++i) {
    if (s == kOpNames[i] || s == kNcclNames[i]) return *out = Op(i), true;
  }
  return false;
}
double bus_factor(Op c, int n) {
  switch (c) {
    case Op::AllReduce:
      return 2.0 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll:
      return double(n - 1) / n;
    default:
      return 1;
  }
}
bool has_root(Op c) {
  return c == Op::Broadcast || c == Op::Reduce;
}
bool reduces(Op c) {
  return c == Op::AllReduce || c == Op::ReduceScatter || c == Op::Reduce;
}
const char* type_name(Type t) {
  return kTypeNames[int(t)];
}
size_t type_size(Type t) {
  return kTypeSizes[int(t)];
}
const char* redop_name(Redop r) {
  return kRedopNames[int(r)];
}

Config parse(int argc, char** argv, const char* program, const char* what, bool speak, bool gshmem,
             int* exit_code) {
  Config cfg;
  cfg.base.min_size = 8;
  cfg.base.max_size = 32u << 20;
  cfg.base.factor = 2;
  cfg.base.iters = 20;
  cfg.base.warmup = 5;
  *exit_code = -1;
  auto fail = [&](const std::string& why) {
    if (speak) std::fprintf(stderr, "%s: %s (try -h)\n", program, why.c_str());
    *exit_code = 2;
    return cfg;
  };
  // nccl-tests' own flags are taken here; the rest go to perftest::parse_args.
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool takes = a == "-c" || a == "-d" || a == "-o" || a == "-r";
    if (a == "--private" || a == "--floor" || a == "--no-floor") {
      if (!gshmem) return fail(a + " is a gshmem option");
      if (a == "--private") cfg.symmetric = false;
      if (a != "--private") cfg.floor = a == "--floor";
      continue;
    }
    if (a == "-h" || a == "--help") {
      if (speak) {
        std::printf(
            "usage: %s [options]\n%s\n"
            "  -b MIN -e MAX -f FACTOR   sizes in bytes (K/M/G), as nccl-tests (default 8 .. 32M, "
            "x2)\n"
            "  -n ITERS -w WARMUP        timed and untimed iterations per size (default 20, 5)\n"
            "  -c 0|1                    check results (default 1)\n"
            "  -d TYPE                   float double half bfloat16 int8 uint8 int32 uint32 int64 "
            "uint64\n"
            "  -o OP                     sum prod min max avg (reducing collectives)\n"
            "  -r ROOT                   root PE (broadcast, reduce)\n"
            "%s"
            "  --json                    also print each row as a JSON line\n",
            program, what,
            gshmem ? "  --private                 buffers from malloc instead of the symmetric "
                     "heap\n"
                     "  --floor, --no-floor       measure memory bandwidth and print the fraction "
                     "of the\n"
                     "                            memory floor reached (default: when MAX >= 1M)\n"
                   : "");
      }
      *exit_code = 0;
      return cfg;
    }
    if (!takes) {
      rest.push_back(argv[i]);
      continue;
    }
    if (i + 1 >= argc) return fail(a + " needs a value");
    std::string v = argv[++i];
    if (a == "-c") {
      cfg.check = v != "0";
    } else if (a == "-r") {
      cfg.root = std::atoi(v.c_str());
    } else if (a == "-d") {
      bool ok = false;
      for (int t = 0; t < 10; ++t) {
        if (v == kTypeNames[t]) cfg.type = Type(t), ok = true;
      }
      if (!ok) return fail("unknown type '" + v + "'");
    } else {
      bool ok = false;
      for (int r = 0; r < 5; ++r) {
        if (v == kRedopNames[r]) cfg.redop = Redop(r), ok = true;
      }
      if (!ok) return fail("unknown op '" + v + "'");
    }
  }
  perftest::Usage usage{program, what, nullptr};
  perftest::Args args = perftest::parse_args(int(rest.size()), rest.data(), usage, cfg.base, speak);
  if (args.exit_code) {
    *exit_code = *args.exit_code;
    return cfg;
  }
  cfg.base = args.over(cfg.base);
  bool integer = cfg.type >= Type::Int8;
  if (cfg.redop == Redop::Avg && integer) return fail("-o avg needs a floating type");
  return cfg;
}

Shape shape_for(Op c, size_t bytes, int n, size_t es) {
  Shape s{};
  size_t count = bytes / es;
  switch (c) {
    case Op::AllGather:
      s.per_peer = count / size_t(n);
      s.send_count = s.per_peer;
      s.recv_count = s.per_peer * size_t(n);
      s.count = s.recv_count;
      break;
    case Op::ReduceScatter:
      s.per_peer = count / size_t(n);
      s.send_count = s.per_peer * size_t(n);
      s.recv_count = s.per_peer;
      s.count = s.send_count;
      break;
    case Op::AllToAll:
      s.per_peer = count / size_t(n);
      s.send_count = s.recv_count = s.per_peer * size_t(n);
      s.count = s.send_count;
      break;
    default:
      s.per_peer = s.send_count = s.recv_count = s.count = count;
      break;
  }
  s.bytes = s.count * es;
  return s;
}

std::vector<Shape> measured_shapes(Op c, const std::vector<size_t>& sizes, int n, size_t es) {
  std::vector<Shape> shapes;
  for (size_t bytes : sizes) {
    Shape s = shape_for(c, bytes, n, es);
    if (s.per_peer > 0) shapes.push_back(s);
  }
  return shapes;
}

void fill(Type t, Redop r, void* buf, size_t count, int pe, uint64_t salt) {
  for (size_t k = 0; k < count; ++k) store(t, buf, k, value(t, r, pe, k, salt));
}

size_t count_wrong(Op c, Type t, Redop r, const void* dst, const Shape& s, int pe, int n, int root,
                   uint64_t salt) {
  size_t wrong = 0;
  auto expect = [&](size_t i, double want) {
    if (load(t, dst, i) != want) ++wrong;
  };
  switch (c) {
    case Op::AllReduce:
      for (size_t i = 0; i < s.recv_count; ++i) expect(i, reduced(t, r, i, n, salt));
      break;
    case Op::Reduce:
      if (pe != root) break;
      for (size_t i = 0; i < s.recv_count; ++i) expect(i, reduced(t, r, i, n, salt));
      break;
    case Op::ReduceScatter:
      for (size_t i = 0; i < s.recv_count; ++i) {
        expect(i, reduced(t, r, size_t(pe) * s.per_peer + i, n, salt));
      }
      break;
    case Op::AllGather:
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < s.per_peer; ++i) {
          expect(size_t(p) * s.per_peer + i, as_type(t, value(t, r, p, i, salt)));
        }
      }
      break;
    case Op::Broadcast:
      for (size_t i = 0; i < s.recv_count; ++i) expect(i, as_type(t, value(t, r, root, i, salt)));
      break;
    case Op::AllToAll:
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < s.per_peer; ++i) {
          expect(size_t(p) * s.per_peer + i,
                 as_type(t, value(t, r, p, size_t(pe) * s.per_peer + i, salt)));
        }
      }
      break;
  }
  return wrong;
}

Table::Table(Op c, const Config& cfg, int n, bool speak, bool floor)
    : op_(c), cfg_(cfg), n_(n), speak_(speak), floor_(floor) {}

void Table::header() {
  if (!speak_) return;
  std::printf("#\n");
  std::printf(
      "#                                                              out-of-place                "
      "       in-place          %s\n",
      floor_ ? "    memory floor      " : "");
  std::printf(
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong%s\n",
      floor_ ? "     time  floor floor_ip" : "");
  std::printf(
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)       %s\n",
      floor_ ? "     (us)               " : "");
  std::fflush(stdout);
}

void Table::row(const Shape& s, const Result& o, const Result& ip, const std::string& json_extra) {
  for (const Result* r : {&o, &ip}) {
    if (r->wrong > 0) wrong_ += r->wrong;
  }
  busbw_sum_ += ip.busbw;
  ++rows_;
  if (!speak_) return;
  const int root = has_root(op_) ? cfg_.root : -1;
  std::printf("%12zu  %12zu  %8s  %6s  %6i", s.bytes, s.count, type_name(cfg_.type),
              reduces(op_) ? redop_name(cfg_.redop) : "none", root);
  for (const Result* r : {&o, &ip}) {
    if (r->wrong >= 0) {
      std::printf("  %7s  %6s  %6s  %5ld", num(r->time_us, 7).c_str(), num(r->algbw, 6).c_str(),
                  num(r->busbw, 6).c_str(), r->wrong);
    } else {
      std::printf("  %7s  %6s  %6s    N/A", num(r->time_us, 7).c_str(), num(r->algbw, 6).c_str(),
                  num(r->busbw, 6).c_str());
    }
  }
  // The fraction of the floor reached, or "-" where the algorithm's traffic is not modelled.
  auto fraction = [](const Result& r) {
    char buf[16] = "-";
    if (r.floor_us > 0 && r.time_us > 0)
      std::snprintf(buf, sizeof buf, "%.2f", r.floor_us / r.time_us);
    return std::string(buf);
  };
  if (floor_) {
    std::printf("  %7s  %5s  %7s", o.floor_us > 0 ? num(o.floor_us, 7).c_str() : "-",
                fraction(o).c_str(), fraction(ip).c_str());
  }
  std::printf("\n");
  std::string floor_json;
  if (floor_) {
    char buf[160];
    auto frac = [](const Result& r) {
      return r.floor_us > 0 && r.time_us > 0 ? r.floor_us / r.time_us : 0;
    };
    std::snprintf(buf, sizeof buf,
                  ",\"floor_us\":%.6g,\"floor\":%.6g,\"floor_us_ip\":%.6g,\"floor_ip\":%.6g",
                  std::max(o.floor_us, 0.0), frac(o), std::max(ip.floor_us, 0.0), frac(ip));
    floor_json = buf;
  }
  if (cfg_.base.json) {
    std::printf(
        "{\"test\":\"%s\",\"npes\":%d,\"size\":%zu,\"count\":%zu,\"type\":\"%s\",\"redop\":\"%s\","
        "\"root\":%d,\"time\":%.6g,\"algbw\":%.6g,\"busbw\":%.6g,\"wrong\":%ld,\"time_ip\":%.6g,"
        "\"algbw_ip\":%.6g,\"busbw_ip\":%.6g,\"wrong_ip\":%ld%s%s%s}\n",
        op_name(op_), n_, s.bytes, s.count, type_name(cfg_.type), redop_name(cfg_.redop), root,
        o.time_us, o.algbw, o.busbw, o.wrong, ip.time_us, ip.algbw, ip.busbw, ip.wrong,
        floor_json.c_str(), json_extra.empty() ? "" : ",", json_extra.c_str());
  }
  std::fflush(stdout);
}

long Table::footer() {
  if (speak_) {
    std::printf("# Out of bounds values : %ld %s\n", wrong_, wrong_ ? "FAILED" : "OK");
    std::printf("# Avg bus bandwidth    : %g \n", rows_ ? busbw_sum_ / rows_ : 0.0);
    std::printf("#\n");
    std::fflush(stdout);
  }
  return wrong_;
}

}  // namespace collperf
