// gshmemrun's job: starts the PEs, runs the bootstrap server for them, watches them, and ends
// the job cleanly (and loudly) when one fails.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "host/bootstrap/star.hpp"
#include "host/base/sock.hpp"

namespace gshmem::launcher {

struct Options {
  int npes = 0;
  int ppn = 0;           // PEs per virtual node; 0: one node
  double timeout_s = 0;  // 0: none
  bool tag_output = false;
  double grace_s = 2.0;  // between telling PEs the job ends and SIGTERM/SIGKILL
  std::vector<std::string> argv;
};

class Job {
 public:
  explicit Job(Options options);
  ~Job();
  // Runs the job to the end; returns the exit status gshmemrun should exit with.
  int run();

 private:
  struct Pe {
    pid_t pid = -1;
    bool running = false;
    int status = 0;       // waitpid status once reaped
    int stop_signal = 0;  // stopped by this signal (SIGSTOP, SIGTSTP, ...); 0: not stopped
    double stopped_since = 0;
    sock::Fd out, err;
    std::string out_line, err_line;
  };

  void spawn(int pe);
  void reap();
  void on_exit(int pe, int wstatus);
  void fail(int status, const std::string& why);
  void report_failure();  // fail() with report_
  void escalate(double now);
  void check_stopped(double now);  // a PE stopped past GSHMEM_TIMEOUT ends the job
  void drain(int pe, bool err);
  void emit(int pe, bool err, const std::string& line);
  int exit_status() const;

  Options opt_;
  std::string dir_;     // private (0700) directory holding the job's socket
  std::string addr_;    // the socket's path
  std::string job_id_;  // names the job's virtual nodes
  std::string secret_;
  sock::Fd listener_;
  sock::Fd signals_;
  std::unique_ptr<star::Server> server_;
  std::vector<Pe> pes_;
  bool ending_ = false;
  double ending_since_ = 0;
  int kill_stage_ = 0;
  int job_status_ = -1;  // set by the first failure or a global exit
  // The first error a PE reported, held for kReportGrace seconds: a peer's death reaches the
  // others' sockets before its exit status can be reaped, and the death is the cause.
  struct Report {
    int rank = -1;
    int code = 0;
    std::string why;
    double since = 0;
  } report_;
  double start_ = 0;
  double pe_timeout_s_ = 0;  // GSHMEM_TIMEOUT, which the PEs' waits use too
  double last_straggler_report_ = 0;
};

}  // namespace gshmem::launcher
