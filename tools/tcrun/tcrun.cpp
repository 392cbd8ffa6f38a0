// tcrun: start the PEs of a tilecomm job on this host.
//
//   tcrun -n N [-t] [--] program [args...]
//
// tcrun hosts the job's rendezvous server, starts N copies of the program
// with TILECOMM_UNIQUEID/RANK/SIZE in their environment, forwards SIGINT and
// SIGTERM, and behaves like mpirun on failure: when a PE exits non-zero or
// dies by a signal, it names the PE, tells the others to stop (they leave
// their waits with a message naming that PE), kills what is left after
// TILECOMM_ABORT_GRACE seconds, and exits non-zero.
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bootstrap/server.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/wait.hpp"

using namespace tilecomm;

namespace {

void usage(FILE* out) {
  fprintf(out,
          "usage: tcrun -n N [options] [--] program [args...]\n"
          "Start N processing elements (PEs) of a tilecomm program on this host.\n\n"
          "options:\n"
          "  -n, --np N          number of PEs (required, >= 1)\n"
          "  -t, --tag-output    prefix every output line with [PE k]\n"
          "  -x VAR=VALUE        set an environment variable for the PEs (repeatable)\n"
          "  -h, --help          this text\n\n"
          "Environment: every variable of tcrun's environment reaches the PEs.\n"
          "Exit status: 0 when every PE exits 0; the status given to shmem_global_exit;\n"
          "otherwise that of the first PE that failed (128+signal for a signal).\n");
}

struct Pe {
  pid_t pid = -1;
  bool running = false;
  int out_fd = -1, err_fd = -1;  // with --tag-output
  std::string out_buf, err_buf;
};

std::string describe_status(int status) {
  if (WIFEXITED(status)) return strprintf("exited with status %d", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return strprintf("was killed by signal %d (%s)", sig, strsignal(sig));
  }
  return strprintf("ended with wait status 0x%x", status);
}

int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string find_program(const std::string& prog) {
  auto executable = [](const std::string& p) {
    struct stat st{};
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
  };
  if (prog.find('/') != std::string::npos) return executable(prog) ? prog : "";
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    std::size_t end = dirs.find(':', pos);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(pos, end - pos);
    std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
    if (executable(cand)) return cand;
    pos = end + 1;
  }
  return "";
}

// Writes complete lines of `buf` with a [PE k] prefix; keeps the partial tail.
void flush_lines(int fd, int pe, std::string& buf, bool all) {
  std::size_t start = 0;
  for (;;) {
    std::size_t nl = buf.find('\n', start);
    if (nl == std::string::npos) break;
    std::string line = strprintf("[PE %d] ", pe) + buf.substr(start, nl - start + 1);
    ssize_t ignored = write(fd, line.data(), line.size());
    (void)ignored;
    start = nl + 1;
  }
  buf.erase(0, start);
  if (all && !buf.empty()) {
    std::string line = strprintf("[PE %d] ", pe) + buf + "\n";
    ssize_t ignored = write(fd, line.data(), line.size());
    (void)ignored;
    buf.clear();
  }
}

}  // namespace

