// Contexts (OpenSHMEM 1.5 section 9.4.x: shmem_ctx_create, shmem_ctx_destroy,
// shmem_ctx_get_team, shmem_team_create_ctx) and teams (section 9.4:
// predefined teams, shmem_team_my_pe/n_pes, get_config, translate_pe,
// split_strided, split_2d, team_sync, destroy).
#include <algorithm>
#include <cstring>

#include "api_test.hpp"

using namespace api;

namespace {

long g_x;    // a symmetric global for team-relative RMA and AMO
int g_ring;  // a symmetric int for the shmem_ctx_int_p ring
int g_ival2, g_ival3, g_isum;  // the specification's team-context example

// The world PEs of the team (start, stride, size) in world numbering.
std::vector<int> members(int start, int stride, int size) {
  std::vector<int> m;
  for (int i = 0; i < size; ++i) m.push_back(start + i * stride);
  return m;
}

// Checks a team against its expected world members from this PE's view:
// membership, my_pe, n_pes, translate_pe both ways (and -1 for non-members).
void check_team(shmem_team_t team, const std::vector<int>& world_members, const std::string& what) {
  const int self = me(), n = npes();
  auto it = std::find(world_members.begin(), world_members.end(), self);
  const bool member = it != world_members.end();
  if (!member) {
    EXPECT_EQ(team, SHMEM_TEAM_INVALID) << what << ": a non-member gets SHMEM_TEAM_INVALID";
    return;
  }
  EXPECT_NE(team, SHMEM_TEAM_INVALID) << what;
  if (team == SHMEM_TEAM_INVALID) return;
  const int size = static_cast<int>(world_members.size());
  EXPECT_EQ(shmem_team_n_pes(team), size) << what;
  EXPECT_EQ(shmem_team_my_pe(team), static_cast<int>(it - world_members.begin())) << what;
  for (int i = 0; i < size; ++i) {
    EXPECT_EQ(shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD), world_members[i]) << what << ": team PE " << i;
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, world_members[i], team), i) << what << ": world PE "
                                                                                      << world_members[i];
  }
  for (int pe = 0; pe < n; ++pe)
    if (std::find(world_members.begin(), world_members.end(), pe) == world_members.end()) {
      EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, team), -1)
          << what << ": world PE " << pe << " is not a member";
    }
  EXPECT_EQ(shmem_team_translate_pe(team, size, SHMEM_TEAM_WORLD), -1) << what << ": team PE out of range";
  EXPECT_EQ(shmem_team_translate_pe(team, -1, SHMEM_TEAM_WORLD), -1) << what;
  EXPECT_EQ(shmem_team_translate_pe(team, shmem_team_my_pe(team), team), shmem_team_my_pe(team)) << what;
}

// Team-relative communication inside a team (members only): a ring over the
// team with a team context (PE numbers are team numbers), AMOs to team PE 0,
// and team_sync. Returns nothing; checks exact values.
void exercise_team(shmem_team_t team, const std::vector<int>& world_members, const std::string& what) {
  if (team == SHMEM_TEAM_INVALID) return;
  const int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  EXPECT_EQ(shmem_team_create_ctx(team, 0, &ctx), 0) << what;
  if (ctx == SHMEM_CTX_INVALID) return;
  shmem_team_t got = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_ctx_get_team(ctx, &got), 0) << what;
  EXPECT_EQ(got, team) << what << ": shmem_ctx_get_team";

  // Ring over the team: my world number to the next team PE.
  g_x = -1;
  shmem_team_sync(team);
  shmem_ctx_long_p(ctx, &g_x, 1000 + me(), (tme + 1) % tn);
  shmem_ctx_quiet(ctx);
  EXPECT_EQ(shmem_team_sync(team), 0) << what;
  EXPECT_EQ(g_x, 1000 + world_members[(tme + tn - 1) % tn]) << what << ": team-relative put";
  // And a team-relative get of the next team PE's value.
  EXPECT_EQ(shmem_ctx_long_g(ctx, &g_x, (tme + 1) % tn), 1000L + me()) << what << ": team-relative get";
  shmem_team_sync(team);

  // AMOs to team PE 0: the sum of the members' world numbers.
  g_x = 0;
  shmem_team_sync(team);
  shmem_ctx_long_atomic_add(ctx, &g_x, me(), 0);
  shmem_ctx_quiet(ctx);
  shmem_team_sync(team);
  long want = 0;
  for (int pe : world_members) want += pe;
  EXPECT_EQ(shmem_ctx_long_atomic_fetch(ctx, &g_x, 0), want) << what << ": AMO to team PE 0";
  EXPECT_EQ(shmem_long_atomic_fetch(&g_x, world_members[0]), want) << what << ": same word through the world";
  shmem_team_sync(team);
  shmem_ctx_destroy(ctx);
}

}  // namespace

// ---- contexts ----------------------------------------------------------------------

