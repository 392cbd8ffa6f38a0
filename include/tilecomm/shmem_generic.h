/* Type-generic OpenSHMEM interfaces: C11 _Generic macros in C, overloads in C++.
 * One block per generic name of the specification; included by <shmem.h>.
 * The RMA, AMO and signal forms take an optional leading shmem_ctx_t, as the
 * specification's generic interfaces do. */
#ifndef TILECOMM_SHMEM_GENERIC_H
#define TILECOMM_SHMEM_GENERIC_H

#ifdef __cplusplus

#define SHMEMI_CXX_SHMEM_PUT(TYPE, NAME) \
  inline void shmem_put(TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_##NAME##_put(dest, source, nelems, pe); } \
  inline void shmem_put(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_ctx_##NAME##_put(ctx, dest, source, nelems, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_PUT)
#undef SHMEMI_CXX_SHMEM_PUT
#define SHMEMI_CXX_SHMEM_GET(TYPE, NAME) \
  inline void shmem_get(TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_##NAME##_get(dest, source, nelems, pe); } \
  inline void shmem_get(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_ctx_##NAME##_get(ctx, dest, source, nelems, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_GET)
#undef SHMEMI_CXX_SHMEM_GET
#define SHMEMI_CXX_SHMEM_PUT_NBI(TYPE, NAME) \
  inline void shmem_put_nbi(TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_##NAME##_put_nbi(dest, source, nelems, pe); } \
  inline void shmem_put_nbi(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_ctx_##NAME##_put_nbi(ctx, dest, source, nelems, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_PUT_NBI)
#undef SHMEMI_CXX_SHMEM_PUT_NBI
#define SHMEMI_CXX_SHMEM_GET_NBI(TYPE, NAME) \
  inline void shmem_get_nbi(TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_##NAME##_get_nbi(dest, source, nelems, pe); } \
  inline void shmem_get_nbi(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, size_t nelems, int pe) { shmem_ctx_##NAME##_get_nbi(ctx, dest, source, nelems, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_GET_NBI)
#undef SHMEMI_CXX_SHMEM_GET_NBI
#define SHMEMI_CXX_SHMEM_P(TYPE, NAME) \
  inline void shmem_p(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_p(dest, value, pe); } \
  inline void shmem_p(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_p(ctx, dest, value, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_P)
#undef SHMEMI_CXX_SHMEM_P
#define SHMEMI_CXX_SHMEM_G(TYPE, NAME) \
  inline TYPE shmem_g(const TYPE * source, int pe) { return shmem_##NAME##_g(source, pe); } \
  inline TYPE shmem_g(shmem_ctx_t ctx, const TYPE * source, int pe) { return shmem_ctx_##NAME##_g(ctx, source, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_G)
#undef SHMEMI_CXX_SHMEM_G
#define SHMEMI_CXX_SHMEM_IPUT(TYPE, NAME) \
  inline void shmem_iput(TYPE * dest, const TYPE * source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { shmem_##NAME##_iput(dest, source, dst, sst, nelems, pe); } \
  inline void shmem_iput(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { shmem_ctx_##NAME##_iput(ctx, dest, source, dst, sst, nelems, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_IPUT)
#undef SHMEMI_CXX_SHMEM_IPUT
#define SHMEMI_CXX_SHMEM_IGET(TYPE, NAME) \
  inline void shmem_iget(TYPE * dest, const TYPE * source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { shmem_##NAME##_iget(dest, source, dst, sst, nelems, pe); } \
  inline void shmem_iget(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) { shmem_ctx_##NAME##_iget(ctx, dest, source, dst, sst, nelems, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_IGET)
#undef SHMEMI_CXX_SHMEM_IGET
#define SHMEMI_CXX_SHMEM_PUT_SIGNAL(TYPE, NAME) \
  inline void shmem_put_signal(TYPE * dest, const TYPE * source, size_t nelems, uint64_t * sig_addr, uint64_t signal, int sig_op, int pe) { shmem_##NAME##_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe); } \
  inline void shmem_put_signal(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, size_t nelems, uint64_t * sig_addr, uint64_t signal, int sig_op, int pe) { shmem_ctx_##NAME##_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_PUT_SIGNAL)
#undef SHMEMI_CXX_SHMEM_PUT_SIGNAL
#define SHMEMI_CXX_SHMEM_PUT_SIGNAL_NBI(TYPE, NAME) \
  inline void shmem_put_signal_nbi(TYPE * dest, const TYPE * source, size_t nelems, uint64_t * sig_addr, uint64_t signal, int sig_op, int pe) { shmem_##NAME##_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe); } \
  inline void shmem_put_signal_nbi(shmem_ctx_t ctx, TYPE * dest, const TYPE * source, size_t nelems, uint64_t * sig_addr, uint64_t signal, int sig_op, int pe) { shmem_ctx_##NAME##_put_signal_nbi(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_PUT_SIGNAL_NBI)
#undef SHMEMI_CXX_SHMEM_PUT_SIGNAL_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH(TYPE, NAME) \
  inline TYPE shmem_atomic_fetch(const TYPE * source, int pe) { return shmem_##NAME##_atomic_fetch(source, pe); } \
  inline TYPE shmem_atomic_fetch(shmem_ctx_t ctx, const TYPE * source, int pe) { return shmem_ctx_##NAME##_atomic_fetch(ctx, source, pe); }
SHMEMI_AMO_EXT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_NBI(TYPE, NAME) \
  inline void shmem_atomic_fetch_nbi(TYPE * fetch, const TYPE * source, int pe) { shmem_##NAME##_atomic_fetch_nbi(fetch, source, pe); } \
  inline void shmem_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE * fetch, const TYPE * source, int pe) { shmem_ctx_##NAME##_atomic_fetch_nbi(ctx, fetch, source, pe); }
SHMEMI_AMO_EXT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_SET(TYPE, NAME) \
  inline void shmem_atomic_set(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_set(dest, value, pe); } \
  inline void shmem_atomic_set(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_set(ctx, dest, value, pe); }
SHMEMI_AMO_EXT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_SET)
#undef SHMEMI_CXX_SHMEM_ATOMIC_SET
#define SHMEMI_CXX_SHMEM_ATOMIC_SWAP(TYPE, NAME) \
  inline TYPE shmem_atomic_swap(TYPE * dest, TYPE value, int pe) { return shmem_##NAME##_atomic_swap(dest, value, pe); } \
  inline TYPE shmem_atomic_swap(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { return shmem_ctx_##NAME##_atomic_swap(ctx, dest, value, pe); }
SHMEMI_AMO_EXT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_SWAP)
#undef SHMEMI_CXX_SHMEM_ATOMIC_SWAP
#define SHMEMI_CXX_SHMEM_ATOMIC_SWAP_NBI(TYPE, NAME) \
  inline void shmem_atomic_swap_nbi(TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_swap_nbi(fetch, dest, value, pe); } \
  inline void shmem_atomic_swap_nbi(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_swap_nbi(ctx, fetch, dest, value, pe); }
SHMEMI_AMO_EXT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_SWAP_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_SWAP_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_COMPARE_SWAP(TYPE, NAME) \
  inline TYPE shmem_atomic_compare_swap(TYPE * dest, TYPE cond, TYPE value, int pe) { return shmem_##NAME##_atomic_compare_swap(dest, cond, value, pe); } \
  inline TYPE shmem_atomic_compare_swap(shmem_ctx_t ctx, TYPE * dest, TYPE cond, TYPE value, int pe) { return shmem_ctx_##NAME##_atomic_compare_swap(ctx, dest, cond, value, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_COMPARE_SWAP)
#undef SHMEMI_CXX_SHMEM_ATOMIC_COMPARE_SWAP
#define SHMEMI_CXX_SHMEM_ATOMIC_COMPARE_SWAP_NBI(TYPE, NAME) \
  inline void shmem_atomic_compare_swap_nbi(TYPE * fetch, TYPE * dest, TYPE cond, TYPE value, int pe) { shmem_##NAME##_atomic_compare_swap_nbi(fetch, dest, cond, value, pe); } \
  inline void shmem_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE cond, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_compare_swap_nbi(ctx, fetch, dest, cond, value, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_COMPARE_SWAP_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_COMPARE_SWAP_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_INC(TYPE, NAME) \
  inline TYPE shmem_atomic_fetch_inc(TYPE * dest, int pe) { return shmem_##NAME##_atomic_fetch_inc(dest, pe); } \
  inline TYPE shmem_atomic_fetch_inc(shmem_ctx_t ctx, TYPE * dest, int pe) { return shmem_ctx_##NAME##_atomic_fetch_inc(ctx, dest, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_INC)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_INC
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_INC_NBI(TYPE, NAME) \
  inline void shmem_atomic_fetch_inc_nbi(TYPE * fetch, TYPE * dest, int pe) { shmem_##NAME##_atomic_fetch_inc_nbi(fetch, dest, pe); } \
  inline void shmem_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, int pe) { shmem_ctx_##NAME##_atomic_fetch_inc_nbi(ctx, fetch, dest, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_INC_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_INC_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_INC(TYPE, NAME) \
  inline void shmem_atomic_inc(TYPE * dest, int pe) { shmem_##NAME##_atomic_inc(dest, pe); } \
  inline void shmem_atomic_inc(shmem_ctx_t ctx, TYPE * dest, int pe) { shmem_ctx_##NAME##_atomic_inc(ctx, dest, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_INC)
#undef SHMEMI_CXX_SHMEM_ATOMIC_INC
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_ADD(TYPE, NAME) \
  inline TYPE shmem_atomic_fetch_add(TYPE * dest, TYPE value, int pe) { return shmem_##NAME##_atomic_fetch_add(dest, value, pe); } \
  inline TYPE shmem_atomic_fetch_add(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { return shmem_ctx_##NAME##_atomic_fetch_add(ctx, dest, value, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_ADD)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_ADD
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_ADD_NBI(TYPE, NAME) \
  inline void shmem_atomic_fetch_add_nbi(TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_fetch_add_nbi(fetch, dest, value, pe); } \
  inline void shmem_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_fetch_add_nbi(ctx, fetch, dest, value, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_ADD_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_ADD_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_ADD(TYPE, NAME) \
  inline void shmem_atomic_add(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_add(dest, value, pe); } \
  inline void shmem_atomic_add(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_add(ctx, dest, value, pe); }
SHMEMI_AMO_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_ADD)
#undef SHMEMI_CXX_SHMEM_ATOMIC_ADD
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_AND(TYPE, NAME) \
  inline TYPE shmem_atomic_fetch_and(TYPE * dest, TYPE value, int pe) { return shmem_##NAME##_atomic_fetch_and(dest, value, pe); } \
  inline TYPE shmem_atomic_fetch_and(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { return shmem_ctx_##NAME##_atomic_fetch_and(ctx, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_AND)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_AND
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_AND_NBI(TYPE, NAME) \
  inline void shmem_atomic_fetch_and_nbi(TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_fetch_and_nbi(fetch, dest, value, pe); } \
  inline void shmem_atomic_fetch_and_nbi(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_fetch_and_nbi(ctx, fetch, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_AND_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_AND_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_AND(TYPE, NAME) \
  inline void shmem_atomic_and(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_and(dest, value, pe); } \
  inline void shmem_atomic_and(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_and(ctx, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_AND)
#undef SHMEMI_CXX_SHMEM_ATOMIC_AND
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_OR(TYPE, NAME) \
  inline TYPE shmem_atomic_fetch_or(TYPE * dest, TYPE value, int pe) { return shmem_##NAME##_atomic_fetch_or(dest, value, pe); } \
  inline TYPE shmem_atomic_fetch_or(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { return shmem_ctx_##NAME##_atomic_fetch_or(ctx, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_OR)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_OR
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_OR_NBI(TYPE, NAME) \
  inline void shmem_atomic_fetch_or_nbi(TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_fetch_or_nbi(fetch, dest, value, pe); } \
  inline void shmem_atomic_fetch_or_nbi(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_fetch_or_nbi(ctx, fetch, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_OR_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_OR_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_OR(TYPE, NAME) \
  inline void shmem_atomic_or(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_or(dest, value, pe); } \
  inline void shmem_atomic_or(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_or(ctx, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_OR)
#undef SHMEMI_CXX_SHMEM_ATOMIC_OR
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_XOR(TYPE, NAME) \
  inline TYPE shmem_atomic_fetch_xor(TYPE * dest, TYPE value, int pe) { return shmem_##NAME##_atomic_fetch_xor(dest, value, pe); } \
  inline TYPE shmem_atomic_fetch_xor(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { return shmem_ctx_##NAME##_atomic_fetch_xor(ctx, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_XOR)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_XOR
#define SHMEMI_CXX_SHMEM_ATOMIC_FETCH_XOR_NBI(TYPE, NAME) \
  inline void shmem_atomic_fetch_xor_nbi(TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_fetch_xor_nbi(fetch, dest, value, pe); } \
  inline void shmem_atomic_fetch_xor_nbi(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_fetch_xor_nbi(ctx, fetch, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_FETCH_XOR_NBI)
#undef SHMEMI_CXX_SHMEM_ATOMIC_FETCH_XOR_NBI
#define SHMEMI_CXX_SHMEM_ATOMIC_XOR(TYPE, NAME) \
  inline void shmem_atomic_xor(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_atomic_xor(dest, value, pe); } \
  inline void shmem_atomic_xor(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe) { shmem_ctx_##NAME##_atomic_xor(ctx, dest, value, pe); }
SHMEMI_AMO_BIT_GENERIC(SHMEMI_CXX_SHMEM_ATOMIC_XOR)
#undef SHMEMI_CXX_SHMEM_ATOMIC_XOR
#define SHMEMI_CXX_SHMEM_WAIT_UNTIL(TYPE, NAME) \
  inline void shmem_wait_until(TYPE * ivar, int cmp, TYPE cmp_value) { shmem_##NAME##_wait_until(ivar, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_WAIT_UNTIL)
#undef SHMEMI_CXX_SHMEM_WAIT_UNTIL
#define SHMEMI_CXX_SHMEM_WAIT_UNTIL_ALL(TYPE, NAME) \
  inline void shmem_wait_until_all(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE cmp_value) { shmem_##NAME##_wait_until_all(ivars, nelems, status, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_WAIT_UNTIL_ALL)
#undef SHMEMI_CXX_SHMEM_WAIT_UNTIL_ALL
#define SHMEMI_CXX_SHMEM_WAIT_UNTIL_ANY(TYPE, NAME) \
  inline size_t shmem_wait_until_any(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE cmp_value) { return shmem_##NAME##_wait_until_any(ivars, nelems, status, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_WAIT_UNTIL_ANY)
#undef SHMEMI_CXX_SHMEM_WAIT_UNTIL_ANY
#define SHMEMI_CXX_SHMEM_WAIT_UNTIL_SOME(TYPE, NAME) \
  inline size_t shmem_wait_until_some(TYPE * ivars, size_t nelems, size_t * indices, const int * status, int cmp, TYPE cmp_value) { return shmem_##NAME##_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_WAIT_UNTIL_SOME)
#undef SHMEMI_CXX_SHMEM_WAIT_UNTIL_SOME
#define SHMEMI_CXX_SHMEM_WAIT_UNTIL_ALL_VECTOR(TYPE, NAME) \
  inline void shmem_wait_until_all_vector(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE * cmp_values) { shmem_##NAME##_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_WAIT_UNTIL_ALL_VECTOR)
#undef SHMEMI_CXX_SHMEM_WAIT_UNTIL_ALL_VECTOR
#define SHMEMI_CXX_SHMEM_WAIT_UNTIL_ANY_VECTOR(TYPE, NAME) \
  inline size_t shmem_wait_until_any_vector(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE * cmp_values) { return shmem_##NAME##_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_WAIT_UNTIL_ANY_VECTOR)
#undef SHMEMI_CXX_SHMEM_WAIT_UNTIL_ANY_VECTOR
#define SHMEMI_CXX_SHMEM_WAIT_UNTIL_SOME_VECTOR(TYPE, NAME) \
  inline size_t shmem_wait_until_some_vector(TYPE * ivars, size_t nelems, size_t * indices, const int * status, int cmp, TYPE * cmp_values) { return shmem_##NAME##_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_WAIT_UNTIL_SOME_VECTOR)
#undef SHMEMI_CXX_SHMEM_WAIT_UNTIL_SOME_VECTOR
#define SHMEMI_CXX_SHMEM_TEST(TYPE, NAME) \
  inline int shmem_test(TYPE * ivar, int cmp, TYPE cmp_value) { return shmem_##NAME##_test(ivar, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_TEST)
#undef SHMEMI_CXX_SHMEM_TEST
#define SHMEMI_CXX_SHMEM_TEST_ALL(TYPE, NAME) \
  inline int shmem_test_all(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE cmp_value) { return shmem_##NAME##_test_all(ivars, nelems, status, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_TEST_ALL)
#undef SHMEMI_CXX_SHMEM_TEST_ALL
#define SHMEMI_CXX_SHMEM_TEST_ANY(TYPE, NAME) \
  inline size_t shmem_test_any(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE cmp_value) { return shmem_##NAME##_test_any(ivars, nelems, status, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_TEST_ANY)
#undef SHMEMI_CXX_SHMEM_TEST_ANY
#define SHMEMI_CXX_SHMEM_TEST_SOME(TYPE, NAME) \
  inline size_t shmem_test_some(TYPE * ivars, size_t nelems, size_t * indices, const int * status, int cmp, TYPE cmp_value) { return shmem_##NAME##_test_some(ivars, nelems, indices, status, cmp, cmp_value); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_TEST_SOME)
#undef SHMEMI_CXX_SHMEM_TEST_SOME
#define SHMEMI_CXX_SHMEM_TEST_ALL_VECTOR(TYPE, NAME) \
  inline int shmem_test_all_vector(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE * cmp_values) { return shmem_##NAME##_test_all_vector(ivars, nelems, status, cmp, cmp_values); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_TEST_ALL_VECTOR)
#undef SHMEMI_CXX_SHMEM_TEST_ALL_VECTOR
#define SHMEMI_CXX_SHMEM_TEST_ANY_VECTOR(TYPE, NAME) \
  inline size_t shmem_test_any_vector(TYPE * ivars, size_t nelems, const int * status, int cmp, TYPE * cmp_values) { return shmem_##NAME##_test_any_vector(ivars, nelems, status, cmp, cmp_values); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_TEST_ANY_VECTOR)
#undef SHMEMI_CXX_SHMEM_TEST_ANY_VECTOR
#define SHMEMI_CXX_SHMEM_TEST_SOME_VECTOR(TYPE, NAME) \
  inline size_t shmem_test_some_vector(TYPE * ivars, size_t nelems, size_t * indices, const int * status, int cmp, TYPE * cmp_values) { return shmem_##NAME##_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values); }
SHMEMI_SYNC_GENERIC(SHMEMI_CXX_SHMEM_TEST_SOME_VECTOR)
#undef SHMEMI_CXX_SHMEM_TEST_SOME_VECTOR

/* Collectives: the team forms, selected by the type of dest. The bitwise
 * reductions take the signed integers under their fixed-width names. */
#define SHMEMI_CXX_SHMEM_BROADCAST(TYPE, NAME) \
  inline int shmem_broadcast(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nelems, int PE_root) { return shmem_##NAME##_broadcast(team, dest, source, nelems, PE_root); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_BROADCAST)
#undef SHMEMI_CXX_SHMEM_BROADCAST
#define SHMEMI_CXX_SHMEM_COLLECT(TYPE, NAME) \
  inline int shmem_collect(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nelems) { return shmem_##NAME##_collect(team, dest, source, nelems); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_COLLECT)
#undef SHMEMI_CXX_SHMEM_COLLECT
#define SHMEMI_CXX_SHMEM_FCOLLECT(TYPE, NAME) \
  inline int shmem_fcollect(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nelems) { return shmem_##NAME##_fcollect(team, dest, source, nelems); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_FCOLLECT)
#undef SHMEMI_CXX_SHMEM_FCOLLECT
#define SHMEMI_CXX_SHMEM_ALLTOALL(TYPE, NAME) \
  inline int shmem_alltoall(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nelems) { return shmem_##NAME##_alltoall(team, dest, source, nelems); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_ALLTOALL)
#undef SHMEMI_CXX_SHMEM_ALLTOALL
#define SHMEMI_CXX_SHMEM_ALLTOALLS(TYPE, NAME) \
  inline int shmem_alltoalls(shmem_team_t team, TYPE * dest, const TYPE * source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems) { return shmem_##NAME##_alltoalls(team, dest, source, dst, sst, nelems); }
SHMEMI_RMA_GENERIC(SHMEMI_CXX_SHMEM_ALLTOALLS)
#undef SHMEMI_CXX_SHMEM_ALLTOALLS
#define SHMEMI_CXX_SHMEM_AND_REDUCE(TYPE, NAME) \
  inline int shmem_and_reduce(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nreduce) { return shmem_##NAME##_and_reduce(team, dest, source, nreduce); }
SHMEMI_REDUCE_BITWISE_GENERIC(SHMEMI_CXX_SHMEM_AND_REDUCE)
#undef SHMEMI_CXX_SHMEM_AND_REDUCE
#define SHMEMI_CXX_SHMEM_OR_REDUCE(TYPE, NAME) \
  inline int shmem_or_reduce(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nreduce) { return shmem_##NAME##_or_reduce(team, dest, source, nreduce); }
SHMEMI_REDUCE_BITWISE_GENERIC(SHMEMI_CXX_SHMEM_OR_REDUCE)
#undef SHMEMI_CXX_SHMEM_OR_REDUCE
#define SHMEMI_CXX_SHMEM_XOR_REDUCE(TYPE, NAME) \
  inline int shmem_xor_reduce(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nreduce) { return shmem_##NAME##_xor_reduce(team, dest, source, nreduce); }
SHMEMI_REDUCE_BITWISE_GENERIC(SHMEMI_CXX_SHMEM_XOR_REDUCE)
#undef SHMEMI_CXX_SHMEM_XOR_REDUCE
#define SHMEMI_CXX_SHMEM_MAX_REDUCE(TYPE, NAME) \
  inline int shmem_max_reduce(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nreduce) { return shmem_##NAME##_max_reduce(team, dest, source, nreduce); }
SHMEMI_REDUCE_MINMAX_GENERIC(SHMEMI_CXX_SHMEM_MAX_REDUCE)
#undef SHMEMI_CXX_SHMEM_MAX_REDUCE
#define SHMEMI_CXX_SHMEM_MIN_REDUCE(TYPE, NAME) \
  inline int shmem_min_reduce(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nreduce) { return shmem_##NAME##_min_reduce(team, dest, source, nreduce); }
SHMEMI_REDUCE_MINMAX_GENERIC(SHMEMI_CXX_SHMEM_MIN_REDUCE)
#undef SHMEMI_CXX_SHMEM_MIN_REDUCE
#define SHMEMI_CXX_SHMEM_SUM_REDUCE(TYPE, NAME) \
  inline int shmem_sum_reduce(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nreduce) { return shmem_##NAME##_sum_reduce(team, dest, source, nreduce); }
SHMEMI_REDUCE_ARITH_GENERIC(SHMEMI_CXX_SHMEM_SUM_REDUCE)
#undef SHMEMI_CXX_SHMEM_SUM_REDUCE
#define SHMEMI_CXX_SHMEM_PROD_REDUCE(TYPE, NAME) \
  inline int shmem_prod_reduce(shmem_team_t team, TYPE * dest, const TYPE * source, size_t nreduce) { return shmem_##NAME##_prod_reduce(team, dest, source, nreduce); }
SHMEMI_REDUCE_ARITH_GENERIC(SHMEMI_CXX_SHMEM_PROD_REDUCE)
#undef SHMEMI_CXX_SHMEM_PROD_REDUCE

/* shmem_sync(team), beside the deprecated active-set shmem_sync(PE_start, logPE_stride, PE_size, pSync). */
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }

/* Deprecated generic AMO names the specification still lists: no ctx forms,
 * and only the types of its deprecated synopses. */
#define SHMEMI_CXX_SHMEM_OLD_AMO(TYPE, NAME) \
  inline TYPE shmem_cswap(TYPE * dest, TYPE cond, TYPE value, int pe) { return shmem_##NAME##_cswap(dest, cond, value, pe); } \
  inline TYPE shmem_finc(TYPE * dest, int pe) { return shmem_##NAME##_finc(dest, pe); } \
  inline void shmem_inc(TYPE * dest, int pe) { shmem_##NAME##_inc(dest, pe); } \
  inline TYPE shmem_fadd(TYPE * dest, TYPE value, int pe) { return shmem_##NAME##_fadd(dest, value, pe); } \
  inline void shmem_add(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_add(dest, value, pe); }
SHMEMI_OLD_AMO_TYPES(SHMEMI_CXX_SHMEM_OLD_AMO)
#undef SHMEMI_CXX_SHMEM_OLD_AMO
#define SHMEMI_CXX_SHMEM_OLD_AMO_EXT(TYPE, NAME) \
  inline TYPE shmem_fetch(const TYPE * source, int pe) { return shmem_##NAME##_fetch(source, pe); } \
  inline void shmem_set(TYPE * dest, TYPE value, int pe) { shmem_##NAME##_set(dest, value, pe); } \
  inline TYPE shmem_swap(TYPE * dest, TYPE value, int pe) { return shmem_##NAME##_swap(dest, value, pe); }
SHMEMI_OLD_AMO_EXT_TYPES(SHMEMI_CXX_SHMEM_OLD_AMO_EXT)
#undef SHMEMI_CXX_SHMEM_OLD_AMO_EXT

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* Selected when an argument's type is in none of the specification's tables. */
void shmemi_generic_unsupported_type(void);

/* Picks the ctx form when the call has one argument more than the plain form. */
#define SHMEMI_ARGS2(_1, _2, NAME, ...) NAME
#define SHMEMI_ARGS3(_1, _2, _3, NAME, ...) NAME
#define SHMEMI_ARGS4(_1, _2, _3, _4, NAME, ...) NAME
#define SHMEMI_ARGS5(_1, _2, _3, _4, _5, NAME, ...) NAME
#define SHMEMI_ARGS6(_1, _2, _3, _4, _5, _6, NAME, ...) NAME
#define SHMEMI_ARGS7(_1, _2, _3, _4, _5, _6, _7, NAME, ...) NAME
#define SHMEMI_ARGS8(_1, _2, _3, _4, _5, _6, _7, _8, NAME, ...) NAME

#define SHMEMI_C11_SHMEM_PUT_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_put,
#define SHMEMI_C11_CTX_SHMEM_PUT_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_put,
#define shmemi_c11_put(dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_PUT_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, nelems, pe)
#define shmemi_c11_ctx_put(ctx, dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_PUT_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, nelems, pe)
#define shmem_put(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_put, shmemi_c11_put, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_GET_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_get,
#define SHMEMI_C11_CTX_SHMEM_GET_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_get,
#define shmemi_c11_get(dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_GET_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, nelems, pe)
#define shmemi_c11_ctx_get(ctx, dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_GET_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, nelems, pe)
#define shmem_get(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_get, shmemi_c11_get, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_PUT_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_put_nbi,
#define SHMEMI_C11_CTX_SHMEM_PUT_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_put_nbi,
#define shmemi_c11_put_nbi(dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_PUT_NBI_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, nelems, pe)
#define shmemi_c11_ctx_put_nbi(ctx, dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_PUT_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, nelems, pe)
#define shmem_put_nbi(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_put_nbi, shmemi_c11_put_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_GET_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_get_nbi,
#define SHMEMI_C11_CTX_SHMEM_GET_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_get_nbi,
#define shmemi_c11_get_nbi(dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_GET_NBI_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, nelems, pe)
#define shmemi_c11_ctx_get_nbi(ctx, dest, source, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_GET_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, nelems, pe)
#define shmem_get_nbi(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_get_nbi, shmemi_c11_get_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_P_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_p,
#define SHMEMI_C11_CTX_SHMEM_P_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_p,
#define shmemi_c11_p(dest, value, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_P_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_p(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_P_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_p(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_p, shmemi_c11_p, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_G_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_g,
#define SHMEMI_C11_CTX_SHMEM_G_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_g,
#define shmemi_c11_g(source, pe) \
  _Generic(*(source), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_G_ASSOC) default: shmemi_generic_unsupported_type)(source, pe)
#define shmemi_c11_ctx_g(ctx, source, pe) \
  _Generic(*(source), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_G_ASSOC) default: shmemi_generic_unsupported_type)(ctx, source, pe)
#define shmem_g(...) SHMEMI_ARGS3(__VA_ARGS__, shmemi_c11_ctx_g, shmemi_c11_g, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_IPUT_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_iput,
#define SHMEMI_C11_CTX_SHMEM_IPUT_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_iput,
#define shmemi_c11_iput(dest, source, dst, sst, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_IPUT_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, dst, sst, nelems, pe)
#define shmemi_c11_ctx_iput(ctx, dest, source, dst, sst, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_IPUT_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, dst, sst, nelems, pe)
#define shmem_iput(...) SHMEMI_ARGS7(__VA_ARGS__, shmemi_c11_ctx_iput, shmemi_c11_iput, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_IGET_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_iget,
#define SHMEMI_C11_CTX_SHMEM_IGET_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_iget,
#define shmemi_c11_iget(dest, source, dst, sst, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_IGET_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, dst, sst, nelems, pe)
#define shmemi_c11_ctx_iget(ctx, dest, source, dst, sst, nelems, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_IGET_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, dst, sst, nelems, pe)
#define shmem_iget(...) SHMEMI_ARGS7(__VA_ARGS__, shmemi_c11_ctx_iget, shmemi_c11_iget, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_PUT_SIGNAL_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_put_signal,
#define SHMEMI_C11_CTX_SHMEM_PUT_SIGNAL_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_put_signal,
#define shmemi_c11_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_PUT_SIGNAL_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmemi_c11_ctx_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_PUT_SIGNAL_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_put_signal(...) SHMEMI_ARGS8(__VA_ARGS__, shmemi_c11_ctx_put_signal, shmemi_c11_put_signal, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_PUT_SIGNAL_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_put_signal_nbi,
#define SHMEMI_C11_CTX_SHMEM_PUT_SIGNAL_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_put_signal_nbi,
#define shmemi_c11_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_PUT_SIGNAL_NBI_ASSOC) default: shmemi_generic_unsupported_type)(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmemi_c11_ctx_put_signal_nbi(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_CTX_SHMEM_PUT_SIGNAL_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_put_signal_nbi(...) SHMEMI_ARGS8(__VA_ARGS__, shmemi_c11_ctx_put_signal_nbi, shmemi_c11_put_signal_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch,
#define shmemi_c11_atomic_fetch(source, pe) \
  _Generic(*(source), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_ASSOC) default: shmemi_generic_unsupported_type)(source, pe)
#define shmemi_c11_ctx_atomic_fetch(ctx, source, pe) \
  _Generic(*(source), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_ASSOC) default: shmemi_generic_unsupported_type)(ctx, source, pe)
#define shmem_atomic_fetch(...) SHMEMI_ARGS3(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch, shmemi_c11_atomic_fetch, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_nbi,
#define shmemi_c11_atomic_fetch_nbi(fetch, source, pe) \
  _Generic(*(fetch), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, source, pe)
#define shmemi_c11_ctx_atomic_fetch_nbi(ctx, fetch, source, pe) \
  _Generic(*(fetch), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, source, pe)
#define shmem_atomic_fetch_nbi(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_nbi, shmemi_c11_atomic_fetch_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_SET_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_set,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_SET_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_set,
#define shmemi_c11_atomic_set(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_SET_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_set(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_SET_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_set(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_set, shmemi_c11_atomic_set, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_SWAP_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_swap,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_SWAP_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_swap,
#define shmemi_c11_atomic_swap(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_SWAP_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_swap(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_SWAP_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_swap(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_swap, shmemi_c11_atomic_swap, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_SWAP_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_swap_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_SWAP_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_swap_nbi,
#define shmemi_c11_atomic_swap_nbi(fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_SWAP_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, dest, value, pe)
#define shmemi_c11_ctx_atomic_swap_nbi(ctx, fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_EXT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_SWAP_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, dest, value, pe)
#define shmem_atomic_swap_nbi(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_atomic_swap_nbi, shmemi_c11_atomic_swap_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_COMPARE_SWAP_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_compare_swap,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_COMPARE_SWAP_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_compare_swap,
#define shmemi_c11_atomic_compare_swap(dest, cond, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_COMPARE_SWAP_ASSOC) default: shmemi_generic_unsupported_type)(dest, cond, value, pe)
#define shmemi_c11_ctx_atomic_compare_swap(ctx, dest, cond, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_COMPARE_SWAP_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, cond, value, pe)
#define shmem_atomic_compare_swap(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_atomic_compare_swap, shmemi_c11_atomic_compare_swap, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_COMPARE_SWAP_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_compare_swap_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_COMPARE_SWAP_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_compare_swap_nbi,
#define shmemi_c11_atomic_compare_swap_nbi(fetch, dest, cond, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_COMPARE_SWAP_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, dest, cond, value, pe)
#define shmemi_c11_ctx_atomic_compare_swap_nbi(ctx, fetch, dest, cond, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_COMPARE_SWAP_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, dest, cond, value, pe)
#define shmem_atomic_compare_swap_nbi(...) SHMEMI_ARGS6(__VA_ARGS__, shmemi_c11_ctx_atomic_compare_swap_nbi, shmemi_c11_atomic_compare_swap_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_INC_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_inc,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_INC_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_inc,
#define shmemi_c11_atomic_fetch_inc(dest, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_INC_ASSOC) default: shmemi_generic_unsupported_type)(dest, pe)
#define shmemi_c11_ctx_atomic_fetch_inc(ctx, dest, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_INC_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, pe)
#define shmem_atomic_fetch_inc(...) SHMEMI_ARGS3(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_inc, shmemi_c11_atomic_fetch_inc, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_INC_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_inc_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_INC_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_inc_nbi,
#define shmemi_c11_atomic_fetch_inc_nbi(fetch, dest, pe) \
  _Generic(*(fetch), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_INC_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, dest, pe)
#define shmemi_c11_ctx_atomic_fetch_inc_nbi(ctx, fetch, dest, pe) \
  _Generic(*(fetch), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_INC_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, dest, pe)
#define shmem_atomic_fetch_inc_nbi(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_inc_nbi, shmemi_c11_atomic_fetch_inc_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_INC_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_inc,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_INC_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_inc,
#define shmemi_c11_atomic_inc(dest, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_INC_ASSOC) default: shmemi_generic_unsupported_type)(dest, pe)
#define shmemi_c11_ctx_atomic_inc(ctx, dest, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_INC_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, pe)
#define shmem_atomic_inc(...) SHMEMI_ARGS3(__VA_ARGS__, shmemi_c11_ctx_atomic_inc, shmemi_c11_atomic_inc, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_ADD_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_add,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_ADD_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_add,
#define shmemi_c11_atomic_fetch_add(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_ADD_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_add(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_ADD_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_fetch_add(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_add, shmemi_c11_atomic_fetch_add, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_ADD_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_add_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_ADD_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_add_nbi,
#define shmemi_c11_atomic_fetch_add_nbi(fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_ADD_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_add_nbi(ctx, fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_ADD_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_add_nbi(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_add_nbi, shmemi_c11_atomic_fetch_add_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_ADD_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_add,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_ADD_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_add,
#define shmemi_c11_atomic_add(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_ADD_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_add(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_ADD_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_add(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_add, shmemi_c11_atomic_add, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_AND_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_and,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_AND_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_and,
#define shmemi_c11_atomic_fetch_and(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_AND_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_and(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_AND_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_fetch_and(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_and, shmemi_c11_atomic_fetch_and, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_AND_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_and_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_AND_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_and_nbi,
#define shmemi_c11_atomic_fetch_and_nbi(fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_AND_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_and_nbi(ctx, fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_AND_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_and_nbi(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_and_nbi, shmemi_c11_atomic_fetch_and_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_AND_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_and,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_AND_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_and,
#define shmemi_c11_atomic_and(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_AND_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_and(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_AND_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_and(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_and, shmemi_c11_atomic_and, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_OR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_or,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_OR_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_or,
#define shmemi_c11_atomic_fetch_or(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_OR_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_or(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_OR_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_fetch_or(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_or, shmemi_c11_atomic_fetch_or, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_OR_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_or_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_OR_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_or_nbi,
#define shmemi_c11_atomic_fetch_or_nbi(fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_OR_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_or_nbi(ctx, fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_OR_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_or_nbi(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_or_nbi, shmemi_c11_atomic_fetch_or_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_OR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_or,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_OR_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_or,
#define shmemi_c11_atomic_or(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_OR_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_or(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_OR_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_or(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_or, shmemi_c11_atomic_or, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_XOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_xor,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_XOR_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_xor,
#define shmemi_c11_atomic_fetch_xor(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_XOR_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_xor(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_XOR_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_fetch_xor(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_xor, shmemi_c11_atomic_fetch_xor, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_FETCH_XOR_NBI_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_fetch_xor_nbi,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_XOR_NBI_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_fetch_xor_nbi,
#define shmemi_c11_atomic_fetch_xor_nbi(fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_FETCH_XOR_NBI_ASSOC) default: shmemi_generic_unsupported_type)(fetch, dest, value, pe)
#define shmemi_c11_ctx_atomic_fetch_xor_nbi(ctx, fetch, dest, value, pe) \
  _Generic(*(fetch), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_FETCH_XOR_NBI_ASSOC) default: shmemi_generic_unsupported_type)(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_xor_nbi(...) SHMEMI_ARGS5(__VA_ARGS__, shmemi_c11_ctx_atomic_fetch_xor_nbi, shmemi_c11_atomic_fetch_xor_nbi, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_ATOMIC_XOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_atomic_xor,
#define SHMEMI_C11_CTX_SHMEM_ATOMIC_XOR_ASSOC(TYPE, NAME) TYPE: shmem_ctx_##NAME##_atomic_xor,
#define shmemi_c11_atomic_xor(dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_SHMEM_ATOMIC_XOR_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define shmemi_c11_ctx_atomic_xor(ctx, dest, value, pe) \
  _Generic(*(dest), SHMEMI_AMO_BIT_GENERIC(SHMEMI_C11_CTX_SHMEM_ATOMIC_XOR_ASSOC) default: shmemi_generic_unsupported_type)(ctx, dest, value, pe)
#define shmem_atomic_xor(...) SHMEMI_ARGS4(__VA_ARGS__, shmemi_c11_ctx_atomic_xor, shmemi_c11_atomic_xor, _)(__VA_ARGS__)
#define SHMEMI_C11_SHMEM_WAIT_UNTIL_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_wait_until,
#define shmem_wait_until(ivar, cmp, cmp_value) \
  _Generic(*(ivar), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_WAIT_UNTIL_ASSOC) default: shmemi_generic_unsupported_type)(ivar, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_WAIT_UNTIL_ALL_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_wait_until_all,
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_WAIT_UNTIL_ALL_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_WAIT_UNTIL_ANY_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_wait_until_any,
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_WAIT_UNTIL_ANY_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_WAIT_UNTIL_SOME_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_wait_until_some,
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_WAIT_UNTIL_SOME_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, indices, status, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_WAIT_UNTIL_ALL_VECTOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_wait_until_all_vector,
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_WAIT_UNTIL_ALL_VECTOR_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_values)
#define SHMEMI_C11_SHMEM_WAIT_UNTIL_ANY_VECTOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_wait_until_any_vector,
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_WAIT_UNTIL_ANY_VECTOR_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_values)
#define SHMEMI_C11_SHMEM_WAIT_UNTIL_SOME_VECTOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_wait_until_some_vector,
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_WAIT_UNTIL_SOME_VECTOR_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, indices, status, cmp, cmp_values)
#define SHMEMI_C11_SHMEM_TEST_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_test,
#define shmem_test(ivar, cmp, cmp_value) \
  _Generic(*(ivar), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_TEST_ASSOC) default: shmemi_generic_unsupported_type)(ivar, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_TEST_ALL_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_test_all,
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_TEST_ALL_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_TEST_ANY_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_test_any,
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_TEST_ANY_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_TEST_SOME_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_test_some,
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_TEST_SOME_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, indices, status, cmp, cmp_value)
#define SHMEMI_C11_SHMEM_TEST_ALL_VECTOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_test_all_vector,
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_TEST_ALL_VECTOR_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_values)
#define SHMEMI_C11_SHMEM_TEST_ANY_VECTOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_test_any_vector,
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_TEST_ANY_VECTOR_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, status, cmp, cmp_values)
#define SHMEMI_C11_SHMEM_TEST_SOME_VECTOR_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_test_some_vector,
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values) \
  _Generic(*(ivars), SHMEMI_SYNC_GENERIC(SHMEMI_C11_SHMEM_TEST_SOME_VECTOR_ASSOC) default: shmemi_generic_unsupported_type)(ivars, nelems, indices, status, cmp, cmp_values)


/* Collectives: the team forms, selected by the type of dest. The bitwise
 * reductions take the signed integers under their fixed-width names. */
#define SHMEMI_C11_SHMEM_BROADCAST_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_broadcast,
#define shmem_broadcast(team, dest, source, nelems, PE_root) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_BROADCAST_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nelems, PE_root)
#define SHMEMI_C11_SHMEM_COLLECT_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_collect,
#define shmem_collect(team, dest, source, nelems) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_COLLECT_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nelems)
#define SHMEMI_C11_SHMEM_FCOLLECT_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_fcollect,
#define shmem_fcollect(team, dest, source, nelems) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_FCOLLECT_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nelems)
#define SHMEMI_C11_SHMEM_ALLTOALL_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_alltoall,
#define shmem_alltoall(team, dest, source, nelems) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_ALLTOALL_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nelems)
#define SHMEMI_C11_SHMEM_ALLTOALLS_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_alltoalls,
#define shmem_alltoalls(team, dest, source, dst, sst, nelems) \
  _Generic(*(dest), SHMEMI_RMA_GENERIC(SHMEMI_C11_SHMEM_ALLTOALLS_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, dst, sst, nelems)
#define SHMEMI_C11_SHMEM_AND_REDUCE_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_and_reduce,
#define shmem_and_reduce(team, dest, source, nreduce) \
  _Generic(*(dest), SHMEMI_REDUCE_BITWISE_GENERIC(SHMEMI_C11_SHMEM_AND_REDUCE_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nreduce)
#define SHMEMI_C11_SHMEM_OR_REDUCE_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_or_reduce,
#define shmem_or_reduce(team, dest, source, nreduce) \
  _Generic(*(dest), SHMEMI_REDUCE_BITWISE_GENERIC(SHMEMI_C11_SHMEM_OR_REDUCE_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nreduce)
#define SHMEMI_C11_SHMEM_XOR_REDUCE_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_xor_reduce,
#define shmem_xor_reduce(team, dest, source, nreduce) \
  _Generic(*(dest), SHMEMI_REDUCE_BITWISE_GENERIC(SHMEMI_C11_SHMEM_XOR_REDUCE_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nreduce)
#define SHMEMI_C11_SHMEM_MAX_REDUCE_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_max_reduce,
#define shmem_max_reduce(team, dest, source, nreduce) \
  _Generic(*(dest), SHMEMI_REDUCE_MINMAX_GENERIC(SHMEMI_C11_SHMEM_MAX_REDUCE_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nreduce)
#define SHMEMI_C11_SHMEM_MIN_REDUCE_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_min_reduce,
#define shmem_min_reduce(team, dest, source, nreduce) \
  _Generic(*(dest), SHMEMI_REDUCE_MINMAX_GENERIC(SHMEMI_C11_SHMEM_MIN_REDUCE_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nreduce)
#define SHMEMI_C11_SHMEM_SUM_REDUCE_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_sum_reduce,
#define shmem_sum_reduce(team, dest, source, nreduce) \
  _Generic(*(dest), SHMEMI_REDUCE_ARITH_GENERIC(SHMEMI_C11_SHMEM_SUM_REDUCE_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nreduce)
#define SHMEMI_C11_SHMEM_PROD_REDUCE_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_prod_reduce,
#define shmem_prod_reduce(team, dest, source, nreduce) \
  _Generic(*(dest), SHMEMI_REDUCE_ARITH_GENERIC(SHMEMI_C11_SHMEM_PROD_REDUCE_ASSOC) default: shmemi_generic_unsupported_type)(team, dest, source, nreduce)

/* shmem_sync(team) is shmem_team_sync; with four arguments it stays the
 * deprecated active-set function (a macro's own name is not expanded again). */
#define shmem_sync(...) SHMEMI_ARGS4(__VA_ARGS__, shmem_sync, _, _, shmem_team_sync, _)(__VA_ARGS__)

/* Deprecated generic AMO names the specification still lists: no ctx forms,
 * and only the types of its deprecated synopses. */
#define SHMEMI_C11_SHMEM_CSWAP_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_cswap,
#define shmem_cswap(dest, cond, value, pe) \
  _Generic(*(dest), SHMEMI_OLD_AMO_TYPES(SHMEMI_C11_SHMEM_CSWAP_ASSOC) default: shmemi_generic_unsupported_type)(dest, cond, value, pe)
#define SHMEMI_C11_SHMEM_FINC_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_finc,
#define shmem_finc(dest, pe) \
  _Generic(*(dest), SHMEMI_OLD_AMO_TYPES(SHMEMI_C11_SHMEM_FINC_ASSOC) default: shmemi_generic_unsupported_type)(dest, pe)
#define SHMEMI_C11_SHMEM_INC_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_inc,
#define shmem_inc(dest, pe) \
  _Generic(*(dest), SHMEMI_OLD_AMO_TYPES(SHMEMI_C11_SHMEM_INC_ASSOC) default: shmemi_generic_unsupported_type)(dest, pe)
#define SHMEMI_C11_SHMEM_FADD_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_fadd,
#define shmem_fadd(dest, value, pe) \
  _Generic(*(dest), SHMEMI_OLD_AMO_TYPES(SHMEMI_C11_SHMEM_FADD_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define SHMEMI_C11_SHMEM_ADD_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_add,
#define shmem_add(dest, value, pe) \
  _Generic(*(dest), SHMEMI_OLD_AMO_TYPES(SHMEMI_C11_SHMEM_ADD_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define SHMEMI_C11_SHMEM_FETCH_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_fetch,
#define shmem_fetch(source, pe) \
  _Generic(*(source), SHMEMI_OLD_AMO_EXT_TYPES(SHMEMI_C11_SHMEM_FETCH_ASSOC) default: shmemi_generic_unsupported_type)(source, pe)
#define SHMEMI_C11_SHMEM_SET_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_set,
#define shmem_set(dest, value, pe) \
  _Generic(*(dest), SHMEMI_OLD_AMO_EXT_TYPES(SHMEMI_C11_SHMEM_SET_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)
#define SHMEMI_C11_SHMEM_SWAP_ASSOC(TYPE, NAME) TYPE: shmem_##NAME##_swap,
#define shmem_swap(dest, value, pe) \
  _Generic(*(dest), SHMEMI_OLD_AMO_EXT_TYPES(SHMEMI_C11_SHMEM_SWAP_ASSOC) default: shmemi_generic_unsupported_type)(dest, value, pe)

#endif /* C11 */
#endif /* TILECOMM_SHMEM_GENERIC_H */
