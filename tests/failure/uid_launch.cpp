// The unique-ID helper of the failure tests: a launcher without tcrun.
//
//   tc_fail_uid MODE N [ignored...]
//
// It forks N processes that become PEs 0..N-1 through shmemx_init_attr
// (SHMEMX_INIT_WITH_UNIQUEID), waits for all of them and prints one line per
// PE process: "uid: PE k pid P exited with status S" or "... killed by signal S".
// Who makes the unique ID (and so hosts the rendezvous server) depends on MODE:
//
//   run            the parent (not a PE) makes it before forking
//   run-parent-pe  the parent makes it and is PE 0 itself; it forks PEs 1..N-1
//   run-child0     PE 0 (a child) makes it and passes it to the others through a pipe
//   strangers      as run; while the PEs are inside the job, the parent connects
//                  to the rendezvous as a stranger (wrong cookie, garbage, not a
//                  Hello, empty connection) before it lets them go on
//   tampered       as run; first an intruder process with a changed cookie tries
//                  to join as PE 1 (it must fail), then the real job runs
//   kill           as run; PE 1 dies by SIGKILL while the others are in a barrier
//   host-dies      as run-child0; PE 0, which hosts the rendezvous, dies by SIGKILL
//                  while the others are in a barrier
//   global-exit    as run; PE 1 calls shmem_global_exit(7) while PE 0 is in a
//                  barrier and further PEs are busy outside tilecomm
//
// The PEs of a working job do a ring of puts and gets into the symmetric heap
// and a global variable, check every value and exit 0. The exit status of this
// program is 0 when everything that MODE expects happened, 1 otherwise.
//
// In a sanitizer build a child of a parent that made the ID (and so runs the
// rendezvous server thread) execs this program afresh ("--pe ..."): under
// ASan a fork()ed child of a threaded process can deadlock in the sanitizer's
// allocator, and LeakSanitizer reports the absent thread's memory as leaked.
// Release builds fork only, as an application would.
#include <shmem.h>
#include <shmemx.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stranger.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TC_EXEC_CHILDREN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TC_EXEC_CHILDREN 1
#endif
#endif
#ifndef TC_EXEC_CHILDREN
#define TC_EXEC_CHILDREN 0
#endif

