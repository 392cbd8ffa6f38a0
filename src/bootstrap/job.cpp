#include "bootstrap/job.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"
#include "core/log.hpp"

namespace tilecomm::bootstrap {
namespace {

const char* wants(std::uint32_t want) {
  static const char* const kText[] = {"the group size", "a list", "a map", "a list and a map"};
  return kText[want & 3];
}

}  // namespace

Job::Job(const std::uint8_t* cookie, const JobOptions& opt, LostFn lost) : opt_(opt), lost_(std::move(lost)) {
  memcpy(cookie_, cookie, kCookieBytes);
  if (opt_.size < 0 || opt_.size > kMaxPes)
    raise(ErrorCode::InvalidUsage, "a job of %d PEs: the rendezvous server takes 1 to %d PEs", opt_.size, kMaxPes);
  if (opt_.size > 0) set_size(opt_.size);
}

bool Job::add(int id, const std::string& peer, double now) {
  if (!accepting()) {
    ++rejected_;
    TC_LOG(Warn, "bootstrap", "dropped a connection from %s: %d connections already wait for their Hello (the cap; "
           "each is dropped after %g s without one)", peer.c_str(), pending_, opt_.hello_timeout_s);
    return false;
  }
  ++pending_;
  Conn& c = conns_[id];
  c.peer = peer;
  c.hello_deadline = now + opt_.hello_timeout_s;
  order_.push_back(id);
  return true;
}

Job::Output* Job::output(int id) {
  auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : &it->second.io;
}

std::vector<int> Job::ids() const { return order_; }

std::string Job::who(int rank) const {
  const Rank& r = ranks_[rank];
  return strprintf("PE %d (pid %d on %s)", rank, r.pid, r.host.c_str());
}

std::uint32_t Job::max_len(const Conn& c) const {
  if (c.rank < 0) return sizeof(HelloBody);
  // An allgather result holds up to size_ blobs and PE numbers and must fit
  // in one message (checked per message in allgather()); a card has a bound
  // of its own.
  return std::max<std::uint32_t>(sizeof(GatherHead) + kMaxGatherKey + gather_blob_max(), kMaxCard);
}

std::uint32_t Job::gather_blob_max() const {
  // Per PE: its blob, its PE number in the list, at most one run of the map.
  return (kMaxPayload - sizeof(GatherResultHead) - sizeof(std::int32_t)) / static_cast<std::uint32_t>(size_) -
         sizeof(std::int32_t) - sizeof(GatherRun);
}

void Job::receive(int id, const char* p, std::size_t n) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  Conn& c = it->second;
  if (c.io.drop) return;
  c.in.append(p, n);
  MsgHeader h;
  std::vector<char> body;
  while (!c.io.drop) {
    int r = c.in.next(h, body, max_len(c));
    if (r == 0) return;
    if (r < 0) {
      if (c.rank < 0) return drop(c, strprintf("its first message is not a Hello (type %u, %u bytes)", h.type, h.len));
      return drop(c, strprintf("it sent a %s message of %u bytes, more than the %u bytes a job of %d PEs allows "
                               "(an allgather result must fit in %u bytes, a card in %u)", msg_name(h.type), h.len,
                               max_len(c), size_, kMaxPayload, kMaxCard));
    }
    process(id, c, h, body);
  }
}

void Job::closed(int id) {
  auto it = conns_.find(id);
  if (it == conns_.end()) return;
  Conn& c = it->second;
  if (c.rank >= 0) {
    leave(c, strprintf("%s left the job without shmem_finalize (it exited or was killed)", who(c.rank).c_str()));
  } else if (c.rank == -1 && !c.io.drop) {
    --pending_;
    ++rejected_;
    TC_LOG(Warn, "bootstrap", "dropped a connection from %s: closed before Hello", c.peer.c_str());
  }
  conns_.erase(it);
  order_.erase(std::find(order_.begin(), order_.end(), id));
}

void Job::expire(double now) {
  for (auto& [id, c] : conns_)
    if (c.rank == -1 && !c.io.drop && now > c.hello_deadline)
      drop(c, strprintf("no Hello within %g s", opt_.hello_timeout_s));
}

void Job::drop(Conn& c, const std::string& why) {
  if (c.rank == -1 && !c.io.drop) --pending_;
  c.io.drop = true;
  if (c.rank >= 0) return leave(c, strprintf("%s broke the bootstrap protocol: %s", who(c.rank).c_str(), why.c_str()));
  if (c.rank == -1) {
    ++rejected_;
    TC_LOG(Warn, "bootstrap", "dropped a connection from %s: %s", c.peer.c_str(), why.c_str());
  }
}

