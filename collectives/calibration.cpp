#include "collectives/calibration.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "host/base/env.hpp"

namespace gshmem::coll {

const CalCurve* CalTable::find(Coll coll, Algo algo, Proto proto, int run) const {
  for (const CalCurve& c : curves) {
    if (c.coll == coll && c.algo == algo && c.proto == proto && c.run == run) return &c;
  }
  return nullptr;
}

namespace {

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / double(v.size());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// cv's point i over the median of the runs' times (`all`, the candidate's curve in each run) at
// its size; *med and *least, when given: that median and the least of those times.
double ratio_to_runs(const std::vector<const CalCurve*>& all, const CalCurve& cv, size_t i,
                     double* med = nullptr, double* least = nullptr) {
  std::vector<double> at;
  for (const CalCurve* c : all) at.push_back(interpolate(*c, cv.points[i].first));
  const double m = median(at);
  if (med) *med = m;
  if (least) *least = *std::min_element(at.begin(), at.end());
  return m > 0 ? cv.points[i].second / m : 1;
}

// cv's point i as CalTable::repaired counts it.
double repaired_point(const std::vector<const CalCurve*>& all, const CalCurve& cv, size_t i) {
  const double t = cv.points[i].second;
  double med = 0, least = 0;
  const double q = ratio_to_runs(all, cv, i, &med, &least);
  if (q <= kGlitch) return t;
  double g = 0;  // the larger neighbour's ratio
  if (i > 0) g = std::max(g, ratio_to_runs(all, cv, i - 1));
  if (i + 1 < cv.points.size()) g = std::max(g, ratio_to_runs(all, cv, i + 1));
  if (q <= kGlitch * g) return t;
  // Never below what some run measured at that size: a neighbour's fast moment is not evidence
  // for a time nobody saw.
  return std::max(med * g, least);
}

// cv's candidate's curve in each run of t that measured it.
std::vector<const CalCurve*> runs_of(const CalTable& t, const CalCurve& cv) {
  std::vector<const CalCurve*> all;
  for (int r = 0; r < t.runs; ++r) {
    if (const CalCurve* c = t.find(cv.coll, cv.algo, cv.proto, r)) all.push_back(c);
  }
  return all;
}

}  // namespace

CalCurve CalTable::repaired(const CalCurve& cv) const {
  const std::vector<const CalCurve*> all = runs_of(*this, cv);
  CalCurve out = cv;
  if (all.size() < 3 || cv.points.size() < 2) return out;
  for (size_t i = 0; i < cv.points.size(); ++i) out.points[i].second = repaired_point(all, cv, i);
  return out;
}

double CalTable::repaired_at(const CalCurve& cv, uint64_t bytes) const {
  const auto& p = cv.points;
  const std::vector<const CalCurve*> all = runs_of(*this, cv);
  if (all.size() < 3 || p.size() < 2) return interpolate(cv, bytes);
  // Only the points interpolate() reads at `bytes`: the first at or below it, else the pair
  // around it (the last two beyond the largest).
  if (bytes <= p.front().first) return repaired_point(all, cv, 0);
  size_t hi = 1;
  while (hi + 1 < p.size() && p[hi].first < bytes) ++hi;
  CalCurve two{cv.coll, cv.algo, cv.proto, {}, cv.run};
  two.points = {{p[hi - 1].first, repaired_point(all, cv, hi - 1)},
                {p[hi].first, repaired_point(all, cv, hi)}};
  return interpolate(two, bytes);
}

double CalTable::mean_us(Coll coll, Algo algo, Proto proto, uint64_t bytes) const {
  std::vector<double> t;
  for (const CalCurve& c : curves) {
    if (c.coll == coll && c.algo == algo && c.proto == proto) t.push_back(interpolate(c, bytes));
  }
  return t.empty() ? -1 : mean(t);
}

int CalTable::choose(Coll coll, const std::vector<std::pair<Algo, Proto>>& cands, uint64_t bytes,
                     double* us) const {
  // times[r * nc + c]: candidate c in run r (-1: not measured there).
  const size_t nc = cands.size();
  std::vector<double> times(size_t(runs) * nc, -1.0), least(size_t(runs), -1.0);
  for (int r = 0; r < runs; ++r) {
    for (size_t c = 0; c < nc; ++c) {
      const CalCurve* cv = find(coll, cands[c].first, cands[c].second, r);
      if (!cv) continue;
      const double t = repaired_at(*cv, bytes);
      times[size_t(r) * nc + c] = t;
      if (least[size_t(r)] < 0 || t < least[size_t(r)]) least[size_t(r)] = t;
    }
  }
  int chosen = -1;
  double chosen_loss = 0, chosen_us = 0;
  // Each run's loss and time as the choice counts them: at most kLossCap times the run's least.
  std::vector<double> losses, capped;
  for (size_t c = 0; c < nc; ++c) {
    losses.clear();
    capped.clear();
    for (int r = 0; r < runs; ++r) {
      const double t = times[size_t(r) * nc + c];
      if (t < 0) continue;
      losses.push_back(std::min(t / least[size_t(r)], kLossCap));
      capped.push_back(std::min(t, kLossCap * least[size_t(r)]));
    }
    if (losses.empty()) continue;
    const double loss = mean(losses), t = mean(capped);
    // Losses within 0.1% of each other are a tie.
    const bool better =
        chosen < 0 || loss < chosen_loss * 0.999 || (loss <= chosen_loss * 1.001 && t < chosen_us);
    if (better) {
      chosen = int(c);
      chosen_loss = loss;
      chosen_us = t;
    }
  }
  if (us) *us = chosen_us;
  return chosen;
}

void CalTable::add_run(const CalTable& job, bool fresh, int keep) {
  std::vector<CalCurve> kept;
  std::vector<int> present;  // the runs that keep a curve
  for (CalCurve& c : curves) {
    if (fresh && job.covers(c.coll)) continue;
    present.push_back(c.run);
    kept.push_back(std::move(c));
  }
  std::sort(present.begin(), present.end());
  present.erase(std::unique(present.begin(), present.end()), present.end());
  // Renumbered 0, 1, ... in order, the oldest dropped beyond `keep` with the job's run.
  const int drop = std::max(0, int(present.size()) + 1 - std::max(1, keep));
  curves.clear();
  for (CalCurve& c : kept) {
    const int at = int(std::lower_bound(present.begin(), present.end(), c.run) - present.begin());
    if (at < drop) continue;
    c.run = at - drop;
    curves.push_back(std::move(c));
  }
  runs = int(present.size()) - drop + 1;
  for (CalCurve c : job.curves) {
    c.run = runs - 1;
    curves.push_back(std::move(c));
  }
  std::stable_sort(curves.begin(), curves.end(),
                   [](const CalCurve& a, const CalCurve& b) { return a.run < b.run; });
}

bool CalTable::covers(Coll coll) const {
  return std::any_of(curves.begin(), curves.end(),
                     [&](const CalCurve& c) { return c.coll == coll; });
}

const CalTable* Calibration::table(const TeamShape& s) const {
  const std::string key = shape_key(s);
  for (const CalTable& t : tables) {
    if (t.shape == key) return &t;
  }
  return nullptr;
}

const CalLink* Calibration::link(LinkClass c) const {
  for (const CalLink& l : links) {
    if (l.cls == c) return &l;
  }
  return nullptr;
}

std::string shape_key(const TeamShape& s) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "n=%d,nodes=%d,ppn=%d,intra=%s,inter=%s,gpu=%d,oversubscribed=%d",
                s.n, s.nodes, s.ppn, link_cost(s.intra).name, link_cost(s.inter).name, int(s.gpu),
                int(s.oversubscribed));
  return buf;
}

