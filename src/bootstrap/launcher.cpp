// NOTE [launchers] A job is wired up by the rendezvous server of
// server.hpp in every case; launchers differ only in how each PE learns its
// number, the job size and the server's address. tcrun (and any script)
// sets TILECOMM_UNIQUEID/RANK/SIZE. Under MPICH's hydra (PMI_FD) or a PMIx
// launcher (PMIX_NAMESPACE: OpenMPI's mpirun, srun) the launcher gives the
// number and size; PE 0 starts the rendezvous server in its own process,
// as shmemx_get_uniqueid does, and publishes its address through the
// launcher's key-value store; after one fence every PE reads it and the
// session with the launcher ends. Nothing else goes through the launcher,
// so the job behaves the same whoever started it. PMIx is loaded at run
// time (dlopen of libpmix.so.2), so that a machine without it still runs
// every other kind of job; PMI-1 is a text protocol spoken here directly.
#include "bootstrap/launcher.hpp"

#include <dlfcn.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

#include <pmix.h>

#include "core/error.hpp"

namespace tilecomm::bootstrap {

const char* launcher_name(Launcher l) {
  switch (l) {
    case Launcher::Tcrun: return "tcrun";
    case Launcher::Pmi: return "pmi";
    case Launcher::Pmix: return "pmix";
    case Launcher::Singleton: return "singleton";
  }
  return "?";
}

namespace {

bool has_env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

int env_int(const char* name, const char* launcher) {
  const char* v = std::getenv(name);
  char* end = nullptr;
  errno = 0;
  const long x = v ? std::strtol(v, &end, 10) : -1;
  if (!v || !*v || *end || errno || x < 0 || x > INT32_MAX)
    raise(ErrorCode::InvalidUsage, "%s: %s='%s' is not a number; was this process started by the launcher?", launcher,
          name, v ? v : "(unset)");
  return static_cast<int>(x);
}

// ---- PMI-1: "cmd=NAME key=value ...\n" lines on the socket PMI_FD --------------------

class Pmi final : public LauncherService {
 public:
  Pmi(int fd, int rank, int size, double timeout_s, bool owns_fd)
      : timeout_s_(timeout_s), fd_(fd), rank_(rank), size_(size), owns_fd_(owns_fd) {
    if (size_ < 1 || rank_ < 0 || rank_ >= size_)
      raise(ErrorCode::InvalidUsage, "%s: PMI_RANK=%d is not a rank of a job of PMI_SIZE=%d", kWho, rank_, size_);
    request("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init");
    const auto maxes = request("cmd=get_maxes", "maxes");
    vallen_max_ = std::strtoul(field(maxes, "vallen_max").c_str(), nullptr, 10);
    if (vallen_max_ == 0) raise(ErrorCode::Transport, "%s: get_maxes gave no vallen_max", kWho);
    kvs_ = field(request("cmd=get_my_kvsname", "my_kvsname"), "kvsname");
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::string share_from_rank0(const std::string& key, const std::string& value) override {
    if (rank_ == 0) {
      if (value.size() >= vallen_max_ || value.find_first_of(" =\n") != std::string::npos)
        raise(ErrorCode::Transport, "%s: the value of %s ('%s') does not fit a PMI value (at most %zu characters, "
              "no spaces)", kWho, key.c_str(), value.c_str(), vallen_max_ - 1);
      request("cmd=put kvsname=" + kvs_ + " key=" + key + " value=" + value, "put_result");
    }
    request("cmd=barrier_in", "barrier_out");
    return field(request("cmd=get kvsname=" + kvs_ + " key=" + key, "get_result"), "value");
  }

  // Owning PMI_FD, the session closes it and removes PMI_FD, so that a
  // program this PE starts is not taken for a PE of the launcher's job.
  void finalize() override {
    request("cmd=finalize", "finalize_ack");
    if (!owns_fd_) return;
    ::close(fd_);
    unsetenv("PMI_FD");
  }

 private:
  static constexpr const char* kWho = "PMI (MPICH's hydra, PMI_FD)";
  using Reply = std::map<std::string, std::string>;

  static std::string field(const Reply& r, const char* name) {
    const auto it = r.find(name);
    return it == r.end() ? std::string() : it->second;
  }

  // Sends one command line and reads the reply line, which must be `expect`
  // with rc=0 when it has an rc.
  Reply request(const std::string& command, const char* expect) {
    const std::string line = command + "\n";
    for (std::size_t sent = 0; sent < line.size();) {
      ssize_t w = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);  // no SIGPIPE
      if (w < 0 && errno == ENOTSOCK) w = ::write(fd_, line.data() + sent, line.size() - sent);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) raise(ErrorCode::Transport, "%s: cannot send '%s' on fd %d: %s", kWho, command.c_str(), fd_,
                        std::strerror(errno));
      sent += static_cast<std::size_t>(w);
    }
    const std::string text = read_line(command);
    Reply r;
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t end = std::min(text.find(' ', at), text.size());
      const std::string word = text.substr(at, end - at);
      const std::size_t eq = word.find('=');
      if (eq != std::string::npos) r[word.substr(0, eq)] = word.substr(eq + 1);
      at = end + 1;
    }
    if (field(r, "cmd") != expect || (r.count("rc") && field(r, "rc") != "0"))
      raise(ErrorCode::Transport, "%s: '%s' was answered '%s' (expected cmd=%s rc=0)", kWho, command.c_str(),
            text.c_str(), expect);
    return r;
  }

