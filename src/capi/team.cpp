// Teams and contexts.
//
// A team is an arithmetic progression of world PEs; splitting composes
// progressions, so every team is (start, stride, size) in world numbers,
// the stride negative when a split with a negative stride reversed the order.
// Creating teams is collective over the parent team and agrees on a team
// slot (the barrier flags the team uses) shared by all members.
#include "capi/capi.hpp"
#include "core/log.hpp"
#include "shmem/launch.hpp"

using namespace tilecomm;
using namespace tilecomm::capi;

namespace {

tilecomm_team* make_team(const tilecomm_team& parent, int start, int stride, int size, int slot,
                        const shmem_team_config_t* config, long mask) {
  auto* t = new tilecomm_team{};
  t->start = parent.world(start);
  t->stride = parent.stride * stride;
  t->size = size;
  t->my_pe = t->team_pe(shmem::g_runtime->my_pe());
  t->slot = slot;
  if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) {
    t->num_contexts = config->num_contexts;
    t->config_mask = mask;
  }
  return t;
}

}  // namespace

extern "C" {

int shmem_team_my_pe(shmem_team_t team) {
  shmem::rt("shmem_team_my_pe");
  return team ? team->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team) {
  shmem::rt("shmem_team_n_pes");
  return team ? team->size : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) {
  shmem::rt("shmem_team_get_config");
  if (!team || !config) return -1;
  if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = team->num_contexts;
  return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  shmem::rt("shmem_team_translate_pe");
  if (!src_team || !dest_team || src_pe < 0 || src_pe >= src_team->size) return -1;
  return dest_team->team_pe(src_team->world(src_pe));
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size, const shmem_team_config_t* config,
                             long config_mask, shmem_team_t* new_team) {
  auto& r = shmem::rt("shmem_team_split_strided");
  if (!new_team) usage_error("shmem_team_split_strided", "new_team is NULL");
  *new_team = SHMEM_TEAM_INVALID;
  if (!parent) return -1;
  // The same arguments on every PE of the parent: a bad set fails everywhere.
  // Member i is parent PE start + i * stride; a negative stride lists them
  // downwards. Every member must be a PE of the parent.
  if (size == 1) stride = 1;  // any stride names the same one-PE team
  const long long last = start + (static_cast<long long>(size) - 1) * stride;
  if (size < 1 || stride == 0 || start < 0 || start >= parent->size || last < 0 || last >= parent->size) {
    TC_LOG(Warn, "team", "shmem_team_split_strided(start=%d, stride=%d, size=%d) does not fit the parent team of %d "
           "PEs", start, stride, size, parent->size);
    return -1;
  }
  int slot;
  if (!r.agree_slots(*parent, 1, &slot, "shmem_team_split_strided")) return -1;
  if (progression_index(start, stride, size, parent->my_pe) >= 0)
    *new_team = make_team(*parent, start, stride, size, slot, config, config_mask);
  else
    r.free_slot(slot);  // not a member: the slot stays free here
  return 0;
}

int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t* xaxis_config, long xaxis_mask,
                        shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config, long yaxis_mask,
                        shmem_team_t* yaxis_team) {
  auto& r = shmem::rt("shmem_team_split_2d");
  if (!xaxis_team || !yaxis_team) usage_error("shmem_team_split_2d", "xaxis_team and yaxis_team must not be NULL");
  *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
  if (!parent || xrange < 1) return -1;
  const int n = parent->size;
  if (xrange > n) xrange = n;
  // Every x-team (a row) uses one slot and every y-team (a column) another:
  // rows are disjoint, and so are columns, so they never share a flag.
  int slots[2];
  if (!r.agree_slots(*parent, 2, slots, "shmem_team_split_2d")) return -1;
  const int me = parent->my_pe;
  const int row = me / xrange, col = me % xrange;
  const int row_start = row * xrange;
  const int row_size = std::min(xrange, n - row_start);
  const int col_size = (n - col + xrange - 1) / xrange;
  *xaxis_team = make_team(*parent, row_start, 1, row_size, slots[0], xaxis_config, xaxis_mask);
  *yaxis_team = make_team(*parent, col, xrange, col_size, slots[1], yaxis_config, yaxis_mask);
  return 0;
}

void shmem_team_destroy(shmem_team_t team) {
  auto& r = shmem::rt("shmem_team_destroy");
  if (!team) return;
  if (team->predefined) usage_error("shmem_team_destroy", "predefined teams (WORLD, SHARED) cannot be destroyed");
  // Destroying is collective: once every member is here, nobody still reads
  // a member's collective scratch, words or barrier flags, and the slot may
  // serve a new team.
  r.team_quiesce(*team, "shmem_team_destroy");
  r.free_slot(team->slot);
  delete team;
}

// ---- contexts ---------------------------------------------------------------------------

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx) {
  shmem::rt("shmem_team_create_ctx");
  if (!ctx) usage_error("shmem_team_create_ctx", "ctx is NULL");
  *ctx = SHMEM_CTX_INVALID;
  if (!team) return -1;
  constexpr long kKnown = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
  if (options & ~kKnown) {
    TC_LOG(Warn, "ctx", "shmem_team_create_ctx: unknown options 0x%lx", options & ~kKnown);
    return -1;
  }
  // On shared memory a context needs no resources of its own: every
  // operation completes at once, so NOSTORE and PRIVATE change nothing and
  // quiet on one context is quiet on all.
  *ctx = new tilecomm_ctx{team, options};
  return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t* ctx) {
  return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
  auto& r = shmem::rt("shmem_ctx_destroy");
  if (!ctx) return;
  if (ctx == SHMEM_CTX_DEFAULT) usage_error("shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed");
  r.quiet("shmem_ctx_destroy");
  delete ctx;
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team) {
  shmem::rt("shmem_ctx_get_team");
  if (!team) return -1;
  if (!ctx) {
    *team = SHMEM_TEAM_INVALID;
    return -1;
  }
  *team = ctx->team;
  return 0;
}

}  // extern "C"