bool parse_shape_key(const std::string& key, TeamShape* s) {
  int gpu = 0, over = 0;
  char intra[16] = {}, inter[16] = {};
  if (std::sscanf(key.c_str(),
                  "n=%d,nodes=%d,ppn=%d,intra=%15[a-z],inter=%15[a-z],gpu=%d,oversubscribed=%d",
                  &s->n, &s->nodes, &s->ppn, intra, inter, &gpu, &over) != 7) {
    return false;
  }
  s->gpu = gpu != 0;
  s->oversubscribed = over != 0;
  return s->n >= 1 && s->nodes >= 1 && parse_link_class(intra, &s->intra) &&
         parse_link_class(inter, &s->inter);
}

double interpolate(const CalCurve& c, uint64_t bytes) {
  const auto& p = c.points;
  if (p.empty()) return -1;
  if (bytes <= p.front().first || p.size() == 1) return p.front().second;
  size_t hi = 1;
  while (hi + 1 < p.size() && p[hi].first < bytes) ++hi;
  const auto& [b0, t0] = p[hi - 1];
  const auto& [b1, t1] = p[hi];
  const double t = t0 + (t1 - t0) * (double(bytes) - double(b0)) / (double(b1) - double(b0));
  return std::max(t, std::min(t0, t1) * 0.5);  // a falling last segment never extrapolates to 0
}

