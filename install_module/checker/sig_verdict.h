/*
 * What the OpenPGP verifier (sqv) said, turned into the checker's answer.
 * A pure function over its exit status and its captured output: the pass
 * rests on the exit status and on stdout holding only fingerprints, never
 * on the wording of stderr, which only picks the refusal's message.
 */
#ifndef POSTERN_SIG_VERDICT_H
#define POSTERN_SIG_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "check_wire.h"

/* The verifier: Sequoia's sqv (docs/RELEASES.md says why). */
#define SIG_VERIFIER_PATH "/usr/bin/sqv"

/* Exit statuses of a confined tool's child before execve (sig_confine.c). */
#define SIG_VERIFIER_SETUP_FAILED 125
#define SIG_VERIFIER_EXEC_FAILED 126

struct sig_result {
	enum check_outcome outcome;               /* PASS, REFUSED or INTERNAL */
	char message[CHECK_MESSAGE_MAX];          /* "" on a pass */
	char signer[CHECK_FINGERPRINT_MAX + 1];   /* the good signature's key on a pass, else "" */
};

/*
 * wait_status as waitpid() gave it; out and err the verifier's stdout and
 * stderr (not NUL-terminated, possibly cut at the capture's cap; truncated
 * says whether either was). A pass needs exit status 0 and a stdout of
 * nothing but lines of 40 or 64 upper-case hex digits (the first is the
 * signer), with nothing cut off. Everything else is a refusal whose message
 * names the problem and the fix, or an internal error when the verifier
 * could not be run at all.
 */
void sig_verdict_read(enum check_signature_kind kind, int wait_status, const char *out,
		      size_t out_len, const char *err, size_t err_len, int truncated,
		      struct sig_result *r);

/* r's outcome and message from a printf format; signer emptied. */
void sig_say(struct sig_result *r, enum check_outcome outcome, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * A verifier (name as the maintainer reads it, its path and package) that
 * was killed, could not be confined or run, or ended oddly: r says so (a
 * refusal for a kill, else internal) and true. False when it exited on
 * its own with any other status.
 */
bool sig_tool_ended_badly(int wait_status, const char *name, const char *path,
			  const char *package, struct sig_result *r);

#endif
