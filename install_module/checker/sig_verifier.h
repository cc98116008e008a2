/*
 * The OpenPGP verifier beside the archive check: sqv, started by
 * postern-check before it enters its own sandbox, confined on its own,
 * reading the signed bytes from a pipe the archive check tees into.
 * Nothing here parses OpenPGP; sig_verdict.h reads sqv's answer.
 */
#ifndef POSTERN_SIG_VERIFIER_H
#define POSTERN_SIG_VERIFIER_H

#include <sys/types.h>

#include "sandbox.h"
#include "check_wire.h"
#include "errmsg.h"
#include "sig_verdict.h"

/* The largest keyring handed to the verifier; larger is the admin's problem. */
#define SIG_KEYRING_MAX (4 * 1024 * 1024)

struct sig_verifier {
	pid_t pid;
	int data_fd;    /* write end of the verifier's stdin: the signed bytes */
	int out_fd;     /* read ends of its stdout and stderr */
	int err_fd;
};

/*
 * Outside the sandbox: copy the signature (at most CHECK_SIGNATURE_MAX
 * bytes) and the keyring (at most SIG_KEYRING_MAX) from offset 0 of the
 * passed fds into sealed memfds, and start the verifier on them, confined
 * under c's memory and time limits. The passed fds are left to the caller.
 * Returns 0 with *v filled, -EFBIG (an oversized signature, e says so: a
 * refusal), -EMSGSIZE (an oversized keyring, e says whose problem that
 * is), or another -errno (internal).
 */
int sig_verifier_start(int sig_fd, int keyring_fd, const struct sandbox_limits *c,
		       unsigned max_age, struct sig_verifier *v, struct pst_err *e);

/*
 * Inside the sandbox, once the archive check is done (whatever its
 * outcome): end the signed bytes, collect the verifier's output, reap it
 * and read its answer into r. Uses only CHECK_TEE_FD, CHECK_VOUT_FD and
 * CHECK_VERR_FD (the caller moved the fds there) and v->pid.
 */
void sig_verifier_finish(const struct sig_verifier *v, enum check_signature_kind kind,
			 struct sig_result *r);

#endif