TEST(Contexts, CreateWithEveryOptionAndUse) {
  const long options[] = {0,
                          SHMEM_CTX_SERIALIZED,
                          SHMEM_CTX_PRIVATE,
                          SHMEM_CTX_NOSTORE,
                          SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE,
                          SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                          SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
  Sym<int> x(1);
  if (!x.ok()) return;
  for (long opt : options) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    EXPECT_EQ(shmem_ctx_create(opt, &ctx), 0) << "options " << opt;
    EXPECT_NE(ctx, SHMEM_CTX_INVALID) << "options " << opt;
    if (ctx == SHMEM_CTX_INVALID) continue;
    EXPECT_NE(ctx, SHMEM_CTX_DEFAULT);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_ctx_get_team(ctx, &team), 0);
    EXPECT_EQ(team, SHMEM_TEAM_WORLD) << "shmem_ctx_create makes contexts on the world team";
    x[0] = -1;
    barrier();
    if (opt & SHMEM_CTX_NOSTORE) {
      // No stores through this context: use it to read only.
      x[0] = 50 + me();
      barrier();
      EXPECT_EQ(shmem_ctx_int_g(ctx, x.get(), right()), 50 + right()) << "options " << opt;
      EXPECT_EQ(shmem_ctx_int_atomic_fetch(ctx, x.get(), left()), 50 + left()) << "options " << opt;
    } else {
      shmem_ctx_int_p(ctx, x.get(), 100 + me(), right());
      shmem_ctx_quiet(ctx);
      barrier();
      EXPECT_EQ(x[0], 100 + left()) << "options " << opt;
      barrier();
      EXPECT_EQ(shmem_ctx_int_atomic_fetch_add(ctx, x.get(), 1, right()), 100 + me()) << "options " << opt;
    }
    barrier();
    shmem_ctx_destroy(ctx);
  }
}

TEST(Contexts, GetTeamOfPredefinedAndInvalidContexts) {
  shmem_team_t team = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team), 0);
  EXPECT_EQ(team, SHMEM_TEAM_WORLD);
  team = SHMEM_TEAM_WORLD;
  EXPECT_NE(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team), 0);
  EXPECT_EQ(team, SHMEM_TEAM_INVALID);
}

TEST(Contexts, DestroyInvalidIsANoOp) {
  shmem_ctx_destroy(SHMEM_CTX_INVALID);
  SUCCEED();
}

// The specification's shmem_team_context example: PEs outside a team get
// SHMEM_CTX_INVALID for it and still call quiet on it, which does nothing.
shmem_ctx_t team_ctx_or_invalid(shmem_team_t team) {
  if (team == SHMEM_TEAM_INVALID) return SHMEM_CTX_INVALID;
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  EXPECT_EQ(shmem_team_create_ctx(team, 0, &ctx), 0);
  return ctx;
}

void send_team_pe_to_neighbor(shmem_ctx_t ctx, int* val) {
  if (ctx == SHMEM_CTX_INVALID) return;
  shmem_team_t team = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_ctx_get_team(ctx, &team), 0);
  int pe = shmem_team_my_pe(team);
  shmem_ctx_int_put(ctx, val, &pe, 1, (pe + 1) % shmem_team_n_pes(team));
}

TEST(Contexts, QuietAndFenceOnInvalidContextDoNothing) {
  shmem_ctx_quiet(SHMEM_CTX_INVALID);
  shmem_ctx_fence(SHMEM_CTX_INVALID);
  const int n = npes();
  const int n2 = (n + 1) / 2, n3 = (n + 2) / 3;  // world PEs 0, 2, 4... and 0, 3, 6...
  shmem_team_config_t conf{1};
  shmem_team_t team_2s = SHMEM_TEAM_INVALID, team_3s = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n2, &conf, SHMEM_TEAM_NUM_CONTEXTS, &team_2s), 0);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 3, n3, &conf, SHMEM_TEAM_NUM_CONTEXTS, &team_3s), 0);
  shmem_ctx_t ctx_2s = team_ctx_or_invalid(team_2s), ctx_3s = team_ctx_or_invalid(team_3s);
  EXPECT_EQ(ctx_2s == SHMEM_CTX_INVALID, me() % 2 != 0);
  EXPECT_EQ(ctx_3s == SHMEM_CTX_INVALID, me() % 3 != 0);
  g_ival2 = g_ival3 = -1;
  g_isum = 0;
  barrier();
  send_team_pe_to_neighbor(ctx_2s, &g_ival2);
  send_team_pe_to_neighbor(ctx_3s, &g_ival3);
  shmem_ctx_fence(ctx_2s);
  shmem_ctx_fence(ctx_3s);
  shmem_ctx_quiet(ctx_2s);
  shmem_ctx_quiet(ctx_3s);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  if (team_2s != SHMEM_TEAM_INVALID) {
    EXPECT_EQ(g_ival2, (me() / 2 + n2 - 1) % n2);
  }
  if (team_3s != SHMEM_TEAM_INVALID) {
    EXPECT_EQ(g_ival3, (me() / 3 + n3 - 1) % n3);
  }
  // PEs in both teams add their two values on the last world PE that is in
  // both, named by its 3s number and reached through the 2s context.
  const int target = (n - 1) / 6 * 6;
  if (ctx_2s != SHMEM_CTX_INVALID && ctx_3s != SHMEM_CTX_INVALID) {
    int in_2s = shmem_team_translate_pe(team_3s, target / 3, team_2s);
    EXPECT_EQ(in_2s, target / 2);
    if (in_2s >= 0) shmem_ctx_int_atomic_add(ctx_2s, &g_isum, g_ival2 + g_ival3, in_2s);
  }
  shmem_ctx_quiet(ctx_2s);
  shmem_team_sync(SHMEM_TEAM_WORLD);
  if (me() == target) {
    int want = 0;
    for (int pe = 0; pe < n; pe += 6) want += (pe / 2 + n2 - 1) % n2 + (pe / 3 + n3 - 1) % n3;
    EXPECT_EQ(g_isum, want);
  }
  shmem_ctx_destroy(ctx_2s);  // SHMEM_CTX_INVALID on non-members: no operation
  shmem_team_destroy(team_2s);
  shmem_ctx_destroy(ctx_3s);
  shmem_team_destroy(team_3s);
  barrier();
}

