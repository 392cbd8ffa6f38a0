// Team synchronization and team slots.
//
// NOTE [barrier] Dissemination barrier over a team's members. In round r,
// team PE i raises flag[slot][r] on team PE (i + 2^r) mod n to the team's
// barrier epoch, then waits until its own flag[slot][r] reaches that epoch.
// Epochs only grow, so flags never need resetting between barriers; a fast
// PE that already entered the next barrier writes a larger epoch, which
// still satisfies a slow partner's ">= epoch" test. ceil(log2 n) rounds, one
// cache line written per round per PE, works for any n.
//
// When PEs outnumber CPUs every round needs the partner to be scheduled, so
// a central barrier does better: team PE 0 counts arrivals in its round-0
// flag (it reaches epoch*(n-1) when all arrived) and then raises its round-1
// flag to the epoch, which every other member polls. Each PE then needs to
// run only once per barrier after the others arrived. Both forms use only
// growing values, so neither needs resetting.
#include <bit>
#include <cstring>

#include "core/log.hpp"
#include "shmem/runtime.hpp"

namespace tilecomm::shmem {

void Runtime::team_sync(tilecomm_team& team, const char* call) {
  const int n = team.size;
  if (n == 1) return;
  const std::uint64_t epoch = ++team.epoch;
  const int me = team.my_pe;
  Flag* mine = control_->barrier[team.slot];
  if (central()) return central_sync(team, epoch, call);
  for (int r = 0, dist = 1; dist < n; ++r, dist <<= 1) {
    int partner = team.world((me + dist) % n);
    // Only this PE writes this flag of the partner, once per barrier of the
    // team: on another host, adding 1 raises it to the epoch as a store
    // would, and a posted add (Notify) waits for no round trip, now or at
    // the next quiet.
    if (local_[partner]) control(partner).barrier[team.slot][r].value.store(epoch, std::memory_order_release);
    else word_op(partner, transport::AtomicOp::Notify, &mine[r].value, 1, call);
    std::atomic<std::uint64_t>& flag = mine[r].value;
    WaitStatus st = wait_for([&] { return flag.load(std::memory_order_acquire) >= epoch; });
    if (st != WaitStatus::Done) {
      int from = team.world(((me - dist) % n + n) % n);
      wait_failed(st, call, &flag,
                  strprintf("barrier epoch %llu from PE %d (round %d)", static_cast<unsigned long long>(epoch), from, r),
                  strprintf("epoch %llu", static_cast<unsigned long long>(flag.load())));
    }
  }
}

void Runtime::central_sync(tilecomm_team& team, std::uint64_t epoch, const char* call) {
  Flag* root = control(team.world(0)).barrier[team.slot];
  const std::uint64_t arrivals = epoch * static_cast<std::uint64_t>(team.size - 1);
  std::atomic<std::uint64_t>& count = root[0].value;
  std::atomic<std::uint64_t>& release = root[1].value;
  if (team.my_pe == 0) {
    WaitStatus st = wait_for([&] { return count.load(std::memory_order_acquire) >= arrivals; });
    if (st != WaitStatus::Done)
      wait_failed(st, call, &count, strprintf("%llu arrivals at barrier epoch %llu",
                                              static_cast<unsigned long long>(arrivals),
                                              static_cast<unsigned long long>(epoch)),
                  std::to_string(count.load()));
    release.store(epoch, std::memory_order_release);
    return;
  }
  count.fetch_add(1, std::memory_order_acq_rel);
  WaitStatus st = wait_for([&] { return release.load(std::memory_order_acquire) >= epoch; });
  if (st != WaitStatus::Done)
    wait_failed(st, call, &release,
                strprintf("release of barrier epoch %llu from PE %d", static_cast<unsigned long long>(epoch),
                          team.world(0)),
                strprintf("epoch %llu", static_cast<unsigned long long>(release.load())));
}

void Runtime::team_quiesce(tilecomm_team& team, const char* call) {
  team_sync(team, call);
  if (!central() || team.size == 1) return;
  // The arrival half of one more central barrier: the others have left the
  // last release when they arrive, and they poll nothing after arriving.
  const std::uint64_t epoch = ++team.epoch;
  std::atomic<std::uint64_t>& count = control(team.world(0)).barrier[team.slot][0].value;
  if (team.my_pe != 0) {
    count.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  const std::uint64_t arrivals = epoch * static_cast<std::uint64_t>(team.size - 1);
  WaitStatus st = wait_for([&] { return count.load(std::memory_order_acquire) >= arrivals; });
  if (st != WaitStatus::Done)
    wait_failed(st, call, &count, strprintf("%llu arrivals after the last barrier", static_cast<unsigned long long>(arrivals)),
                std::to_string(count.load()));
}

bool Runtime::agree_slots(tilecomm_team& parent, int count, int* slots, const char* call) {
  std::uint64_t free_mask;
  {
    std::lock_guard<std::mutex> lock(slot_mutex_);
    free_mask = ~used_slots_;
  }
  control_->free_slots[parent.slot] = free_mask;
  team_sync(parent, call);
  std::uint64_t common = ~std::uint64_t{0};
  for (int i = 0; i < parent.size; ++i) {
    const int pe = parent.world(i);
    std::uint64_t* mask = &control_->free_slots[parent.slot];
    common &= local_[pe] ? std::atomic_ref<std::uint64_t>(control(pe).free_slots[parent.slot]).load()
                         : word_op(pe, transport::AtomicOp::Fetch, mask, 0, call);
  }
  bool ok = std::popcount(common) >= count;
  for (int k = 0; k < count && ok; ++k) {
    slots[k] = std::countr_zero(common);
    common &= common - 1;
  }
  if (ok) {
    std::lock_guard<std::mutex> lock(slot_mutex_);
    for (int k = 0; k < count; ++k) used_slots_ |= std::uint64_t{1} << slots[k];
    for (int k = 0; k < count; ++k) back_scratch(slots[k]);
    for (int k = 0; k < count; ++k) reset_slot(slots[k]);
  } else {
    TC_LOG(Warn, "team", "%s: no free team slot shared by all %d PEs of the parent team (at most %d teams exist at "
           "once); destroy unused teams", call, parent.size, kMaxTeams);
  }
  // Nobody may use the new slots (or overwrite free_slots) before every PE
  // has read the masks and reset its flags.
  team_sync(parent, call);
  return ok;
}

void Runtime::reset_slot(int slot) {
  for (auto& f : control_->barrier[slot]) f.value.store(0, std::memory_order_relaxed);
  for (auto& f : control_->coll[slot].word) f.value.store(0, std::memory_order_relaxed);
  control_->coll[slot].record[0] = 0;
  for (auto& w : control_->coll[slot].pushed) w.store(0, std::memory_order_relaxed);
  for (auto& w : control_->coll[slot].led) w.store(0, std::memory_order_relaxed);
  std::memset(coll_lines(slot), 0, kCollLinesBytes);  // the records' tags
}

void Runtime::back_scratch(int slot) {
  const std::size_t bytes = team_scratch_bytes(cfg_);
  if (int err = heap_.back(coll_scratch(slot, 0) - heap_.base(), bytes))
    raise(ErrorCode::System, "cannot back %zu bytes of shared memory for a team's collective scratch: %s (lower "
          "TILECOMM_COLL_SCRATCH=%zu, or make room in /dev/shm)", bytes, errno_text(err).c_str(), cfg_.coll_scratch);
}

void Runtime::free_slot(int slot) {
  std::lock_guard<std::mutex> lock(slot_mutex_);
  used_slots_ &= ~(std::uint64_t{1} << slot);
}

}  // namespace tilecomm::shmem
