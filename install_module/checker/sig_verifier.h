/*
 * The OpenPGP verifiers beside the archive check: sqv, which decides
 * whether the signature is good, and gpgv, which may only veto a key that
 * is no longer valid now. Both are started by postern-check before it
 * enters its own sandbox, confined on their own (sig_confine.h), and read
 * the signed bytes from pipes the archive check tees into. Nothing here
 * parses OpenPGP; sig_verdict.h and sig_now.h read their answers.
 */
#ifndef POSTERN_SIG_VERIFIER_H
#define POSTERN_SIG_VERIFIER_H

#include <sys/types.h>

#include "sandbox.h"
#include "check_wire.h"
#include "errmsg.h"
#include "sig_verdict.h"

/* The largest keyring handed to the verifiers; larger is the admin's problem. */
#define SIG_KEYRING_MAX (4 * 1024 * 1024)

/* The pipes of one verifier, as seen by the checker. */
struct sig_pipes {
	pid_t pid;
	int data_fd;    /* write end of its stdin: the signed bytes */
	int out_fd;     /* read end of its stdout (sqv: fingerprints; gpgv: status lines) */
	int err_fd;     /* read end of its stderr; -1 for gpgv, whose stderr is /dev/null */
};

struct sig_verifier {
	struct sig_pipes sqv;
	struct sig_pipes now;   /* gpgv */
};

/*
 * Outside the sandbox: copy the signature (at most CHECK_SIGNATURE_MAX
 * bytes) and the keyring (at most SIG_KEYRING_MAX) from offset 0 of the
 * passed fds into sealed memfds, and start both verifiers on them, confined
 * under c's memory and time limits. The passed fds are left to the caller.
 * Returns 0 with *v filled, -EFBIG (an oversized signature, e says so: a
 * refusal), -EMSGSIZE or -EBADMSG (an oversized or unreadable keyring, e
 * says whose problem that is: a refusal), or another -errno (internal).
 */
int sig_verifier_start(int sig_fd, int keyring_fd, const struct sandbox_limits *c,
		       unsigned max_age, struct sig_verifier *v, struct pst_err *e);

/*
 * Inside the sandbox, once the archive check is done (whatever its
 * outcome): end the signed bytes, collect both verifiers' output, reap
 * them and read their answers into r: sqv's, and on its pass gpgv's veto.
 * Uses only the fds from CHECK_TEE_FD to CHECK_NOW_OUT_FD (the caller
 * moved them there) and the pids.
 */
void sig_verifier_finish(const struct sig_verifier *v, enum check_signature_kind kind,
			 struct sig_result *r);

#endif