namespace {

long g_from_left = -1;  // a global variable: symmetric

std::string g_mode;
int g_n = 0;
int g_ready[2] = {-1, -1};  // PE -> parent: one byte once the PE is inside the job
int g_go[2] = {-1, -1};     // parent -> PEs: one byte each to go on

void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

[[noreturn]] void child_fail(int pe, const char* what) {
  fprintf(stderr, "uid: PE %d: %s\n", pe, what);
  fflush(stderr);
  _exit(90);
}

void join(int pe, const shmemx_uniqueid_t& uid) {
  shmemx_init_attr_t attr;
  if (shmemx_set_attr_uniqueid_args(pe, g_n, &uid, &attr) != 0) child_fail(pe, "shmemx_set_attr_uniqueid_args failed");
  if (shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) child_fail(pe, "shmemx_init_attr returned non-zero");
  if (shmem_my_pe() != pe || shmem_n_pes() != g_n) child_fail(pe, "shmem_my_pe/shmem_n_pes do not match the launch");
}

// The body of a working PE: put/get ring over the heap and a global, barriers.
int work(int pe) {
  const int n = g_n, right = (pe + 1) % n, left = (pe + n - 1) % n;
  long* slots = static_cast<long*>(shmem_malloc(sizeof(long) * n));
  if (!slots) child_fail(pe, "shmem_malloc returned NULL");
  for (int i = 0; i < n; ++i) slots[i] = -1;
  shmem_barrier_all();
  if (g_ready[1] >= 0) {
    // Tell the parent this PE is inside the job, then wait for its go.
    char b = 1, go = 0;
    if (write(g_ready[1], &b, 1) != 1) child_fail(pe, "write to the ready pipe failed");
    if (read(g_go[0], &go, 1) != 1) child_fail(pe, "read from the go pipe failed");
  }
  for (int i = 0; i < n; ++i) {
    long v = 1000L * pe + i;
    shmem_long_put(&slots[pe], &v, 1, i);  // my value into slot `pe` of every PE
  }
  long mine = 7000L + pe;
  shmem_long_put(&g_from_left, &mine, 1, right);
  shmem_barrier_all();
  for (int i = 0; i < n; ++i)
    if (slots[i] != 1000L * i + pe) child_fail(pe, "a put into the symmetric heap arrived wrong");
  if (g_from_left != 7000L + left) child_fail(pe, "a put into a global variable arrived wrong");
  long got = -1;
  shmem_long_get(&got, &slots[right], 1, right);
  if (got != 1000L * right + right) child_fail(pe, "shmem_long_get returned a wrong value");
  shmem_barrier_all();
  shmem_free(slots);
  shmem_finalize();
  return 0;
}

// What PE `pe` does in MODE, with the unique ID in hand.
int pe_main(int pe, const shmemx_uniqueid_t& uid) {
  join(pe, uid);
  if (g_mode == "kill" && pe == 1) {
    shmem_barrier_all();
    raise(SIGKILL);
  }
  if (g_mode == "host-dies" && pe == 0) {
    shmem_barrier_all();
    raise(SIGKILL);
  }
  if (g_mode == "kill" || g_mode == "host-dies") {
    shmem_barrier_all();
    shmem_barrier_all();
    fprintf(stderr, "uid: UNEXPECTED: PE %d left a barrier that a dead PE never reached\n", pe);
    return 99;
  }
  if (g_mode == "global-exit") {
    shmem_barrier_all();
    if (pe == 1) shmem_global_exit(7);
    if (pe == 0) shmem_barrier_all();
    else
      for (;;) pause();
    fprintf(stderr, "uid: UNEXPECTED: PE %d left a barrier during shmem_global_exit\n", pe);
    return 99;
  }
  return work(pe);
}

std::string describe(int status) {
  char buf[64];
  if (WIFEXITED(status)) snprintf(buf, sizeof buf, "exited with status %d", WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) snprintf(buf, sizeof buf, "killed by signal %d", WTERMSIG(status));
  else snprintf(buf, sizeof buf, "wait status 0x%x", status);
  return buf;
}

// argv for a child that execs this program:
//   ROLE MODE N PE UID READY_FD GO_FD MARKER, with ROLE "--pe" or "--intruder".
std::vector<std::string> g_self_args;  // this program's argv[0] and marker

std::vector<std::string> exec_args(const char* role, int pe, const shmemx_uniqueid_t& uid) {
  return {g_self_args[0], role,           g_mode, std::to_string(g_n), std::to_string(pe), uid.internal,
          std::to_string(g_ready[1]),     std::to_string(g_go[0]),     g_self_args[1]};
}

// fork(), and in a sanitizer build exec `args` in the child at once. Returns
// 0 in a plain fork()ed child, the child's pid in the parent.
pid_t fork_maybe_exec(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    perror("uid: fork");
    exit(1);
  }
  if (pid == 0 && TC_EXEC_CHILDREN && !args.empty()) {
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  return pid;
}

// Starts PE `pe`; `uid` is used as is, or read from `uid_pipe` when it is null.
pid_t spawn_pe(int pe, const shmemx_uniqueid_t* uid, int uid_pipe_read, int uid_pipe_write) {
  pid_t pid = fork_maybe_exec(uid ? exec_args("--pe", pe, *uid) : std::vector<std::string>{});
  if (pid > 0) return pid;
  shmemx_uniqueid_t id = SHMEMX_UNIQUEID_INITIALIZER;
  if (uid) {
    id = *uid;
  } else if (pe == 0) {
    // PE 0 makes the ID: it hosts the rendezvous server and is a PE itself.
    if (shmemx_get_uniqueid(&id) != 0) child_fail(pe, "shmemx_get_uniqueid failed");
    for (int i = 1; i < g_n; ++i)
      if (write(uid_pipe_write, &id, sizeof id) != static_cast<ssize_t>(sizeof id))
        child_fail(pe, "write of the unique ID to the pipe failed");
  } else {
    // sizeof id <= PIPE_BUF: every read gets one whole ID.
    if (read(uid_pipe_read, &id, sizeof id) != static_cast<ssize_t>(sizeof id))
      child_fail(pe, "read of the unique ID from the pipe failed");
  }
  exit(pe_main(pe, id));
}

// The tampered-ID process: tries to join as PE 1 with a changed cookie.
[[noreturn]] void intruder(const shmemx_uniqueid_t& uid) {
  shmemx_uniqueid_t bad = SHMEMX_UNIQUEID_INITIALIZER;
  if (tc_tamper_cookie(uid.internal, bad.internal, sizeof bad.internal) != 0) {
    fprintf(stderr, "uid: cannot tamper with the unique ID '%s'\n", uid.internal);
    _exit(98);
  }
  shmemx_init_attr_t attr;
  shmemx_set_attr_uniqueid_args(1, g_n, &bad, &attr);
  int rc = shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr);
  fprintf(stderr, "uid: UNEXPECTED: the intruder joined the job (shmemx_init_attr returned %d)\n", rc);
  _exit(99);
}

