// Jobs that MPICH's hydra (PMI-1) and OpenMPI's mpirun (PMIx) start instead
// of tcrun (NOTE [launchers] in src/bootstrap/launcher.cpp): a PE killed in
// a barrier ends the job, every survivor that reports the failure names the
// dead PE, and nothing of the job is left; a launcher forced by
// TILECOMM_BOOTSTRAP without its environment is a clear error. And hosts:
// which PEs count as one host (NOTE [host key]), and PEs of different hosts
// under each launcher.
#include <sched.h>

#include "fixture.hpp"

using namespace tcfail;

namespace {

struct Launcher : JobTest {
  // `launcher` ("hydra" or "openmpi") -n N tc_fail_pe helper_args... <marker>
  static Result job(const std::string& launcher, int n, const std::vector<std::string>& helper_args,
                    Options opts = {}) {
    const std::string marker = new_marker();
    std::vector<std::string> argv;
    if (launcher == "hydra") argv = {TC_MPIRUN_MPICH, "-n", std::to_string(n)};
    else argv = {TC_MPIRUN_OPENMPI, "--allow-run-as-root", "--oversubscribe", "-np", std::to_string(n)};
    argv.push_back(TC_FAIL_PE);
    argv.insert(argv.end(), helper_args.begin(), helper_args.end());
    argv.push_back(marker);
    opts.env.push_back("OMPI_MCA_btl=^openib");  // OpenMPI's openib crashes at exit without InfiniBand
    return run(argv, marker, opts);
  }
  static bool installed(const std::string& launcher) {
    return !std::string(launcher == "hydra" ? TC_MPIRUN_MPICH : TC_MPIRUN_OPENMPI).empty();
  }
};

}  // namespace

// A 3-PE job runs and ends cleanly.
void expect_job_runs(const std::string& launcher) {
  Result r = Launcher::job(launcher, 3, {"plain"});
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << launcher << r;
  for (int pe = 0; pe < 3; ++pe)
    EXPECT_THAT(r.out, HasSubstr("helper: PE " + std::to_string(pe) + " of 3 ran")) << launcher << r;
  EXPECT_NOTHING_LEFT(r);
}

// PE 1 dies by SIGKILL in a barrier of a 3-PE job.
void expect_kill_ends_job(const std::string& launcher) {
  Result r = Launcher::job(launcher, 3, {"kill-in-barrier"}, JobTest::survivors_leave_by_themselves());
  ASSERT_ENDED(r);
  EXPECT_FALSE(r.exited() && r.exit_code() == 0) << launcher << ": the job must fail" << r;
  const int pid1 = helper_pid(r, 1);
  ASSERT_GT(pid1, 0) << launcher << r;
  // The launcher may end the survivors itself once PE 1 died; every one
  // that reported the failure first names PE 1.
  for (const std::string& line : lines_with(r.err, {"because the job failed"}))
    EXPECT_THAT(line, HasSubstr("PE 1 (pid " + std::to_string(pid1))) << launcher << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

#define SKIP_UNLESS_INSTALLED(launcher)                                              \
  if (!Launcher::installed(launcher))                                                \
  GTEST_SKIP() << launcher << " is not installed (scripts/install-deps.sh installs it)"

TEST_F(Launcher, AJobRunsUnderHydra) {
  SKIP_UNLESS_INSTALLED("hydra");
  expect_job_runs("hydra");
}

TEST_F(Launcher, AJobRunsUnderOpenMpi) {
  SKIP_UNLESS_INSTALLED("openmpi");
  expect_job_runs("openmpi");
}

TEST_F(Launcher, APeKilledUnderHydraEndsTheJob) {
  SKIP_UNLESS_INSTALLED("hydra");
  expect_kill_ends_job("hydra");
}

TEST_F(Launcher, APeKilledUnderOpenMpiEndsTheJob) {
  SKIP_UNLESS_INSTALLED("openmpi");
  expect_kill_ends_job("openmpi");
}

TEST_F(Launcher, AForcedLauncherNeedsItsEnvironment) {
  const struct {
    const char* name;
    const char* missing;
  } cases[] = {{"pmi", "PMI_FD"}, {"pmix", "PMIX_NAMESPACE"}, {"tcrun", "TILECOMM_UNIQUEID"}};
  for (const auto& c : cases) {
    Options o;
    o.env = {std::string("TILECOMM_BOOTSTRAP=") + c.name};
    const std::string marker = new_marker();
    Result r = run({TC_FAIL_PE, "plain", marker}, marker, o);
    ASSERT_ENDED(r);
    EXPECT_EQ(r.exit_code(), 1) << r;
    EXPECT_THAT(lines_with(r.err, {"shmem_init", std::string("TILECOMM_BOOTSTRAP=") + c.name, c.missing}), SizeIs(1))
        << r;
    EXPECT_THAT(r.out, Not(HasSubstr("ran"))) << r;
    EXPECT_NOTHING_LEFT(r);
  }
  Options o;
  o.env = {"TILECOMM_BOOTSTRAP=slurm"};
  const std::string marker = new_marker();
  Result r = run({TC_FAIL_PE, "plain", marker}, marker, o);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 1) << r;
  EXPECT_THAT(lines_with(r.err, {"TILECOMM_BOOTSTRAP=slurm", "auto, tcrun, uid, pmi or pmix"}), SizeIs(1)) << r;
}