void Job::leave(Conn& c, const std::string& reason) {
  // The PE's slot forgets this connection at once: nothing can use it later.
  int rank = c.rank;
  Rank& r = ranks_[rank];
  r.conn = -1;
  c.rank = -2;
  if (r.finalized || finished()) return;  // a clean end
  if (lost_) lost_(rank, r.pid);
  abort(reason);
}

void Job::reject(Conn& c, const std::string& problem) {
  TC_LOG(Error, "bootstrap", "rejected a PE from %s: %s", c.peer.c_str(), problem.c_str());
  c.io.push(encode(Msg::Reject, problem.data(), problem.size()));
  drop(c, problem);
}

void Job::broadcast(Msg type, const void* payload, std::size_t len) {
  auto m = std::make_shared<const std::string>(encode(type, payload, len));
  for (Rank& r : ranks_)
    if (r.conn >= 0) conns_.at(r.conn).io.queue.push_back(m);
}

void Job::abort(const std::string& reason) {
  if (aborted_) return;
  aborted_ = true;
  abort_reason_ = reason;
  TC_LOG(Error, "bootstrap", "aborting the job: %s", reason.c_str());
  broadcast(Msg::Abort, reason.data(), reason.size());
}

void Job::set_size(int n) {
  if (n < 1 || n > kMaxPes)
    return abort(strprintf("the launcher gave a job of %d PEs; the rendezvous server takes 1 to %d", n, kMaxPes));
  if (size_ == n) return;
  if (size_ != 0)
    return abort(strprintf("the launcher started a job of %d PEs, but the PEs that joined first said %d; "
                           "pass the same number of PEs to every shmemx_set_attr_uniqueid_args", n, size_));
  size_ = n;
  ranks_.assign(n, Rank{});
}

void Job::hello(int id, Conn& c, const std::vector<char>& body) {
  std::optional<HelloBody> hello = decode_hello(body);
  if (!hello) return drop(c, "its first message is not a Hello");
  if (!cookie_equal(hello->cookie, cookie_)) return drop(c, "wrong cookie");
  // From here on the peer holds the cookie: it is told why it is refused.
  if (hello->size < 1 || hello->size > kMaxPes)
    return reject(c, strprintf("PE %d says the job has %d PEs; a job has 1 to %d", hello->rank, hello->size, kMaxPes));
  if (size_ == 0) set_size(hello->size);  // no launcher size: the first PE's
  if (hello->size != size_)
    return reject(c, strprintf("PE %d says the job has %d PEs, but it was started with %d; start every PE with the "
                               "same number of PEs", hello->rank, hello->size, size_));
  if (hello->rank < 0 || hello->rank >= size_)
    return reject(c, strprintf("PE number %d is out of range for a job of %d PEs", hello->rank, size_));
  Rank& r = ranks_[hello->rank];
  if (r.joined)
    return reject(c, strprintf("PE %d joined twice (pids %d and %d)", hello->rank, r.pid, hello->pid));
  r.joined = true;
  r.conn = id;
  r.pid = hello->pid;
  r.host = hello->host;
  c.rank = hello->rank;
  --pending_;
  c.io.push(encode(Msg::Welcome, nullptr, 0));
  if (aborted_) c.io.push(encode(Msg::Abort, abort_reason_.data(), abort_reason_.size()));
}

void Job::allgather(Conn& c, const std::vector<char>& body) {
  Rank& r = ranks_[c.rank];
  if (r.gathered) return drop(c, "it sent two Allgather messages in one round");
  std::optional<GatherRequest> req = decode_gather(body);
  if (!req)
    return drop(c, strprintf("it sent an Allgather of %zu bytes that does not start with a key of at most %u bytes "
                             "and a choice of list and map of 0 to 3", body.size(), kMaxGatherKey));
  if (req->blob.size() > gather_blob_max())
    return drop(c, strprintf("it sent an Allgather blob of %zu bytes; a job of %d PEs allows %u (the result must fit "
                             "in %u bytes)", req->blob.size(), size_, gather_blob_max(), kMaxPayload));
  if (gathered_ == 0) {
    gather_blob_ = req->blob.size();
    gather_want_ = req->want;
    gather_.assign(gather_blob_ * size_, 0);
  }
  if (req->blob.size() != gather_blob_ || req->want != gather_want_)
    return abort(strprintf("PEs disagree in a bootstrap allgather: %s sent %zu bytes asking for %s, the PEs before it "
                           "%zu bytes asking for %s", who(c.rank).c_str(), req->blob.size(), wants(req->want),
                           gather_blob_, wants(gather_want_)));
  if (gather_blob_) memcpy(gather_.data() + gather_blob_ * c.rank, req->blob.data(), gather_blob_);
  r.gather_key = std::move(req->key);
  r.gathered = true;
  if (++gathered_ == size_) answer_gather();
}