// ---- the file ----------------------------------------------------------------------------------
//
//   # comments
//   link host alpha_us=0.21 gbps=14.3 points=812 rms=0.31
//   table n=2,nodes=1,ppn=2,intra=host,inter=tcp,gpu=0,oversubscribed=0
//   allreduce direct ll 8:0.121 16:0.125 ...
//   run 1
//   allreduce direct ll 8:0.118 16:0.131 ...
//   end
//
// A table's curves before its first `run` line are run 0; `run N` starts run N (N counting up
// from 1, below kMaxRuns).

std::string format_calibration(const Calibration& c) {
  std::ostringstream out;
  out << "# gshmem collective calibration (gshmem-info --calibrate); the planner reads it at "
         "gshmem_init\n";
  char buf[256];
  for (const CalLink& l : c.links) {
    std::snprintf(buf, sizeof buf, "link %s alpha_us=%.6g gbps=%.6g points=%d rms=%.4g\n",
                  link_cost(l.cls).name, l.cost.alpha_us, l.cost.gbps, l.points, l.rms);
    out << buf;
  }
  for (const CalTable& t : c.tables) {
    out << "table " << t.shape << "\n";
    for (int run = 0; run < t.runs; ++run) {
      if (run > 0) out << "run " << run << "\n";
      for (const CalCurve& cv : t.curves) {
        if (cv.run != run) continue;
        out << coll_name(cv.coll) << ' ' << algo_name(cv.algo) << ' ' << proto_name(cv.proto);
        for (const auto& [b, us] : cv.points) {
          std::snprintf(buf, sizeof buf, " %llu:%.6g", (unsigned long long)b, us);
          out << buf;
        }
        out << "\n";
      }
    }
    out << "end\n";
  }
  return out.str();
}

namespace {

bool parse_double(std::string_view text, double* out) {
  if (text.empty() || text.size() > 64) return false;
  std::string s(text);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) w.push_back(line.substr(i, j - i));
    i = j;
  }
  return w;
}

// key=value with a positive finite number.
bool keyed(std::string_view word, std::string_view key, double* out) {
  return word.size() > key.size() + 1 && word.substr(0, key.size()) == key &&
         word[key.size()] == '=' && parse_double(word.substr(key.size() + 1), out);
}

}  // namespace

bool parse_calibration(std::string_view text, Calibration* out, std::string* why) {
  Calibration c;
  CalTable* table = nullptr;
  int line_no = 0;
  auto bad = [&](const std::string& what) {
    *why = "line " + std::to_string(line_no) + ": " + what;
    return false;
  };
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    std::vector<std::string_view> w = words(line);
    if (w.empty() || w[0][0] == '#') continue;
    if (!table && w[0] == "link") {
      CalLink l;
      double alpha = 0, gbps = 0, points = 0, rms = 0;
      if (w.size() != 6 || !parse_link_class(w[1], &l.cls) || !keyed(w[2], "alpha_us", &alpha) ||
          !keyed(w[3], "gbps", &gbps) || !keyed(w[4], "points", &points) ||
          !keyed(w[5], "rms", &rms) || !(alpha > 0 && alpha <= 1e6) || !(gbps > 0 && gbps <= 1e6) ||
          !(points >= 0 && points <= 1e9 && points == std::floor(points)) ||
          !(rms >= 0 && rms <= 1e6)) {
        return bad(
            "expected 'link CLASS alpha_us=A gbps=G points=N rms=R' with 0 < A, G <= 1e6, N a "
            "count, R >= 0");
      }
      if (c.link(l.cls)) return bad("a second line for link class " + std::string(w[1]));
      l.cost = link_cost(l.cls);
      l.cost.alpha_us = alpha;
      l.cost.gbps = gbps;
      l.cost.source = "fitted to this machine's measurements (gshmem-info --calibrate)";
      l.points = int(points);
      l.rms = rms;
      c.links.push_back(l);
    } else if (!table && w[0] == "table") {
      if (w.size() != 2 || w[1].size() > 200) return bad("expected 'table SHAPE'");
      for (const CalTable& t : c.tables) {
        if (t.shape == w[1]) return bad("a second table for " + std::string(w[1]));
      }
      c.tables.push_back({std::string(w[1]), {}});
      table = &c.tables.back();
    } else if (table && w[0] == "end") {
      if (w.size() != 1) return bad("expected 'end'");
      if (table->curves.empty() || table->curves.back().run != table->runs - 1) {
        return bad("a table or run without curves");
      }
      table = nullptr;
    } else if (table && w[0] == "run") {
      double n = 0;
      if (w.size() != 2 || !parse_double(w[1], &n) || n != table->runs || n >= kMaxRuns) {
        return bad("expected 'run " + std::to_string(table->runs) +
                   "' (runs count up from 1, below " + std::to_string(kMaxRuns) + ")");
      }
      if (table->curves.empty() || table->curves.back().run != table->runs - 1) {
        return bad("a run without curves");
      }
      ++table->runs;
    } else if (table) {
      CalCurve cv;
      if (w.size() < 4 || !parse_coll(w[0], &cv.coll) || !parse_algo(w[1], &cv.algo) ||
          cv.algo == Algo::Auto || !parse_proto(w[2], &cv.proto) || cv.proto == Proto::Auto) {
        return bad("expected 'COLLECTIVE ALGORITHM PROTOCOL BYTES:US ...'");
      }
      cv.run = table->runs - 1;
      if (table->find(cv.coll, cv.algo, cv.proto, cv.run)) {
        return bad("a second curve for the candidate in one run");
      }
      for (size_t i = 3; i < w.size(); ++i) {
        size_t colon = w[i].find(':');
        uint64_t b = 0;
        double us = 0;
        if (colon == std::string_view::npos || !Env::parse_size(w[i].substr(0, colon), &b) ||
            b == 0 || !parse_double(w[i].substr(colon + 1), &us) || us <= 0 || us > 1e9) {
          return bad("bad point '" + std::string(w[i]) + "' (BYTES:US, both > 0)");
        }
        if (!cv.points.empty() && b <= cv.points.back().first) {
          return bad("sizes must grow along a curve");
        }
        cv.points.emplace_back(b, us);
      }
      table->curves.push_back(std::move(cv));
    } else {
      return bad("unexpected '" + std::string(w[0]) + "'");
    }
  }
  if (table) return bad("the last table has no 'end'");
  *out = std::move(c);
  return true;
}