  std::string read_line(const std::string& command) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
    std::string text;
    for (;;) {
      const std::size_t nl = pending_.find('\n');
      if (nl != std::string::npos) {
        text = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        return text;
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0)
        raise(ErrorCode::Timeout, "%s: no answer to '%s' within %g s (TILECOMM_BOOTSTRAP_TIMEOUT); are all %d PEs "
              "running?", kWho, command.c_str(), timeout_s_, size_);
      char buf[512];
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        raise(ErrorCode::Transport, "%s: the launcher closed fd %d while this PE waited for the answer to '%s'",
              kWho, fd_, command.c_str());
      pending_.append(buf, static_cast<std::size_t>(n));
    }
  }

  double timeout_s_;
  int fd_ = -1, rank_ = 0, size_ = 1;
  bool owns_fd_;
  std::size_t vallen_max_ = 0;
  std::string kvs_, pending_;
};

// ---- PMIx, from libpmix.so.2 loaded at run time --------------------------------------

class Pmix final : public LauncherService {
 public:
  explicit Pmix(double timeout_s) : timeout_s_(static_cast<int>(std::max(1.0, timeout_s))) {
    // Global: libpmix loads plugins that resolve its symbols.
    lib_ = dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!lib_)
      raise(ErrorCode::System, "%s: cannot load libpmix.so.2 (%s); install Debian's libpmix2, or start the job "
            "with tcrun", kWho, dlerror());
    load(init_, "PMIx_Init");
    load(finalize_, "PMIx_Finalize");
    load(get_, "PMIx_Get");
    load(put_, "PMIx_Put");
    load(commit_, "PMIx_Commit");
    load(fence_, "PMIx_Fence");
    load(error_string_, "PMIx_Error_string");
    load(value_destruct_, "PMIx_Value_destruct");
    check(init_(&me_, nullptr, 0), "PMIx_Init");
    pmix_value_t* v = nullptr;
    pmix_proc_t job = everyone();
    check(get_(&job, PMIX_JOB_SIZE, nullptr, 0, &v), "PMIx_Get(" PMIX_JOB_SIZE ")");
    const int type = v->type;
    const bool ok = type == PMIX_UINT32 && v->data.uint32 >= 1 && v->data.uint32 <= INT32_MAX;
    size_ = ok ? static_cast<int>(v->data.uint32) : 0;
    release(v);
    if (!ok) raise(ErrorCode::Transport, "%s: " PMIX_JOB_SIZE " is not a job size (PMIx type %d)", kWho, type);
  }

  int rank() const override { return static_cast<int>(me_.rank); }
  int size() const override { return size_; }

  std::string share_from_rank0(const std::string& key, const std::string& value) override {
    if (me_.rank == 0) {
      pmix_value_t v;
      std::memset(&v, 0, sizeof v);
      v.type = PMIX_STRING;
      v.data.string = const_cast<char*>(value.c_str());
      check(put_(PMIX_GLOBAL, key.c_str(), &v), "PMIx_Put");
      check(commit_(), "PMIx_Commit");
    }
    // Both wait at most TILECOMM_BOOTSTRAP_TIMEOUT: a PE 0 that failed before its put must not hold the others.
    pmix_info_t info[2];
    std::memset(info, 0, sizeof info);
    std::strncpy(info[0].key, PMIX_TIMEOUT, PMIX_MAX_KEYLEN);
    info[0].value.type = PMIX_INT;
    info[0].value.data.integer = timeout_s_;
    std::strncpy(info[1].key, PMIX_COLLECT_DATA, PMIX_MAX_KEYLEN);
    info[1].value.type = PMIX_BOOL;
    info[1].value.data.flag = true;
    const pmix_proc_t job = everyone();
    check(fence_(&job, 1, info, 2), "PMIx_Fence (TILECOMM_BOOTSTRAP_TIMEOUT bounds it)");
    pmix_proc_t root = me_;
    root.rank = 0;
    pmix_value_t* v = nullptr;
    check(get_(&root, key.c_str(), info, 1, &v), ("PMIx_Get(" + key + ")").c_str());
    const bool ok = v->type == PMIX_STRING && v->data.string;
    std::string result = ok ? v->data.string : "";
    release(v);
    if (!ok) raise(ErrorCode::Transport, "%s: PE 0's %s is not a string", kWho, key.c_str());
    return result;
  }

  // libpmix stays loaded: its threads may outlive PMIx_Finalize.
  void finalize() override { check(finalize_(nullptr, 0), "PMIx_Finalize"); }

 private:
  static constexpr const char* kWho = "PMIx (PMIX_NAMESPACE)";

  template <class F>
  void load(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib_, name));
    if (!f) raise(ErrorCode::System, "%s: libpmix.so.2 has no %s; tilecomm needs PMIx 4.2 or later", kWho, name);
  }
  void check(pmix_status_t rc, const char* what) const {
    if (rc != PMIX_SUCCESS) raise(ErrorCode::Transport, "%s: %s failed: %s", kWho, what, error_string_(rc));
  }
  void release(pmix_value_t* v) const {
    value_destruct_(v);
    std::free(v);
  }
  pmix_proc_t everyone() const {
    pmix_proc_t p = me_;
    p.rank = PMIX_RANK_WILDCARD;
    return p;
  }

  int timeout_s_;
  void* lib_ = nullptr;
  decltype(&PMIx_Init) init_ = nullptr;
  decltype(&PMIx_Finalize) finalize_ = nullptr;
  decltype(&PMIx_Get) get_ = nullptr;
  decltype(&PMIx_Put) put_ = nullptr;
  decltype(&PMIx_Commit) commit_ = nullptr;
  decltype(&PMIx_Fence) fence_ = nullptr;
  decltype(&PMIx_Error_string) error_string_ = nullptr;
  decltype(&PMIx_Value_destruct) value_destruct_ = nullptr;
  pmix_proc_t me_{};
  int size_ = 0;
};

}  // namespace