void Job::answer_gather() {
  // The groups, each with its members in PE order (NOTE [keyed gathers]).
  std::map<std::string, std::vector<std::int32_t>> groups;
  for (int pe = 0; pe < size_; ++pe) groups[ranks_[pe].gather_key].push_back(pe);
  // The smallest PE outside a group is the smallest first member of another group.
  int first = size_, second = size_;
  for (const auto& [key, pes] : groups) {
    if (pes.front() < first) second = first, first = pes.front();
    else if (pes.front() < second) second = pes.front();
  }
  // The map: runs of consecutive PEs of one group, each named by its group's first PE.
  std::vector<GatherRun> runs;
  if (gather_want_ & kGatherMap) {
    for (int pe = 0; pe < size_; ++pe) {
      const std::int32_t group = groups[ranks_[pe].gather_key].front();
      if (runs.empty() || runs.back().group != group) runs.push_back(GatherRun{pe, group});
    }
  }
  for (const auto& [key, pes] : groups) {
    const int outside = pes.front() == first ? second : first;
    const GatherResultHead head{static_cast<std::int32_t>(pes.size()), outside == size_ ? -1 : outside, gather_want_,
                                static_cast<std::uint32_t>(gather_blob_)};
    std::string body(reinterpret_cast<const char*>(&head), sizeof head);
    if (gather_want_ & kGatherList) {
      body.append(reinterpret_cast<const char*>(pes.data()), pes.size() * sizeof(std::int32_t));
      for (int pe : pes) body.append(gather_.data() + pe * gather_blob_, gather_blob_);
    }
    if (gather_want_ & kGatherMap) {
      const auto count = static_cast<std::int32_t>(runs.size());
      body.append(reinterpret_cast<const char*>(&count), sizeof count);
      body.append(reinterpret_cast<const char*>(runs.data()), runs.size() * sizeof(GatherRun));
    }
    auto m = std::make_shared<const std::string>(encode(Msg::AllgatherResult, body.data(), body.size()));
    for (int pe : pes)  // shared by the group: the result costs its size once
      if (ranks_[pe].conn >= 0) conns_.at(ranks_[pe].conn).io.queue.push_back(m);
  }
  for (Rank& each : ranks_) {
    each.gathered = false;
    each.gather_key.clear();
  }
  gathered_ = 0;
}

void Job::process(int id, Conn& c, const MsgHeader& h, const std::vector<char>& body) {
  if (c.rank < 0) {
    if (static_cast<Msg>(h.type) != Msg::Hello) return drop(c, "its first message is not a Hello");
    return hello(id, c, body);
  }
  switch (static_cast<Msg>(h.type)) {
    case Msg::Allgather:
      return allgather(c, body);
    case Msg::Finalize: {
      Rank& r = ranks_[c.rank];
      if (!r.finalized) {  // a repeated Finalize counts once
        r.finalized = true;
        ++finalized_;
      }
      return;
    }
    case Msg::GlobalExit: {
      std::optional<std::int32_t> status = decode_int32(body);
      if (!status) return drop(c, strprintf("it sent a GlobalExit of %zu bytes, not 4", body.size()));
      // Every PE, the caller included, exits when it reads this; their
      // disconnects are then expected and must not raise an abort.
      exited_ = true;
      global_exit_status_ = *status;
      std::int32_t out[2] = {*status, c.rank};
      return broadcast(Msg::GlobalExit, out, sizeof out);
    }
    case Msg::Publish: {
      Rank& r = ranks_[c.rank];
      if (r.answer) return drop(c, "it published a second card");
      if (body.size() > kMaxCard)
        return drop(c, strprintf("it published a card of %zu bytes; a card has at most %u", body.size(), kMaxCard));
      const std::int32_t pe = c.rank;
      std::string answer(reinterpret_cast<const char*>(&pe), sizeof pe);
      answer.append(body.begin(), body.end());
      r.answer = std::make_shared<const std::string>(encode(Msg::LookupResult, answer.data(), answer.size()));
      return;
    }
    case Msg::Lookup: {
      std::optional<std::int32_t> pe = decode_int32(body);
      if (!pe || *pe < 0 || *pe >= size_)
        return drop(c, strprintf("it sent a Lookup of %zu bytes that names no PE of the %d", body.size(), size_));
      if (c.io.queue.size() >= kMaxUnread)
        return drop(c, strprintf("it asked for a card with %zu messages it did not read", c.io.queue.size()));
      if (const auto& answer = ranks_[*pe].answer) c.io.queue.push_back(answer);
      else c.io.push(encode(Msg::LookupResult, &*pe, sizeof *pe));  // no card: an empty one
      return;
    }
    default:
      TC_LOG(Warn, "bootstrap", "%s sent unexpected message type %u (%s); ignored", who(c.rank).c_str(), h.type,
             msg_name(h.type));
  }
}

}  // namespace tilecomm::bootstrap