// ---- fitting the link costs --------------------------------------------------------------------

namespace {

// One measured point, with what the model needs to predict it.
struct Sample {
  TeamShape shape;
  Coll coll;
  Algo algo;
  Proto proto;
  uint64_t bytes;
  double us;
};

// The planner's channel count and chunk for the sample, as make_plan picks them.
double model(const Sample& x) {
  Overrides o;
  o.algo[int(x.coll)] = x.algo;
  o.proto = x.proto;
  o.use_calibration = false;
  Plan p = make_plan(x.coll, x.shape, x.bytes, o);
  return predict(x.coll, x.algo, p.sub, x.shape, x.bytes, p.nch, p.chunk, x.proto);
}

// Grid search of alpha (0.01-1000 us) and GB/s (0.01-1000) on log scales, then a finer grid
// around the best: the model is not smooth enough (ceil of rounds, max of terms) for gradients.
CalLink fit(LinkClass cls, const std::vector<Sample>& xs) {
  CalLink best;
  best.cls = cls;
  best.points = int(xs.size());
  double best_err = -1;
  auto try_at = [&](double alpha, double gbps) {
    LinkCost k = link_cost(cls);
    k.alpha_us = alpha;
    k.gbps = gbps;
    ScopedLinkCost scoped(cls, k);
    double err = 0;
    int used = 0;
    for (const Sample& x : xs) {
      double t = model(x);
      if (t <= 0) continue;
      double e = std::log(t / x.us);
      err += e * e;
      ++used;
    }
    if (used == 0) return;
    err /= used;
    if (best_err < 0 || err < best_err) {
      best_err = err;
      best.cost = k;
    }
  };
  for (double la = -2; la <= 3; la += 0.1) {
    for (double lg = -2; lg <= 3; lg += 0.1) try_at(std::pow(10, la), std::pow(10, lg));
  }
  if (best_err < 0) return best;
  const double a0 = std::log10(best.cost.alpha_us), g0 = std::log10(best.cost.gbps);
  for (double la = a0 - 0.1; la <= a0 + 0.1; la += 0.01) {
    for (double lg = g0 - 0.1; lg <= g0 + 0.1; lg += 0.01)
      try_at(std::pow(10, la), std::pow(10, lg));
  }
  best.cost.source = "fitted to this machine's measurements (gshmem-info --calibrate)";
  best.rms = std::sqrt(best_err);
  return best;
}

}  // namespace

