// The orchestration helpers' flags (<tilecomm/orchestration.hpp>, layout in
// comm/flags.hpp). Each block of a launch counts its records and waits per
// flag; Comm::BlockScope binds those counters and the descriptor to the
// block's thread for the launch.
#include "tilecomm/orchestration.hpp"

#include <inttypes.h>

#include <vector>

#include "comm/flags.hpp"
#include "core/error.hpp"
#include "core/wait.hpp"

namespace tilecomm {

namespace {

// The waits of one block in this launch, per flag (NOTE in orchestration.hpp).
struct BlockState {
  const CommArgs* args;
  std::vector<std::uint32_t> pair_in, one2n_in;
  std::uint32_t fan_in_in = 0;
};

thread_local BlockState* t_block = nullptr;

BlockState& state(const char* call) {
  if (!t_block)
    raise(ErrorCode::InvalidUsage, "%s: called outside a kernel launched by tilecomm::Comm::launch (the helpers "
          "need the launch's communicator and magic)", call);
  return *t_block;
}

}  // namespace

Comm::BlockScope::BlockScope(const CommArgs& args) {
  const std::size_t n = static_cast<std::size_t>(args.rankSize);
  t_block = new BlockState{&args, std::vector<std::uint32_t>(n), std::vector<std::uint32_t>(n)};
}

Comm::BlockScope::~BlockScope() {
  delete t_block;
  t_block = nullptr;
}

namespace orch::detail {

namespace {

using comm::kLineWords;

constexpr const char* kFlagNames[] = {"pairwise", "one-to-all", "fan-in", "inner"};

std::atomic_ref<std::uint64_t> flag_at(const CommArgs& a, int owner, int line) {
  return std::atomic_ref<std::uint64_t>(a.flags(owner)[line * kLineWords]);
}

int checked_peer(const BlockState& s, int peer, const char* call) {
  const CommArgs& a = *s.args;
  if (peer < 0 || peer >= a.rankSize)
    raise(ErrorCode::InvalidUsage, "%s: peer %d is not a rank of this communicator (ranks 0..%d)", call, peer,
          a.rankSize - 1);
  if (!a.peerFlags[peer])
    raise(ErrorCode::InvalidUsage, "%s: rank %d is on another host; its window is not load/store reachable", call,
          peer);
  return peer;
}

std::uint64_t packed(std::uint32_t tag, std::uint32_t value) { return std::uint64_t{tag} << 32 | value; }

std::uint32_t magic_of(std::uint64_t flag) { return static_cast<std::uint32_t>(flag >> 32); }
// A magic of a later launch than `tag` (serial-number order, 0 = never written).
bool later(std::uint32_t magic, std::uint32_t tag) { return magic != 0 && static_cast<std::int32_t>(magic - tag) > 0; }

// One more record of this launch: value + 1 under the same magic, else 1.
void bump(std::atomic_ref<std::uint64_t> f, std::uint32_t tag) {
  std::uint64_t cur = f.load(std::memory_order_relaxed);
  while (!f.compare_exchange_weak(cur, magic_of(cur) == tag ? cur + 1 : packed(tag, 1), std::memory_order_release,
                                  std::memory_order_relaxed)) {
  }
}

void wait_flag(const CommArgs& a, int owner, int line, std::uint32_t tag, std::uint32_t value, const char* call,
               int peer, Flag f) {
  std::atomic_ref<std::uint64_t> x = flag_at(a, owner, line);
  std::uint64_t polls = 0;
  const WaitStatus st = wait_for([&] {
    if (++polls % 64 == 0) kernel::check_launch();  // throws when a sibling block failed
    const std::uint64_t f = x.load(std::memory_order_acquire);
    return (magic_of(f) == tag && static_cast<std::uint32_t>(f) >= value) || later(magic_of(f), tag);
  });
  const std::uint64_t seen = x.load();
  if (st == WaitStatus::Done && later(magic_of(seen), tag))
    raise(ErrorCode::InvalidUsage, "%s (rank %d, block %" PRId64 "): the %s flag of rank %d already carries magic %u, "
          "a later launch than this one (%u) in the same window partition: that rank ran two launches ahead and "
          "may have overwritten what this launch reads. A kernel that reads peers' windows must have every reader "
          "record back (a post-sync) before the writer's launch returns", call, a.rank, pto::GetBlockIdx(),
          kFlagNames[static_cast<int>(f)], peer, magic_of(seen), tag);
  if (st == WaitStatus::Done) return;
  const std::string what = strprintf(
      "%s (rank %d, block %" PRId64 "): waiting for the %s flag of rank %d to reach magic %u value %u; it holds "
      "magic %u value %u",
      call, a.rank, pto::GetBlockIdx(), kFlagNames[static_cast<int>(f)], peer, tag, value,
      static_cast<unsigned>(seen >> 32), static_cast<unsigned>(seen));
  if (st == WaitStatus::PeerFailed)
    raise(ErrorCode::Remote, "%s; leaving the wait because the job failed: %s", what.c_str(), job_failure().c_str());
  raise(ErrorCode::Timeout, "%s; TILECOMM_TIMEOUT=%g s passed: does rank %d make the matching record with the same "
        "tag in the same launch?", what.c_str(), wait_timeout(), peer);
}

}  // namespace

int block_peer(const char* call) {
  BlockState& s = state(call);
  return checked_peer(s, static_cast<int>(pto::GetBlockIdx()), call);
}

void record(Flag f, int peer, std::uint32_t tag, const char* call) {
  BlockState& s = state(call);
  const CommArgs& a = *s.args;
  switch (f) {
    case Flag::Pair:
      checked_peer(s, peer, call);
      bump(flag_at(a, peer, comm::kPairLine + a.rank), tag);
      break;
    case Flag::One2N:
      bump(flag_at(a, a.rank, comm::kOne2NLine), tag);
      break;
    case Flag::FanIn:
      checked_peer(s, peer, call);
      bump(flag_at(a, peer, comm::kFanInLine + a.rank), tag);
      break;
    case Flag::Inner:
      break;
  }
}

void wait(Flag f, int peer, std::uint32_t tag, const char* call) {
  BlockState& s = state(call);
  const CommArgs& a = *s.args;
  checked_peer(s, peer, call);
  if (f == Flag::Pair) wait_flag(a, a.rank, comm::kPairLine + peer, tag, ++s.pair_in[peer], call, peer, f);
  else wait_flag(a, peer, comm::kOne2NLine, tag, ++s.one2n_in[peer], call, peer, f);
}

void wait_fan_in(std::uint32_t tag) {
  BlockState& s = state("Wait1vN");
  const CommArgs& a = *s.args;
  const std::uint32_t value = ++s.fan_in_in;
  for (int k = 0; k < a.rankSize; ++k)
    if (k != a.rank && a.peerFlags[k]) wait_flag(a, a.rank, comm::kFanInLine + k, tag, value, "Wait1vN", k, Flag::FanIn);
}

namespace {
int inner_line(const char* call, std::int64_t block) {
  if (block >= comm::kInnerBlocks)
    raise(ErrorCode::InvalidUsage, "%s: block %" PRId64 " has no inner flag; launches that use inner flags have at "
          "most %d blocks", call, block, comm::kInnerBlocks);
  return comm::kInnerLine + static_cast<int>(block);
}
}  // namespace

void set_inner(std::uint32_t tag, std::uint32_t value) {
  BlockState& s = state("SetInnerFlag");
  const CommArgs& a = *s.args;
  flag_at(a, a.rank, inner_line("SetInnerFlag", pto::GetBlockIdx())).store(packed(tag, value), std::memory_order_release);
}

void wait_inner(std::uint32_t tag, std::uint32_t value, int rank) {
  BlockState& s = state("WaitRankInnerFlag");
  const CommArgs& a = *s.args;
  checked_peer(s, rank, "WaitRankInnerFlag");
  for (std::int64_t b = 0; b < pto::GetBlockNum(); ++b)
    wait_flag(a, rank, inner_line("WaitRankInnerFlag", b), tag, value, "WaitRankInnerFlag", rank, Flag::Inner);
}

}  // namespace orch::detail
}  // namespace tilecomm
