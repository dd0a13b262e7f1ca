// What a leak would make grow, read from /proc and /dev/shm: this process's resident memory and
// open descriptors, and the /dev/shm entries that are not someone else's.
//
// /dev/shm is shared by the whole machine (other jobs, mpirun's session files), so a new entry
// counts against the soak unless a live process outside the job holds it (open or mapped): that
// one is another job's, still running. An entry nobody holds any more is counted: a leak left
// behind is exactly that.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace soak {

// Resident memory in KiB: all of it (VmRSS), and its anonymous (malloc, stacks) and shared-memory
// (the symmetric heaps' memfds, here and mapped from peers) parts. Zeros when /proc cannot be
// read.
struct Rss {
  long total = 0, anon = 0, shmem = 0;
};

inline Rss rss_kib() {
  Rss r;
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return r;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) r.total = std::strtol(line + 6, nullptr, 10);
    if (std::strncmp(line, "RssAnon:", 8) == 0) r.anon = std::strtol(line + 8, nullptr, 10);
    if (std::strncmp(line, "RssShmem:", 9) == 0) r.shmem = std::strtol(line + 9, nullptr, 10);
  }
  std::fclose(f);
  return r;
}

inline std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> names;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
    }
    closedir(d);
  }
  return names;
}

// Open descriptors, not counting the one that lists them.
inline long open_fds() {
  return long(list_dir("/proc/self/fd").size()) - 1;
}

// "fd -> target" for each open descriptor: what a new one is, when the count grew.
inline std::set<std::string> fd_targets() {
  std::set<std::string> out;
  for (const std::string& fd : list_dir("/proc/self/fd")) {
    char buf[4096];
    ssize_t n = readlink(("/proc/self/fd/" + fd).c_str(), buf, sizeof buf - 1);
    if (n > 0) out.insert(fd + " -> " + std::string(buf, size_t(n)));  // else: the listing's own
  }
  return out;
}

inline std::set<std::string> shm_entries() {
  auto v = list_dir("/dev/shm");
  return {v.begin(), v.end()};
}

// Whether process `pid` has /dev/shm/<name> open or mapped.
inline bool holds(const std::string& pid, const std::string& name) {
  std::string target = "/dev/shm/" + name;
  std::string fd_dir = "/proc/" + pid + "/fd";
  for (const std::string& fd : list_dir(fd_dir)) {
    char buf[4096];
    ssize_t n = readlink((fd_dir + "/" + fd).c_str(), buf, sizeof buf - 1);
    if (n > 0 && std::string(buf, size_t(n)).rfind(target, 0) == 0) return true;
  }
  if (FILE* f = std::fopen(("/proc/" + pid + "/maps").c_str(), "r")) {
    char line[4096];
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f)) found = std::strstr(line, target.c_str());
    std::fclose(f);
    if (found) return true;
  }
  return false;
}

// Entries of `now` that were not in `before` and that no live process outside `job_pids` holds.
inline std::vector<std::string> new_shm_entries(const std::set<std::string>& before,
                                                const std::set<std::string>& now,
                                                const std::set<long>& job_pids) {
  std::vector<std::string> fresh;
  for (const std::string& e : now) {
    if (!before.count(e)) fresh.push_back(e);
  }
  if (fresh.empty()) return fresh;
  std::vector<std::string> ours;
  std::vector<std::string> pids;
  for (const std::string& p : list_dir("/proc")) {
    if (p.find_first_not_of("0123456789") == std::string::npos &&
        !job_pids.count(std::strtol(p.c_str(), nullptr, 10))) {
      pids.push_back(p);
    }
  }
  for (const std::string& e : fresh) {
    bool foreign = false;
    for (const std::string& p : pids) {
      if ((foreign = holds(p, e))) break;
    }
    if (!foreign) ours.push_back(e);
  }
  return ours;
}

}  // namespace soak