void fit_links(Calibration* c) {
  c->links.clear();
  std::vector<Sample> node, net;
  LinkClass intra = LinkClass::HostMemory, inter = LinkClass::Tcp;
  for (const CalTable& t : c->tables) {
    TeamShape s;
    if (!parse_shape_key(t.shape, &s) || s.n < 2 || s.gpu) continue;  // GPU tables: no fit yet
    for (const CalCurve& cv : t.curves) {
      for (const auto& [b, us] : cv.points) {
        (s.nodes > 1 ? net : node).push_back({s, cv.coll, cv.algo, cv.proto, b, us});
      }
    }
    if (s.nodes > 1)
      inter = s.inter;
    else
      intra = s.intra;
  }
  // Alpha and GB/s are told apart only by sizes far apart: no fit from a narrow sweep.
  auto spread = [](const std::vector<Sample>& xs) {
    uint64_t lo = ~uint64_t(0), hi = 0;
    for (const Sample& x : xs) lo = std::min(lo, x.bytes), hi = std::max(hi, x.bytes);
    return !xs.empty() && hi >= 1024 * lo;
  };
  if (spread(node)) {
    c->links.push_back(fit(intra, node));
    if (c->links.back().points == 0 || c->links.back().rms <= 0) c->links.pop_back();
  }
  if (spread(net)) {
    // The node's fitted costs take part in every multi-node prediction.
    const CalLink* in = c->link(intra);
    std::unique_ptr<ScopedLinkCost> keep;
    if (in) keep = std::make_unique<ScopedLinkCost>(in->cls, in->cost);
    c->links.push_back(fit(inter, net));
    if (c->links.back().rms <= 0) c->links.pop_back();
  }
}

// ---- the cache file and the installed calibration ---------------------------------------------

std::string calibration_path() {
  const Env& env = Env::get();
  if (!env.str("GSHMEM_CALIBRATION_FILE").empty()) return env.str("GSHMEM_CALIBRATION_FILE");
  std::string dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') {
    dir = std::string(x) + "/gshmem";
  } else if (const char* h = std::getenv("HOME"); h && *h == '/') {
    dir = std::string(h) + "/.cache/gshmem";
  } else {
    return "";
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || !*host) std::strcpy(host, "localhost");
  for (char* p = host; *p; ++p) {
    if (*p == '/') *p = '_';
  }
  // This build: the library file holding this function (its size and modification time).
  unsigned long long id = 0;
  Dl_info info{};
  struct stat st {};
  if (dladdr(reinterpret_cast<void*>(&calibration_path), &info) && info.dli_fname &&
      stat(info.dli_fname, &st) == 0) {
    id = (unsigned long long)st.st_size * 1000003ull ^ (unsigned long long)st.st_mtim.tv_sec;
  }
  char name[320];
  std::snprintf(name, sizeof name, "/calibration-%s-%llx.txt", host, id);
  return dir + name;
}

namespace {
std::mutex g_install_mu;
std::vector<std::unique_ptr<Calibration>>* g_kept = new std::vector<std::unique_ptr<Calibration>>;
std::atomic<const Calibration*> g_installed{nullptr};
}  // namespace

void install_calibration(std::unique_ptr<Calibration> c) {
  std::lock_guard<std::mutex> lock(g_install_mu);
  g_installed.store(c.get(), std::memory_order_release);
  if (c) g_kept->push_back(std::move(c));
}

const Calibration* installed_calibration() {
  return g_installed.load(std::memory_order_acquire);
}

bool read_calibration_file(const std::string& path, std::string* text, std::string* why) {
  why->clear();
  if (path.empty()) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno != ENOENT) *why = path + ": " + std::strerror(errno);
    return false;
  }
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text->append(buf, size_t(in.gcount()));
    if (text->size() > (4u << 20)) {
      *why = path + ": larger than 4 MiB, not a calibration file";
      return false;
    }
  }
  return true;
}

bool write_calibration_file(const std::string& path, const Calibration& c, std::string* why) {
  const std::string text = format_calibration(c);
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = dir + ": " + std::strerror(errno);
      return false;
    }
  }
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return *why = tmp + ": " + std::strerror(errno), false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    *why = path + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

std::unique_ptr<Calibration> load_calibration(const std::string& path, std::string* why) {
  std::string text;
  if (!read_calibration_file(path, &text, why)) return nullptr;
  auto c = std::make_unique<Calibration>();
  if (!parse_calibration(text, c.get(), why)) {
    *why = path + ": " + *why;
    return nullptr;
  }
  c->origin = path;
  return c;
}

}  // namespace gshmem::coll