TEST(Contexts, CreateOnInvalidTeamFails) {
  shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
  EXPECT_NE(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx), 0);
  EXPECT_EQ(ctx, SHMEM_CTX_INVALID);
}

TEST(Contexts, ManyContextsAtOnce) {
  constexpr int C = 64;
  Sym<long> slots(C);
  if (!slots.ok()) return;
  std::vector<shmem_ctx_t> ctxs(C, SHMEM_CTX_INVALID);
  for (int i = 0; i < C; ++i) EXPECT_EQ(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &ctxs[i]), 0) << i;
  barrier();
  for (int i = 0; i < C; ++i)
    if (ctxs[i] != SHMEM_CTX_INVALID) shmem_ctx_long_p(ctxs[i], slots.get() + i, i * 10 + left(), left());
  for (int i = 0; i < C; ++i)
    if (ctxs[i] != SHMEM_CTX_INVALID) shmem_ctx_quiet(ctxs[i]);
  barrier();
  // Each PE wrote i*10 + left() into its left neighbour, so my slots were
  // written by my right neighbour, whose left neighbour is me.
  EXPECT_TRUE(all_equal(slots.get(), C, [](size_t i) { return static_cast<long>(i) * 10 + me(); }));
  barrier();
  for (auto c : ctxs)
    if (c != SHMEM_CTX_INVALID) shmem_ctx_destroy(c);
  // Create and destroy many times: resources are released.
  for (int i = 0; i < 1000; ++i) {
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    EXPECT_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c), 0);
    if (c != SHMEM_CTX_INVALID) shmem_ctx_destroy(c);
  }
}

TEST(Contexts, DestroyCompletesOutstandingPuts) {
  // shmem_ctx_destroy completes the context's operations (as quiet does).
  Sym<long> buf(64);
  if (!buf.ok()) return;
  barrier();
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  EXPECT_EQ(shmem_ctx_create(0, &ctx), 0);
  if (ctx != SHMEM_CTX_INVALID) {
    std::vector<long> src(64);
    for (int i = 0; i < 64; ++i) src[i] = 9000 + 64 * me() + i;
    shmem_ctx_long_put_nbi(ctx, buf.get(), src.data(), 64, right());
    shmem_ctx_destroy(ctx);
  }
  barrier();
  EXPECT_TRUE(all_equal(buf.get(), 64, [](size_t i) { return 9000L + 64 * left() + static_cast<long>(i); }));
  barrier();
}

// ---- predefined teams --------------------------------------------------------------

TEST(Teams, World) {
  check_team(SHMEM_TEAM_WORLD, members(0, 1, npes()), "SHMEM_TEAM_WORLD");
  shmem_team_config_t cfg;
  cfg.num_contexts = -7;
  EXPECT_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  EXPECT_GE(cfg.num_contexts, 0);
  EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);
  exercise_team(SHMEM_TEAM_WORLD, members(0, 1, npes()), "SHMEM_TEAM_WORLD");
}

// The PEs whose memory this PE maps (shmem_ptr): this host's PEs, in world
// order. On one host, the whole job.
std::vector<int> host_pes() {
  std::vector<int> m;
  for (int pe = 0; pe < npes(); ++pe)
    if (shmem_ptr(&g_x, pe)) m.push_back(pe);
  return m;
}

TEST(Teams, Shared) {
  // SHMEM_TEAM_SHARED is the PEs of this host, which shmem_ptr reaches (the
  // whole job on one host; a job over hosts in tests/hosts places them so
  // that each host's PEs form a progression).
  const std::vector<int> host = host_pes();
  check_team(SHMEM_TEAM_SHARED, host, "SHMEM_TEAM_SHARED");
  EXPECT_EQ(shmem_team_sync(SHMEM_TEAM_SHARED), 0);
  for (int pe = 0; pe < npes(); ++pe)
    EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0, shmem_ptr(&g_x, pe) != nullptr)
        << "PE " << pe;
  exercise_team(SHMEM_TEAM_SHARED, host, "SHMEM_TEAM_SHARED");
  barrier();
}

