#include "runner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

extern char** environ;

namespace tcfail {
namespace {

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

std::set<std::string> shm_names() {
  std::set<std::string> names;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names.insert(e->d_name);
    closedir(d);
  }
  return names;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ProcInfo {
  pid_t pid;
  char state;
  pid_t pgrp;
  std::string cmdline;
};

std::vector<ProcInfo> processes() {
  std::vector<ProcInfo> all;
  DIR* d = opendir("/proc");
  if (!d) return all;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    std::string stat = read_file("/proc/" + std::string(e->d_name) + "/stat");
    std::size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    char state = '?';
    int ppid = 0, pgrp = 0;
    if (sscanf(stat.c_str() + paren + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) continue;
    std::string cmd = read_file("/proc/" + std::string(e->d_name) + "/cmdline");
    for (char& c : cmd)
      if (c == '\0') c = ' ';
    all.push_back(ProcInfo{static_cast<pid_t>(pid), state, static_cast<pid_t>(pgrp), cmd});
  }
  closedir(d);
  return all;
}

// Processes of the finished run: in its process group, or holding its marker.
std::vector<ProcInfo> leftovers_of(pid_t group, const std::string& marker) {
  std::vector<ProcInfo> found;
  for (const auto& p : processes()) {
    if (p.pid == getpid()) continue;
    if (p.pgrp == group || (!marker.empty() && p.cmdline.find(marker) != std::string::npos)) found.push_back(p);
  }
  return found;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

bool is_ours(const char* var) { return !strncmp(var, "TILECOMM_", 9) || !strncmp(var, "SHMEM_", 6); }

// Gives this process (and so every job it starts) a /dev/shm of its own: a
// private tmpfs in a private mount namespace. Then an entry that appears there
// during a run was made by that run, whatever else the machine runs (other
// test suites, MPI jobs). Needs CAP_SYS_ADMIN; without it the machine's
// /dev/shm is compared before and after each run, with a note.
void private_dev_shm() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  if (unshare(CLONE_NEWNS) == 0 && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
      mount("tcfail-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m") == 0)
    return;
  fprintf(stderr,
          "runner: note: cannot give the tests a private /dev/shm (%s); entries that other programs make in "
          "/dev/shm during a run will count as left by the run\n",
          strerror(errno));
}

void become_subreaper() {
  // Orphaned processes of a job then become our children: a leftover is seen
  // (and reaped) here rather than by whatever init this machine has.
  static std::atomic<bool> done{false};
  if (!done.exchange(true)) prctl(PR_SET_CHILD_SUBREAPER, 1);
}

}  // namespace

bool Result::exited() const { return WIFEXITED(wait_status); }
int Result::exit_code() const { return exited() ? WEXITSTATUS(wait_status) : -1; }
bool Result::signaled() const { return WIFSIGNALED(wait_status); }
int Result::term_signal() const { return signaled() ? WTERMSIG(wait_status) : 0; }

std::string Result::status_text() const {
  if (hung) return "HUNG (killed after the hang bound)";
  if (exited()) return "exited with status " + std::to_string(exit_code());
  if (signaled()) return "killed by signal " + std::to_string(term_signal());
  return "wait status " + std::to_string(wait_status);
}

std::ostream& operator<<(std::ostream& os, const Result& r) {
  os << "\n---- command:";
  for (const auto& a : r.argv) os << ' ' << a;
  if (!r.env.empty()) {
    os << "\n---- environment:";
    for (const auto& e : r.env) os << ' ' << e;
  }
  os << "\n---- " << r.status_text();
  for (const auto& l : r.leftovers) os << "\n---- LEFTOVER process: " << l;
  for (const auto& s : r.new_shm) os << "\n---- NEW /dev/shm entry: " << s;
  os << "\n---- stdout:\n" << r.out << "\n---- stderr:\n" << r.err << "\n---- end\n";
  return os;
}

std::string new_marker() {
  static std::atomic<int> counter{0};
  return "tcfail-marker-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

Result run(const std::vector<std::string>& argv, const std::string& marker, const Options& opts) {
  become_subreaper();
  private_dev_shm();
  Result r;
  r.argv = argv;
  r.env = opts.env;
  r.marker = marker;

  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (!is_ours(*e)) env.emplace_back(*e);
  for (const auto& kv : opts.env) env.push_back(kv);
  std::vector<std::string> args = argv;

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    r.err = std::string("runner: pipe: ") + strerror(errno);
    r.wait_status = 0xff00;  // "exited 255"
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // a process group of its own, led by the command
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  const std::set<std::string> shm_before = shm_names();
  auto cargs = c_strings(args);
  auto cenv = c_strings(env);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0].c_str(), &fa, &attr, cargs.data(), cenv.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    r.err = "runner: posix_spawn " + args[0] + ": " + strerror(rc);
    r.wait_status = 0xff00;
    return r;
  }
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);

  int fds[2] = {out[0], err[0]};
  std::string* bufs[2] = {&r.out, &r.err};
  bool leader_done = false;
  const double deadline = now_s() + opts.hang_bound_s;
  for (;;) {
    if (!leader_done) {
      pid_t w = waitpid(pid, &r.wait_status, WNOHANG);
      if (w == pid) {
        leader_done = true;
        // The command has ended: nothing of its job may remain.
        for (const auto& p : leftovers_of(pid, marker)) {
          if (!r.hung)  // after a hang the group was killed on purpose
            r.leftovers.push_back("pid " + std::to_string(p.pid) + " (state " + p.state + "): " + p.cmdline);
          kill(p.pid, SIGKILL);
        }
        for (const auto& p : leftovers_of(pid, marker)) waitpid(p.pid, nullptr, WNOHANG);  // our orphans
      }
    }
    if (leader_done && fds[0] < 0 && fds[1] < 0) break;
    if (!r.hung && now_s() > deadline) {
      r.hung = true;
      kill(-pid, SIGKILL);  // the whole process group this run started
      for (const auto& p : leftovers_of(pid, marker)) kill(p.pid, SIGKILL);
    }
    pollfd pf[2];
    int n = 0;
    for (int i = 0; i < 2; ++i)
      if (fds[i] >= 0) pf[n++] = pollfd{fds[i], POLLIN, 0};
    if (n) poll(pf, n, 50);
    else usleep(20000);
    bool got_any = false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i] < 0) continue;
      char chunk[65536];
      for (;;) {
        ssize_t k = read(fds[i], chunk, sizeof chunk);
        if (k > 0) {
          bufs[i]->append(chunk, k);
          got_any = true;
          continue;
        }
        if (k == 0) {
          close(fds[i]);
          fds[i] = -1;
        }
        break;  // EAGAIN: nothing more for now
      }
    }
    if (got_any && opts.on_output && !leader_done) opts.on_output(pid, r.out, r.err);
  }
  // Reap any of our orphans that died meanwhile.
  while (waitpid(-pid, nullptr, WNOHANG) > 0) {
  }
  const std::set<std::string> shm_after = shm_names();
  for (const auto& s : shm_after)
    if (!shm_before.count(s)) r.new_shm.push_back(s);
  return r;
}

std::vector<std::string> lines_with(const std::string& text, const std::vector<std::string>& needles) {
  std::vector<std::string> found;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    bool all = true;
    for (const auto& n : needles) all = all && line.find(n) != std::string::npos;
    if (all) found.push_back(line);
  }
  return found;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

int helper_pid(const Result& r, int pe) {
  std::regex re("helper: PE " + std::to_string(pe) + " pid ([0-9]+)");
  std::smatch m;
  if (std::regex_search(r.out, m, re)) return std::stoi(m[1]);
  return -1;
}

std::map<int, PeEnd> uid_pe_ends(const Result& r) {
  std::map<int, PeEnd> ends;
  std::regex re("uid: PE ([0-9]+) pid ([0-9]+) (exited with status|killed by signal) ([0-9]+)");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), re), end; it != end; ++it) {
    PeEnd e;
    e.pid = std::stoi((*it)[2]);
    e.exited = (*it)[3] == "exited with status";
    e.code = std::stoi((*it)[4]);
    ends[std::stoi((*it)[1])] = e;
  }
  return ends;
}

}  // namespace tcfail