// The entry of a child that exec'd this program (see exec_args).
int exec_child(int argc, char** argv) {
  if (argc < 9) return 97;
  g_mode = argv[2];
  g_n = atoi(argv[3]);
  int pe = atoi(argv[4]);
  shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
  snprintf(uid.internal, sizeof uid.internal, "%s", argv[5]);
  g_ready[1] = atoi(argv[6]);
  g_go[0] = atoi(argv[7]);
  if (!strcmp(argv[1], "--intruder")) intruder(uid);
  return pe_main(pe, uid);
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc > 1 && (!strcmp(argv[1], "--pe") || !strcmp(argv[1], "--intruder"))) return exec_child(argc, argv);
  g_self_args = {argv[0], argc > 3 ? argv[3] : ""};
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODE N\n", argv[0]);
    return 2;
  }
  g_mode = argv[1];
  g_n = atoi(argv[2]);
  if (g_n < 1 || g_n > 64) {
    fprintf(stderr, "uid: N must be 1..64\n");
    return 2;
  }
  const bool child0 = g_mode == "run-child0" || g_mode == "host-dies";
  const bool parent_pe = g_mode == "run-parent-pe";
  bool ok = true;

  shmemx_uniqueid_t uid = SHMEMX_UNIQUEID_INITIALIZER;
  if (!child0 && shmemx_get_uniqueid(&uid) != 0) {
    fprintf(stderr, "uid: shmemx_get_uniqueid failed\n");
    return 1;
  }
  if (!child0) say("uid: the parent made the unique ID (pid %d)\n", static_cast<int>(getpid()));

  if (g_mode == "tampered") {
    // The intruder claims to be PE 1 of the job with a changed cookie.
    pid_t pid = fork_maybe_exec(exec_args("--intruder", 1, uid));
    if (pid == 0) intruder(uid);
    int st = 0;
    waitpid(pid, &st, 0);
    say("uid: intruder pid %d %s\n", static_cast<int>(pid), describe(st).c_str());
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) ok = false;
  }

  const bool handshake = g_mode == "strangers";
  if (handshake && (pipe(g_ready) != 0 || pipe(g_go) != 0)) {
    perror("uid: pipe");
    return 1;
  }
  int uid_pipe[2] = {-1, -1};
  if (child0 && pipe(uid_pipe) != 0) {
    perror("uid: pipe");
    return 1;
  }

  std::vector<pid_t> pids(g_n, -1);
  for (int pe = parent_pe ? 1 : 0; pe < g_n; ++pe)
    pids[pe] = spawn_pe(pe, child0 ? nullptr : &uid, uid_pipe[0], uid_pipe[1]);

  if (handshake) {
    close(g_ready[1]);
    close(g_go[0]);
    for (int i = 0; i < g_n; ++i) {
      char b;
      if (read(g_ready[0], &b, 1) != 1) {
        fprintf(stderr, "uid: a PE ended before it was inside the job\n");
        ok = false;
        break;
      }
    }
    const char* modes[] = {"wrong-cookie", "garbage", "not-hello", "close"};
    for (const char* m : modes) {
      char why[256] = "";
      int rc = tc_stranger(uid.internal, m, why, sizeof why);
      say("uid: stranger %s: %s (%s)\n", m, rc == 0 ? "dropped" : "NOT DROPPED", why);
      if (rc != 0) ok = false;
    }
    char go[64] = {};
    if (write(g_go[1], go, g_n) != g_n) ok = false;
  }

  int parent_rc = 0;
  if (parent_pe) {
    parent_rc = pe_main(0, uid);
    say("uid: PE 0 pid %d (the parent) returned %d\n", static_cast<int>(getpid()), parent_rc);
    if (parent_rc != 0) ok = false;
  }

  int failed = 0;
  for (int pe = 0; pe < g_n; ++pe) {
    if (pids[pe] < 0) continue;
    int st = 0;
    while (waitpid(pids[pe], &st, 0) < 0) {
    }
    say("uid: PE %d pid %d %s\n", pe, static_cast<int>(pids[pe]), describe(st).c_str());
    if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) ++failed;
  }
  // Jobs that must fail are judged by the test from the lines above.
  if (g_mode == "kill" || g_mode == "host-dies" || g_mode == "global-exit") return ok ? 0 : 1;
  return ok && failed == 0 ? 0 : 1;
}