TEST(Teams, SplitOfShared) {
  // SHMEM_TEAM_SHARED is a valid parent like any other team.
  const int n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  shmem_team_t t = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_SHARED, 0, 2, (n + 1) / 2, nullptr, 0, &t), 0);
  const std::vector<int> host = host_pes();
  std::vector<int> m;
  for (int i = 0; i < n; i += 2) m.push_back(host[i]);
  check_team(t, m, "evens of SHMEM_TEAM_SHARED");
  exercise_team(t, m, "evens of SHMEM_TEAM_SHARED");
  if (t != SHMEM_TEAM_INVALID) {
    for (int i = 0; i < shmem_team_n_pes(t); ++i)
      EXPECT_EQ(shmem_team_translate_pe(t, i, SHMEM_TEAM_SHARED), 2 * i);
    shmem_team_destroy(t);
  }
  barrier();
}

TEST(Teams, InvalidTeamQueries) {
  EXPECT_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
  EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
  EXPECT_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
  shmem_team_config_t cfg{};
  EXPECT_NE(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
  EXPECT_NE(shmem_team_sync(SHMEM_TEAM_INVALID), 0);
  shmem_team_destroy(SHMEM_TEAM_INVALID);  // no operation
  shmem_team_t t = SHMEM_TEAM_WORLD;
  EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, nullptr, 0, &t), 0);
  EXPECT_EQ(t, SHMEM_TEAM_INVALID);
  shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
  EXPECT_NE(shmem_team_split_2d(SHMEM_TEAM_INVALID, 2, nullptr, 0, &x, nullptr, 0, &y), 0);
  EXPECT_EQ(x, SHMEM_TEAM_INVALID);
  EXPECT_EQ(y, SHMEM_TEAM_INVALID);
}

// ---- split_strided -----------------------------------------------------------------

struct Triplet {
  int start, stride, size;
  const char* name;
};

TEST(Teams, SplitStridedShapes) {
  const int n = npes();
  std::vector<Triplet> shapes = {
      {0, 1, n, "all"},
      {0, 2, (n + 1) / 2, "evens"},
      {n - 1, 1, 1, "last alone"},
      {0, 1, 1, "first alone"},
      {0, std::max(1, n - 1), n > 1 ? 2 : 1, "first and last"},
      {n / 2, 1, n - n / 2, "upper half"},
  };
  if (n >= 2) shapes.push_back({1, 2, n / 2, "odds"});
  if (n >= 3) shapes.push_back({1, 1, n - 2, "middle"});
  if (n >= 4) shapes.push_back({1, 3, (n - 2) / 3 + 1, "stride 3 from 1"});
  for (const Triplet& t : shapes) {
    shmem_team_t team = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, t.start, t.stride, t.size, nullptr, 0, &team);
    EXPECT_EQ(rc, 0) << t.name << ": every PE of the parent gets 0, members and non-members";
    auto m = members(t.start, t.stride, t.size);
    check_team(team, m, t.name);
    exercise_team(team, m, t.name);
    if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
    barrier();
  }
}

TEST(Teams, SplitStridedWithNegativeStride) {
  // Member i of the new team is parent PE start + i * stride, for a negative
  // stride too, as long as every member is a PE of the parent.
  const int n = npes();
  std::vector<Triplet> shapes = {
      {n - 1, -1, n, "reversed world"},
      {n - 1, -2, (n + 1) / 2, "every other PE downwards from the last"},
      {n / 2, -1, n / 2 + 1, "lower half downwards"},
  };
  if (n >= 4) shapes.push_back({n - 2, -3, (n - 2) / 3 + 1, "stride -3 from n-2"});
  for (const Triplet& t : shapes) {
    shmem_team_t team = SHMEM_TEAM_WORLD;
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, t.start, t.stride, t.size, nullptr, 0, &team), 0) << t.name;
    auto m = members(t.start, t.stride, t.size);
    check_team(team, m, t.name);
    exercise_team(team, m, t.name);
    if (team != SHMEM_TEAM_INVALID) shmem_team_destroy(team);
    barrier();
  }
  // A negative stride whose members leave the parent fails on every PE.
  shmem_team_t team = SHMEM_TEAM_WORLD;
  EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n + 1, nullptr, 0, &team), 0);
  EXPECT_EQ(team, SHMEM_TEAM_INVALID);
  EXPECT_NE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, nullptr, 0, &team), 0);
  EXPECT_EQ(team, SHMEM_TEAM_INVALID);
  barrier();
}