int main(int argc, char** argv) {
  int n = 0;
  bool tag = false;
  std::vector<std::string> extra_env;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    }
    if (a == "-t" || a == "--tag-output") {
      tag = true;
    } else if ((a == "-n" || a == "--np" || a == "-np") && i + 1 < argc) {
      char* end = nullptr;
      long v = strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 65536) {
        fprintf(stderr, "tcrun: -n needs a number of PEs from 1 to 65536, not '%s'\n", argv[i]);
        return 2;
      }
      n = static_cast<int>(v);
    } else if (a == "-x" && i + 1 < argc) {
      std::string kv = argv[++i];
      if (kv.find('=') == std::string::npos) {
        fprintf(stderr, "tcrun: -x needs VAR=VALUE, not '%s'\n", kv.c_str());
        return 2;
      }
      extra_env.push_back(kv);
    } else if (!a.empty() && a[0] == '-') {
      fprintf(stderr, "tcrun: unknown option '%s'\n", a.c_str());
      usage(stderr);
      return 2;
    } else {
      break;
    }
  }
  if (n == 0 || i >= argc) {
    fprintf(stderr, "tcrun: %s\n", n == 0 ? "missing -n N" : "missing the program to run");
    usage(stderr);
    return 2;
  }
  std::string program = find_program(argv[i]);
  if (program.empty()) {
    fprintf(stderr, "tcrun: cannot run '%s': no such executable file%s\n", argv[i],
            strchr(argv[i], '/') ? "" : " in PATH");
    return 127;
  }

  Config cfg;
  try {
    cfg = Config::load();
  } catch (const Error& e) {
    fprintf(stderr, "tcrun: %s\n", e.what());
    return 2;
  }
  log::set_level(cfg.log_level);
  in_addr addr{};
  if (inet_pton(AF_INET, cfg.bootstrap_addr.c_str(), &addr) != 1) {
    fprintf(stderr, "tcrun: TILECOMM_BOOTSTRAP_ADDR='%s' is not an IPv4 address\n", cfg.bootstrap_addr.c_str());
    return 2;
  }

  // Signals are read from a signalfd in the loop below, not by handlers.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGCHLD);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<bootstrap::Server> server;
  try {
    bootstrap::JobOptions job;
    job.size = n;
    server = std::make_unique<bootstrap::Server>(addr.s_addr, job);
  } catch (const Error& e) {
    fprintf(stderr, "tcrun: %s\n", e.what());
    return 1;
  }
  const std::string uid = server->rendezvous().to_string();
  static std::atomic<int> first_lost{-1};  // first PE to leave without Finalize: the cause if PEs fail together
  server->on_peer_lost([](int pe, int) { int none = -1; first_lost.compare_exchange_strong(none, pe); });

  // Placement: with at least as many CPUs as PEs, each PE gets k = CPUs / PEs
  // CPUs of tcrun's affinity mask, PE i the i-th group of k (its block and
  // SDMA engine threads share them). Unbound, the kernel may stack two PEs on one
  // CPU whenever another process is busy, and every handoff between them
  // then waits for a spin phase and a context switch.
  std::vector<int> cpus;
  {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  const bool bind = cfg.bind && !cpus.empty() && n <= static_cast<int>(cpus.size());
  const std::string job_cpus = std::to_string(cpus.size());

  std::vector<Pe> pes(n);
  for (int pe = 0; pe < n; ++pe) {
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (tag && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
      fprintf(stderr, "tcrun: pipe: %s\n", strerror(errno));
      return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
      fprintf(stderr, "tcrun: fork for PE %d failed: %s\n", pe, strerror(errno));
      server->abort_job(strprintf("tcrun could not start PE %d", pe));
      break;
    }
    if (pid == 0) {
      sigprocmask(SIG_UNBLOCK, &mask, nullptr);
      signal(SIGPIPE, SIG_DFL);
      if (tag) {
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
      }
      setenv("TILECOMM_UNIQUEID", uid.c_str(), 1);
      setenv("TILECOMM_RANK", std::to_string(pe).c_str(), 1);
      setenv("TILECOMM_SIZE", std::to_string(n).c_str(), 1);
      if (!cpus.empty()) setenv("TILECOMM_JOB_CPUS", job_cpus.c_str(), 1);
      if (bind) {
        const std::size_t k = cpus.size() / n;
        cpu_set_t mine;
        CPU_ZERO(&mine);
        for (std::size_t c = pe * k; c < (pe + 1) * k; ++c) CPU_SET(cpus[c], &mine);
        sched_setaffinity(0, sizeof mine, &mine);  // best effort
      }
      for (const auto& kv : extra_env) putenv(const_cast<char*>(kv.c_str()));
      execv(program.c_str(), argv + i);
      fprintf(stderr, "tcrun: PE %d: cannot execute %s: %s\n", pe, program.c_str(), strerror(errno));
      _exit(127);
    }
    pes[pe].pid = pid;
    pes[pe].running = true;
    if (tag) {
      close(out[1]);
      close(err[1]);
      pes[pe].out_fd = out[0];
      pes[pe].err_fd = err[0];
    }
  }

  int running = 0;
  for (auto& p : pes) running += p.running;
  int result = 0;
  bool failed = false;
  double kill_at = 0;  // when to SIGKILL what is left, once the job failed
  auto fail = [&](const std::string& reason, int code) {
    if (failed) return;
    failed = true;
    result = code;
    fprintf(stderr, "tcrun: %s; ending the job\n", reason.c_str());
    server->abort_job(reason);
    kill_at = detail::now_seconds() + cfg.abort_grace;
  };

  while (running > 0 || (tag && [&] {
           for (auto& p : pes)
             if (p.out_fd >= 0 || p.err_fd >= 0) return true;
           return false;
         }())) {
    std::vector<pollfd> fds{{sfd, POLLIN, 0}};
    std::vector<std::pair<int, int>> owner;  // (pe, 1=stdout 2=stderr)
    for (int pe = 0; pe < n; ++pe) {
      if (pes[pe].out_fd >= 0) fds.push_back({pes[pe].out_fd, POLLIN, 0}), owner.push_back({pe, 1});
      if (pes[pe].err_fd >= 0) fds.push_back({pes[pe].err_fd, POLLIN, 0}), owner.push_back({pe, 2});
    }
    poll(fds.data(), fds.size(), 100);
    for (std::size_t k = 1; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      auto [pe, which] = owner[k - 1];
      int& fd = which == 1 ? pes[pe].out_fd : pes[pe].err_fd;
      std::string& buf = which == 1 ? pes[pe].out_buf : pes[pe].err_buf;
      char chunk[65536];
      ssize_t got = read(fd, chunk, sizeof chunk);
      if (got > 0) {
        buf.append(chunk, got);
        flush_lines(which == 1 ? STDOUT_FILENO : STDERR_FILENO, pe, buf, false);
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        flush_lines(which == 1 ? STDOUT_FILENO : STDERR_FILENO, pe, buf, true);
        close(fd);
        fd = -1;
      }
    }
    signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == sizeof si) {
      if (si.ssi_signo == SIGCHLD) continue;  // reaped below
      for (auto& p : pes)
        if (p.running) kill(p.pid, static_cast<int>(si.ssi_signo));
      fail(strprintf("received signal %u (%s), forwarded to the PEs", si.ssi_signo, strsignal(si.ssi_signo)),
           128 + static_cast<int>(si.ssi_signo));
    }
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (int pe = 0; pe < n; ++pe) {
        if (pes[pe].pid != pid || !pes[pe].running) continue;
        pes[pe].running = false;
        --running;
        int ge = server->global_exit_status();
        if (ge >= 0) {
          if (!failed) {
            failed = true;
            result = ge;
            kill_at = detail::now_seconds() + cfg.abort_grace;
          }
        } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
          int cause = first_lost.load(), st = 0;  // this PE may only have followed the abort `cause` started
          for (int t = 0; !failed && cause >= 0 && cause != pe && pes[cause].running && t < 5000; ++t, usleep(1000))
            if (waitpid(pes[cause].pid, &st, WNOHANG) == pes[cause].pid) {
              pes[cause].running = false, --running;
              fail(strprintf("PE %d (pid %d) %s", cause, pes[cause].pid, describe_status(st).c_str()),
                   exit_code(st) ? exit_code(st) : 1);
            }
          fail(strprintf("PE %d (pid %d) %s", pe, pid, describe_status(status).c_str()), exit_code(status));
        } else if (failed && result == 0) {
          result = 1;
        }
      }
    }
    if (failed && running > 0 && detail::now_seconds() > kill_at) {
      for (int pe = 0; pe < n; ++pe)
        if (pes[pe].running) {
          fprintf(stderr, "tcrun: PE %d (pid %d) did not stop within %g s; killing it\n", pe, pes[pe].pid,
                  cfg.abort_grace);
          kill(pes[pe].pid, SIGKILL);
        }
      kill_at = detail::now_seconds() + 3600;
    }
  }
  if (server->rejected() > 0)
    fprintf(stderr, "tcrun: note: %d connection(s) to the job's rendezvous were refused (no valid cookie)\n",
            server->rejected());
  return result;
}