// NOTE [host key] in src/shmem/runtime.cpp: PEs that TILECOMM_HOST_ID puts
// on hosts of their own reach each other over UCX only (the own-host
// scenario checks the data, shmem_ptr and the UCX traffic counters), under
// tcrun, hydra and OpenMPI's mpirun; PEs that claim one host without
// sharing memory are told to set TILECOMM_HOST_ID.
using Hosts = JobTest;

void expect_own_hosts_run(const Result& r, int n, const std::string& launcher) {
  EXPECT_EQ(r.exit_code(), 0) << launcher << r;
  for (int pe = 0; pe < n; ++pe)
    EXPECT_THAT(r.out, HasSubstr("helper: PE " + std::to_string(pe) + " of " + std::to_string(n) +
                                 " ran on its own host"))
        << launcher << r;
  EXPECT_NO_UNEXPECTED(r);
  EXPECT_NOTHING_LEFT(r);
}

TEST_F(Hosts, PesOnHostsOfTheirOwnRunOverUcx) {
  Result r = tcrun(3, {"own-host"});
  ASSERT_ENDED(r);
  expect_own_hosts_run(r, 3, "tcrun");
}

TEST_F(Launcher, PesOnHostsOfTheirOwnRunOverUcxUnderHydra) {
  SKIP_UNLESS_INSTALLED("hydra");
  Result r = job("hydra", 3, {"own-host"});
  ASSERT_ENDED(r);
  expect_own_hosts_run(r, 3, "hydra");
}

TEST_F(Launcher, PesOnHostsOfTheirOwnRunOverUcxUnderOpenMpi) {
  SKIP_UNLESS_INSTALLED("openmpi");
  Result r = job("openmpi", 3, {"own-host"});
  ASSERT_ENDED(r);
  expect_own_hosts_run(r, 3, "openmpi");
}

TEST_F(Hosts, OneHostKeyWithoutSharedMemoryIsAClearError) {
  // PE 1 in a PID namespace of its own: the same boot id and network
  // namespace, but PE 0's pid means nothing there.
  if (system("unshare --pid --fork --mount-proc true >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "cannot create PID namespaces here (unshare --pid needs root or user namespaces)";
  const std::string marker = new_marker();
  const std::string pe = std::string(TC_FAIL_PE) + " plain " + marker;
  Result r = run({TC_TCRUN, "-n", "2", "sh", "-c",
                  "if [ \"$TILECOMM_RANK\" = 1 ]; then exec unshare --pid --fork --mount-proc " + pe + "; else exec " +
                      pe + "; fi", marker},
                 marker);
  ASSERT_ENDED(r);
  EXPECT_NE(r.exit_code(), 0) << r;
  EXPECT_THAT(lines_with(r.err, {"shmem_init", "shared segment", "TILECOMM_HOST_ID"}), Not(IsEmpty())) << r;
  EXPECT_THAT(r.out, Not(HasSubstr("ran"))) << r;
  EXPECT_NOTHING_LEFT(r);
}

// OpenMPI's mpirun binds each of 2 PEs to a CPU of its own: the job is not
// oversubscribed although each PE sees one CPU (Runtime::oversubscribed
// counts the CPUs of every PE). Needs 2 CPUs.
TEST_F(Launcher, PesBoundToOneCpuEachAreNotOversubscribed) {
  SKIP_UNLESS_INSTALLED("openmpi");
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) < 2) GTEST_SKIP() << "needs 2 CPUs";
  Options o;
  o.env = {"TILECOMM_LOG_LEVEL=debug"};
  Result r = job("openmpi", 2, {"plain"}, o);
  ASSERT_ENDED(r);
  EXPECT_EQ(r.exit_code(), 0) << r;
  EXPECT_THAT(lines_with(r.err, {"ready", "at most one PE per CPU"}), SizeIs(2)) << r;
}
