/*
 * The confinement of a process that decodes hostile bytes (postern-check
 * with an upload, postern-policy's DOAP parser with a DOAP file), entered
 * once, before the first byte is decoded, and never left: resource limits,
 * no new privileges, Landlock denying every filesystem access, and a seccomp
 * allow-list: read the input fd, write the answer fd, allocate, exit.
 */
#ifndef POSTERN_SANDBOX_H
#define POSTERN_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "errmsg.h"

/* The only fds left open: where the answer goes (the checker's verdict
 * socket) and the input (the upload, read-only). */
#define SANDBOX_OUT_FD 0
#define SANDBOX_IN_FD 1
/* ... and with the signature verifiers beside the check (sig_verifier.h): the
 * pipe of the signed bytes to sqv, its stdout and its stderr, then the pipe
 * of the same bytes to gpgv and its stdout. fd 2 is closed. */
#define CHECK_TEE_FD 3
#define CHECK_VOUT_FD 4
#define CHECK_VERR_FD 5
#define CHECK_NOW_TEE_FD 6
#define CHECK_NOW_OUT_FD 7

/* The highest fd number + 1 a confined process may hold: its two fds and nothing more. */
#define SANDBOX_NOFILE 2
#define SANDBOX_NOFILE_VERIFIER (CHECK_NOW_OUT_FD + 1)

struct sandbox_limits {
	uint64_t memory;        /* RLIMIT_AS, bytes */
	unsigned cpu_seconds;   /* RLIMIT_CPU */
	/* verifiers run beside: keep their fds, allow writing the signed bytes
	 * to them, reading their output, closing the tees and reaping them */
	bool verifier;
};

/*
 * The resource limits of a confined process, soft and hard alike: c's
 * memory and CPU time, nofile descriptors, and no file writes, children or
 * core dumps. The checker and the verifier it starts both take them from
 * here. Returns 0 or -errno with e filled.
 */
int sandbox_rlimits_set(const struct sandbox_limits *c, rlim_t nofile, struct pst_err *e);

/* The kernel's Landlock ABI version, 0 when it has none (or it is disabled). */
int sandbox_landlock_abi(void);

/* Every filesystem right the running kernel's Landlock ABI knows: a
 * ruleset handling them all leaves none open by omission. */
uint64_t sandbox_landlock_all_fs(int abi);

/*
 * Close every fd above SANDBOX_IN_FD (but the verifier's when c->verifier), set the limits, PR_SET_NO_NEW_PRIVS,
 * Landlock (when the kernel has it; *landlock_abi is 0 when not) and the
 * seccomp filter. Returns 0, or -errno with e filled: the caller must then
 * not decode anything.
 */
int sandbox_enter(const struct sandbox_limits *c, int *landlock_abi, struct pst_err *e);

#endif