TEST(Teams, NegativeStrideSplitsOfAStridedTeam) {
  // The reversed world, then splits of it with both signs of stride: the
  // strides compose (world stride -1 times -2 is 2, times 2 is -2).
  const int n = npes();
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, nullptr, 0, &rev), 0);
  check_team(rev, members(n - 1, -1, n), "reversed world");
  if (rev != SHMEM_TEAM_INVALID) {
    // Team PE k of rev is world PE n-1-k.
    shmem_team_t up = SHMEM_TEAM_INVALID;  // rev PEs n-1, n-3, ...: world 0, 2, 4, ...
    EXPECT_EQ(shmem_team_split_strided(rev, n - 1, -2, (n + 1) / 2, nullptr, 0, &up), 0);
    check_team(up, members(0, 2, (n + 1) / 2), "evens upwards (split of reversed)");
    exercise_team(up, members(0, 2, (n + 1) / 2), "evens upwards (split of reversed)");
    if (up != SHMEM_TEAM_INVALID) shmem_team_destroy(up);
    shmem_team_t down = SHMEM_TEAM_INVALID;  // rev PEs 0, 2, ...: world n-1, n-3, ...
    EXPECT_EQ(shmem_team_split_strided(rev, 0, 2, (n + 1) / 2, nullptr, 0, &down), 0);
    check_team(down, members(n - 1, -2, (n + 1) / 2), "every other PE downwards (split of reversed)");
    exercise_team(down, members(n - 1, -2, (n + 1) / 2), "every other PE downwards (split of reversed)");
    if (down != SHMEM_TEAM_INVALID) shmem_team_destroy(down);
    // Translation between the reversed team and a split of it.
    shmem_team_t back = SHMEM_TEAM_INVALID;  // rev reversed again: the world order
    EXPECT_EQ(shmem_team_split_strided(rev, n - 1, -1, n, nullptr, 0, &back), 0);
    check_team(back, members(0, 1, n), "reversed twice");
    if (back != SHMEM_TEAM_INVALID) {
      for (int i = 0; i < n; ++i) EXPECT_EQ(shmem_team_translate_pe(back, i, rev), n - 1 - i);
      shmem_team_destroy(back);
    }
    shmem_team_destroy(rev);
  }
  // A negative-stride split of a positive-stride team: the odds of the
  // world, downwards.
  if (n >= 2) {
    shmem_team_t odds = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odds), 0);
    if (odds != SHMEM_TEAM_INVALID) {
      const int on = shmem_team_n_pes(odds);
      shmem_team_t odds_down = SHMEM_TEAM_INVALID;
      EXPECT_EQ(shmem_team_split_strided(odds, on - 1, -1, on, nullptr, 0, &odds_down), 0);
      check_team(odds_down, members(2 * on - 1, -2, on), "odds downwards (split of odds)");
      exercise_team(odds_down, members(2 * on - 1, -2, on), "odds downwards (split of odds)");
      if (odds_down != SHMEM_TEAM_INVALID) shmem_team_destroy(odds_down);
      shmem_team_destroy(odds);
    }
  }
  barrier();
}

TEST(Teams, SplitStridedInvalidTripletsFailEverywhere) {
  const int n = npes();
  const Triplet bad[] = {
      {0, 1, n + 1, "too many PEs"},
      {n, 1, 1, "start past the end"},
      {-1, 1, 1, "negative start"},
      {0, 1, 0, "empty team"},
      {0, 2, n, "stride runs past the end"},
  };
  for (const Triplet& t : bad) {
    if (n == 1 && t.stride == 2 && t.size == 1) continue;  // {0,2,1} is valid with one PE
    shmem_team_t team = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, t.start, t.stride, t.size, nullptr, 0, &team);
    EXPECT_NE(rc, 0) << t.name;
    EXPECT_EQ(team, SHMEM_TEAM_INVALID) << t.name;
    if (team != SHMEM_TEAM_INVALID && team != SHMEM_TEAM_WORLD) shmem_team_destroy(team);
  }
  barrier();
}

TEST(Teams, NestedSplits) {
  // Evens of the world, then the evens of that team: world PEs 0, 4, 8...
  // then a split of a split of a split.
  const int n = npes();
  shmem_team_t evens = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens), 0);
  check_team(evens, members(0, 2, (n + 1) / 2), "evens");
  if (evens != SHMEM_TEAM_INVALID) {
    const int en = shmem_team_n_pes(evens);
    shmem_team_t quads = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_team_split_strided(evens, 0, 2, (en + 1) / 2, nullptr, 0, &quads), 0);
    check_team(quads, members(0, 4, (en + 1) / 2), "every 4th (split of evens)");
    exercise_team(quads, members(0, 4, (en + 1) / 2), "every 4th");
    // Translation between the two sub-teams, not just to the world.
    if (quads != SHMEM_TEAM_INVALID) {
      for (int i = 0; i < shmem_team_n_pes(quads); ++i) {
        EXPECT_EQ(shmem_team_translate_pe(quads, i, evens), 2 * i);
        EXPECT_EQ(shmem_team_translate_pe(evens, 2 * i, quads), i);
      }
      if (en > 1) {
        EXPECT_EQ(shmem_team_translate_pe(evens, 1, quads), -1);
      }
      shmem_team_t last = SHMEM_TEAM_INVALID;
      const int qn = shmem_team_n_pes(quads);
      EXPECT_EQ(shmem_team_split_strided(quads, qn - 1, 1, 1, nullptr, 0, &last), 0);
      check_team(last, members(4 * (qn - 1), 1, 1), "last of every 4th");
      if (last != SHMEM_TEAM_INVALID) shmem_team_destroy(last);
      shmem_team_destroy(quads);
    }
    // The odd members of the evens team (world PEs 2, 6, ...).
    if (en >= 2) {
      shmem_team_t twos = SHMEM_TEAM_INVALID;
      EXPECT_EQ(shmem_team_split_strided(evens, 1, 2, en / 2, nullptr, 0, &twos), 0);
      check_team(twos, members(2, 4, en / 2), "world PEs 2 mod 4");
      exercise_team(twos, members(2, 4, en / 2), "world PEs 2 mod 4");
      if (twos != SHMEM_TEAM_INVALID) shmem_team_destroy(twos);
    }
    shmem_team_destroy(evens);
  }
  barrier();
}