Launcher detect_launcher(const std::string& forced) {
  struct Row {
    const char* name;
    Launcher launcher;
    const char* env;  // what the launcher sets
  };
  static const Row rows[] = {{"tcrun", Launcher::Tcrun, "TILECOMM_UNIQUEID"},
                             {"uid", Launcher::Tcrun, "TILECOMM_UNIQUEID"},
                             {"pmix", Launcher::Pmix, "PMIX_NAMESPACE"},
                             {"pmi", Launcher::Pmi, "PMI_FD"}};
  if (forced.empty() || forced == "auto") {
    for (const Row& r : rows)
      if (has_env(r.env)) return r.launcher;
    return Launcher::Singleton;
  }
  for (const Row& r : rows) {
    if (forced != r.name) continue;
    if (!has_env(r.env))
      raise(ErrorCode::InvalidUsage, "TILECOMM_BOOTSTRAP=%s, but %s is not set: this process was not started by that "
            "launcher", forced.c_str(), r.env);
    return r.launcher;
  }
  raise(ErrorCode::InvalidUsage, "TILECOMM_BOOTSTRAP=%s is not a launcher; use auto, tcrun, uid, pmi or pmix",
        forced.c_str());
}

std::unique_ptr<LauncherService> open_pmi(int fd, int rank, int size, double timeout_s) {
  return std::make_unique<Pmi>(fd, rank, size, timeout_s, false);
}

std::unique_ptr<LauncherService> open_launcher(Launcher l, double timeout_s) {
  if (l == Launcher::Pmi) {
    const char* who = "PMI (MPICH's hydra, PMI_FD)";
    return std::make_unique<Pmi>(env_int("PMI_FD", who), env_int("PMI_RANK", who), env_int("PMI_SIZE", who),
                                 timeout_s, true);
  }
  if (l == Launcher::Pmix) return std::make_unique<Pmix>(timeout_s);
  raise(ErrorCode::InvalidUsage, "the %s launcher has no key-value service", launcher_name(l));
}

}  // namespace tilecomm::bootstrap
