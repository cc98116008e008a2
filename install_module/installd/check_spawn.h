/*
 * Having one upload checked by postern-check, the confined checker. The
 * daemon connects to the checker socket (postern-check.socket: systemd
 * starts one checker per connection, as the postern-check user), sends
 * one request with a read-only fd of its staging copy, and reads one
 * verdict. The daemon never changes uid and never runs the checker itself.
 */
#ifndef POSTERN_CHECK_SPAWN_H
#define POSTERN_CHECK_SPAWN_H

#include <stdint.h>

#include "check_wire.h"
#include "errmsg.h"
#include "policy.h"
#include "release_name.h"

/* Time the checker gets beyond limits.time_limit before its silence is a refusal. */
#define CHECK_SPAWN_MARGIN_SEC 30

/* A detached signature to verify with the upload, from the daemon's own copies. */
struct check_signature {
	enum check_signature_kind kind;  /* CHECK_SIG_NONE: unsigned, the fds are unused */
	int sig_fd;                      /* read-only, offset 0, <= CHECK_SIGNATURE_MAX bytes */
	int keyring_fd;                  /* read-only, the uploader's <user>.pgp */
	unsigned max_age;                /* signatures.max_age: seconds, 0 for no limit */
};

/*
 * Check the file behind staging_fd (read from offset 0 by the checker);
 * with req->sig_kind != CHECK_SIG_NONE, sig's two fds go with it (sig->kind
 * must then equal req->sig_kind).
 * Returns 0 with *v a strictly parsed verdict (the caller reads its
 * outcome), or a negative errno with e saying what went wrong: -ECONNREFUSED
 * or -ENOENT (no checker to reach), -EPIPE (it ended without a verdict:
 * crashed, killed, out of a limit), -ETIMEDOUT (no verdict in time),
 * -EBADMSG (a malformed or oversized verdict). Each is a refusal.
 */
int check_spawn_run(const char *socket_path, int staging_fd, const struct check_request *req,
		    const struct check_signature *sig, struct check_verdict *v, struct pst_err *e);

/*
 * The whole step for install-module: check_spawn_run() for rn under limits,
 * then the verdict read as the daemon's answer. Returns 0 when every rule
 * passed and the checker read all size staged bytes; -EBADMSG with e the
 * reason to give the maintainer when the upload is refused (a refusal
 * verdict, a crash, a kill, silence, a malformed verdict); any other
 * negative errno is an internal error (no checker to reach, its own failure).
 *
 * sig NULL or kind CHECK_SIG_NONE: an unsigned upload. A signed one passes
 * only with a good signature by a key of the keyring: v->signer is then its
 * fingerprint, checked to be upper-case hex of 40 or 64 digits.
 */

int check_spawn_upload(const char *socket_path, int staging_fd, const struct release_name *rn,
		       const struct upload_limits *limits, uint64_t size,
		       const struct check_signature *sig, struct check_verdict *v,
		       struct pst_err *e);

#endif