TEST(Teams, DisjointTeamsSyncConcurrently) {
  // Evens and odds each run 100 team barriers at the same time, with a
  // counter that checks each barrier really waits for the whole team.
  const int n = npes();
  shmem_team_t half = SHMEM_TEAM_INVALID;
  shmem_team_t evens = SHMEM_TEAM_INVALID, odds = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, nullptr, 0, &evens), 0);
  if (n >= 2) {
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odds), 0);
  }
  half = me() % 2 == 0 ? evens : odds;
  Sym<long> counter(1);
  if (counter.ok() && half != SHMEM_TEAM_INVALID) {
    const int tn = shmem_team_n_pes(half);
    const int root = shmem_team_translate_pe(half, 0, SHMEM_TEAM_WORLD);
    for (int round = 1; round <= 100; ++round) {
      shmem_long_atomic_inc(counter.get(), root);
      shmem_team_sync(half);
      EXPECT_GE(shmem_long_atomic_fetch(counter.get(), root), static_cast<long>(round) * tn) << "round " << round;
      EXPECT_LE(shmem_long_atomic_fetch(counter.get(), root), static_cast<long>(round + 1) * tn) << "round " << round;
    }
    shmem_team_sync(half);
    EXPECT_EQ(shmem_long_atomic_fetch(counter.get(), root), 100L * tn);
  }
  barrier();
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  if (odds != SHMEM_TEAM_INVALID) shmem_team_destroy(odds);
  barrier();
}

TEST(Teams, GetConfig) {
  shmem_team_config_t cfg;
  cfg.num_contexts = 3;
  shmem_team_t t = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes(), &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t), 0);
  shmem_team_t d = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes(), &cfg, 0, &d), 0)
      << "mask 0: the defaults, config ignored";
  shmem_team_t z = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes(), nullptr, 0, &z), 0);
  shmem_team_config_t out;
  out.num_contexts = -1;
  EXPECT_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &out), 0);
  EXPECT_EQ(out.num_contexts, 3);
  out.num_contexts = -1;
  EXPECT_EQ(shmem_team_get_config(d, SHMEM_TEAM_NUM_CONTEXTS, &out), 0);
  EXPECT_EQ(out.num_contexts, 0) << "the default num_contexts is 0";
  out.num_contexts = -1;
  EXPECT_EQ(shmem_team_get_config(z, SHMEM_TEAM_NUM_CONTEXTS, &out), 0);
  EXPECT_EQ(out.num_contexts, 0);
  // A mask of 0 fetches nothing.
  out.num_contexts = 12345;
  EXPECT_EQ(shmem_team_get_config(t, 0, &out), 0);
  EXPECT_EQ(out.num_contexts, 12345);
  // The contexts the configuration announced can be created.
  if (t != SHMEM_TEAM_INVALID) {
    shmem_ctx_t c[3];
    for (auto& x : c) EXPECT_EQ(shmem_team_create_ctx(t, 0, &x), 0);
    for (auto& x : c)
      if (x != SHMEM_CTX_INVALID) shmem_ctx_destroy(x);
  }
  shmem_team_destroy(z);
  shmem_team_destroy(d);
  shmem_team_destroy(t);
}

// ---- split_2d ----------------------------------------------------------------------

