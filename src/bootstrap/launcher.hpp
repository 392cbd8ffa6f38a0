// The launchers a job may be started by, and the one thing tilecomm asks of
// them: this PE's number, the job size, and a way for PE 0 to hand every PE
// the address of the job's rendezvous (NOTE [launchers] in launcher.cpp).
#pragma once

#include <memory>
#include <string>

namespace tilecomm::bootstrap {

enum class Launcher {
  Tcrun,      // tcrun, or any script: TILECOMM_UNIQUEID, TILECOMM_RANK, TILECOMM_SIZE
  Pmi,        // the PMI-1 wire protocol on PMI_FD (MPICH's hydra: mpirun.mpich, mpiexec.hydra)
  Pmix,       // PMIx (OpenMPI's mpirun, Slurm's srun): PMIX_NAMESPACE
  Singleton,  // no launcher: a job of one PE
};
const char* launcher_name(Launcher l);  // "tcrun", "pmi", "pmix", "singleton"

/// The launcher of this process: `forced` (TILECOMM_BOOTSTRAP: auto, tcrun,
/// uid, pmi, pmix) or, for auto, the first whose environment is present, in
/// the order tcrun, pmix, pmi. Throws when a forced launcher's environment
/// is missing or `forced` names none.
Launcher detect_launcher(const std::string& forced);

/// A launcher's key-value service, for the exchange at init.
class LauncherService {
 public:
  virtual ~LauncherService() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Collective: PE 0 publishes `value` under `key`; every PE returns it.
  virtual std::string share_from_rank0(const std::string& key, const std::string& value) = 0;
  /// Ends the session with the launcher (after the exchange; the job goes on).
  virtual void finalize() = 0;
};

/// Opens the session of launcher `l` (Pmi or Pmix); answers from the
/// launcher are awaited at most `timeout_s` seconds. Throws with the
/// launcher's name and what failed.
std::unique_ptr<LauncherService> open_launcher(Launcher l, double timeout_s);

/// The PMI-1 session on socket `fd` as PE `rank` of `size` (what
/// open_launcher reads from PMI_FD, PMI_RANK, PMI_SIZE); for tests and the
/// fuzz target fuzz_pmi. Does not close `fd`.
std::unique_ptr<LauncherService> open_pmi(int fd, int rank, int size, double timeout_s);

}  // namespace tilecomm::bootstrap
