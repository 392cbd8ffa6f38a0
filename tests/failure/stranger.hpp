/* A stranger on a job's rendezvous socket: a process that is not a PE of the
 * job connects to the rendezvous server and misbehaves. The server must drop
 * the connection and the job must go on. Used by the helper PE programs of
 * the failure tests (C and C++). */
#ifndef TC_FAILURE_STRANGER_HPP
#define TC_FAILURE_STRANGER_HPP

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Connects to the rendezvous named by `uid_text` (the text of a unique ID or
 * of TILECOMM_UNIQUEID: "tcp://IPv4:port/32-hex-digit cookie") and, by mode:
 *   "wrong-cookie"  sends a well-formed Hello whose cookie differs from the job's
 *   "garbage"       sends bytes that are not the protocol (an HTTP request line)
 *   "not-hello"     sends a well-formed message that is not a Hello
 *   "close"         closes the connection without sending anything
 *   "wrong-size"    holds the cookie: a Hello as PE 0 of a job of 1000 PEs
 * then waits (at most 30 s) for the server to close the connection.
 * Returns 0 when the server dropped the connection (always for "close"),
 * 1 otherwise; `why` receives a one-line explanation. */
int tc_stranger(const char *uid_text, const char *mode, char *why, size_t why_len);

/* Returns a copy of `uid_text` whose cookie has its first hex digit changed,
 * in `out` (out_len bytes); 0 on success. */
int tc_tamper_cookie(const char *uid_text, char *out, size_t out_len);

#ifdef __cplusplus
}
#endif

#endif