namespace {

void check_2d(shmem_team_t parent, const std::vector<int>& parent_world, int xrange_arg) {
  const int n = static_cast<int>(parent_world.size());
  const int pme = shmem_team_my_pe(parent);
  const int xr = std::min(xrange_arg, n);  // xrange > N behaves as N
  shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
  const std::string what = "split_2d(n=" + std::to_string(n) + ", xrange=" + std::to_string(xrange_arg) + ")";
  EXPECT_EQ(shmem_team_split_2d(parent, xrange_arg, nullptr, 0, &xt, nullptr, 0, &yt), 0) << what;
  EXPECT_NE(xt, SHMEM_TEAM_INVALID) << what;
  EXPECT_NE(yt, SHMEM_TEAM_INVALID) << what;
  if (xt == SHMEM_TEAM_INVALID || yt == SHMEM_TEAM_INVALID) return;
  const int x = pme % xr, y = pme / xr;
  // The x-team is my row: parent PEs y*xr .. min(y*xr+xr, n)-1.
  std::vector<int> row, col;
  for (int p = y * xr; p < std::min(y * xr + xr, n); ++p) row.push_back(parent_world[p]);
  for (int p = x; p < n; p += xr) col.push_back(parent_world[p]);
  EXPECT_EQ(shmem_team_my_pe(xt), x) << what << ": my_pe in the x-team is the x coordinate";
  EXPECT_EQ(shmem_team_my_pe(yt), y) << what << ": my_pe in the y-team is the y coordinate";
  check_team(xt, row, what + " x-team");
  check_team(yt, col, what + " y-team");
  // Translations between the parent and the new teams.
  for (int i = 0; i < static_cast<int>(row.size()); ++i)
    EXPECT_EQ(shmem_team_translate_pe(xt, i, parent), y * xr + i) << what;
  for (int j = 0; j < static_cast<int>(col.size()); ++j)
    EXPECT_EQ(shmem_team_translate_pe(yt, j, parent), x + j * xr) << what;
  exercise_team(xt, row, what + " x-team");
  exercise_team(yt, col, what + " y-team");
  shmem_team_sync(parent);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);
}

}  // namespace

TEST(Teams, Split2dShapes) {
  std::vector<int> world = members(0, 1, npes());
  for (int xr : {1, 2, 3, 4, npes(), npes() + 3}) check_2d(SHMEM_TEAM_WORLD, world, xr);
  barrier();
}

TEST(Teams, Split2dOfASubTeam) {
  // The parent is the odd PEs (or the world with one PE), numbered 0..k-1.
  const int n = npes();
  shmem_team_t parent = SHMEM_TEAM_INVALID;
  Triplet t = n >= 2 ? Triplet{1, 2, n / 2, "odds"} : Triplet{0, 1, 1, "one"};
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, t.start, t.stride, t.size, nullptr, 0, &parent), 0);
  if (parent != SHMEM_TEAM_INVALID) {
    auto m = members(t.start, t.stride, t.size);
    check_2d(parent, m, 2);
    check_2d(parent, m, 3);
    shmem_team_destroy(parent);
  }
  barrier();
}

TEST(Teams, Split2dInvalidXrange) {
  shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
  EXPECT_NE(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, nullptr, 0, &xt, nullptr, 0, &yt), 0);
  EXPECT_EQ(xt, SHMEM_TEAM_INVALID);
  EXPECT_EQ(yt, SHMEM_TEAM_INVALID);
  barrier();
}

TEST(Teams, Split2dWithConfigs) {
  shmem_team_config_t xc, yc;
  xc.num_contexts = 2;
  yc.num_contexts = 5;
  shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc, SHMEM_TEAM_NUM_CONTEXTS,
                                &yt),
            0);
  shmem_team_config_t out;
  EXPECT_EQ(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &out), 0);
  EXPECT_EQ(out.num_contexts, 2);
  EXPECT_EQ(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &out), 0);
  EXPECT_EQ(out.num_contexts, 5);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);
  barrier();
}

// ---- creation and destruction in loops ---------------------------------------------

TEST(Teams, CreateAndDestroy200Times) {
  // Team resources (slots, barrier flags) must be reused: far more teams
  // than can exist at once are created one after the other.
  const int n = npes();
  for (int i = 0; i < 200; ++i) {
    shmem_team_t t = SHMEM_TEAM_INVALID;
    // Alternate shapes so that members and non-members both cycle.
    int start = i % n, size = 1 + (n - start - 1) / 2;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 2, size, nullptr, 0, &t);
    EXPECT_EQ(rc, 0) << "iteration " << i;
    if (rc != 0) break;  // the same on every PE
    const bool member = me() >= start && (me() - start) % 2 == 0 && (me() - start) / 2 < size;
    EXPECT_EQ(t != SHMEM_TEAM_INVALID, member) << "iteration " << i;
    if (t != SHMEM_TEAM_INVALID) {
      EXPECT_EQ(shmem_team_my_pe(t), (me() - start) / 2);
      EXPECT_EQ(shmem_team_n_pes(t), size);
      EXPECT_EQ(shmem_team_sync(t), 0);
      shmem_team_destroy(t);
    }
  }
  barrier();
}

TEST(Teams, Split2dCreateAndDestroy100Times) {
  for (int i = 0; i < 100; ++i) {
    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 2 + i % 2, nullptr, 0, &xt, nullptr, 0, &yt);
    EXPECT_EQ(rc, 0) << "iteration " << i;
    if (rc != 0) break;
    shmem_team_sync(xt);
    shmem_team_sync(yt);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
  }
  barrier();
}

TEST(Teams, ManyTeamsAliveAtOnce) {
  // 24 duplicates of the world alive at the same time, each usable, then
  // destroyed in an order different from their creation.
  constexpr int T = 24;
  std::vector<shmem_team_t> teams(T, SHMEM_TEAM_INVALID);
  int created = 0;
  for (int i = 0; i < T; ++i) {
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes(), nullptr, 0, &teams[i]);
    EXPECT_EQ(rc, 0) << "team " << i;
    if (rc != 0) break;
    ++created;
  }
  for (int i = 0; i < created; ++i) {
    EXPECT_EQ(shmem_team_n_pes(teams[i]), npes());
    EXPECT_EQ(shmem_team_sync(teams[i]), 0);
  }
  // Interleaved barriers on different teams must not mix up.
  for (int round = 0; round < 5; ++round)
    for (int i = created - 1; i >= 0; --i) shmem_team_sync(teams[i]);
  for (int i = 0; i < created; i += 2) shmem_team_destroy(teams[i]);
  for (int i = 1; i < created; i += 2) shmem_team_destroy(teams[i]);
  barrier();
}

TEST(Teams, TeamContextsAreTeamRelative) {
  // A context on the odd PEs: PE 0 of that team is world PE 1.
  const int n = npes();
  if (n < 2) {
    // One PE: the context of a one-PE team addresses PE 0 = world PE 0.
    shmem_team_t t = SHMEM_TEAM_INVALID;
    EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, nullptr, 0, &t), 0);
    if (t != SHMEM_TEAM_INVALID) {
      Ctx c(0, t);
      g_x = 0;
      if (c.ok()) shmem_ctx_long_p(c.get(), &g_x, 42, 0);
      EXPECT_EQ(g_x, 42);
    }
    shmem_team_destroy(t);
    return;
  }
  shmem_team_t odds = SHMEM_TEAM_INVALID;
  EXPECT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odds), 0);
  g_x = 0;
  barrier();
  if (odds != SHMEM_TEAM_INVALID) {
    Ctx c(SHMEM_CTX_PRIVATE, odds);
    if (c.ok()) {
      // Every odd PE adds its world number to team PE 0, i.e. world PE 1.
      shmem_ctx_long_atomic_add(c.get(), &g_x, me(), 0);
      shmem_ctx_quiet(c.get());
    }
  }
  barrier();
  long want = 0;
  for (int pe = 1; pe < n; pe += 2) want += pe;
  EXPECT_EQ(shmem_long_g(&g_x, 1), want) << "the team's PE 0 is world PE 1";
  EXPECT_EQ(shmem_long_g(&g_x, 0), 0) << "world PE 0 untouched";
  barrier();
  // A ring over the odd PEs with shmem_ctx_int_p and team PE numbers: team
  // PE k writes to team PE k+1, i.e. world PE 2k+1 to world PE 2k+3.
  g_ring = -1;
  barrier();
  if (odds != SHMEM_TEAM_INVALID) {
    Ctx c(0, odds);
    const int tn = shmem_team_n_pes(odds), tme = shmem_team_my_pe(odds);
    EXPECT_EQ(tme, (me() - 1) / 2);
    if (c.ok()) {
      shmem_ctx_int_p(c.get(), &g_ring, 500 + me(), (tme + 1) % tn);
      shmem_ctx_quiet(c.get());
    }
  }
  barrier();
  if (me() % 2 == 1) {
    const int tn = n / 2, tme = (me() - 1) / 2;
    const int from = 2 * ((tme + tn - 1) % tn) + 1;  // world number of the previous team PE
    EXPECT_EQ(g_ring, 500 + from);
  } else {
    EXPECT_EQ(g_ring, -1) << "even PEs are outside the team";
  }
  barrier();
  if (odds != SHMEM_TEAM_INVALID) shmem_team_destroy(odds);
}

TEST(Teams, SlotReusedRightAfterDestroyByAnotherParent) {
  // Team {0,1} is destroyed and at once PEs 0 and 2 make a team of their own
  // from their parent {0,2}: it may take the freed slot while PE 1 is still
  // leaving the destroy. With more PEs than CPUs (the central barrier) PE 1
  // must not find the slot's flags reset under it.
  if (shmem_n_pes() < 3) return;
  shmem_team_t pair = SHMEM_TEAM_INVALID;
  ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, 2, nullptr, 0, &pair), 0);
  for (int it = 0; it < 200; ++it) {
    shmem_team_t t = SHMEM_TEAM_INVALID, q = SHMEM_TEAM_INVALID;
    ASSERT_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, nullptr, 0, &t), 0);
    if (t != SHMEM_TEAM_INVALID) {
      for (int k = 0; k < 5; ++k) ASSERT_EQ(shmem_team_sync(t), 0);
      shmem_team_destroy(t);
    }
    if (pair != SHMEM_TEAM_INVALID) {
      ASSERT_EQ(shmem_team_split_strided(pair, 0, 1, 2, nullptr, 0, &q), 0);
      ASSERT_NE(q, SHMEM_TEAM_INVALID);
      ASSERT_EQ(shmem_team_sync(q), 0);
      shmem_team_destroy(q);
    }
    shmem_barrier_all();
  }
  if (pair != SHMEM_TEAM_INVALID) shmem_team_destroy(pair);
}
