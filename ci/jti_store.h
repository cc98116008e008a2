/*
 * Tokens used once: every accepted CI token's jti is recorded until the
 * token expires, so a token copied from a job log cannot release twice.
 * One file per token in a directory only postern-ci's user may write,
 * named by the SHA-256 of issuer and jti (hostile text never becomes a
 * file name) and holding the token's exp. The record is a hard link made
 * from a complete, fsynced temporary: link(2) fails when the name exists,
 * so of two requests with one token exactly one wins, even across
 * processes and crashes. Cost: one link per request; pruning reads only
 * live tokens (at most max_token_lifetime old), never the history.
 */
#ifndef POSTERN_CI_JTI_STORE_H
#define POSTERN_CI_JTI_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "errmsg.h"

struct jti_store {
	int dirfd;
};

/* Open the store's directory: owned by this user, mode 0700. */
int jti_store_open(const char *path, struct jti_store *s, struct pst_err *e);
void jti_store_close(struct jti_store *s);

/*
 * Record the first use of (issuer, jti), a token valid until exp: 0, or
 * -EEXIST when it was used before (a replay), or -errno with e filled.
 */
int jti_store_use(struct jti_store *s, const char *issuer, const char *jti, int64_t exp,
		  struct pst_err *e);

/* Forget tokens that expired more than skew seconds before now; the number
 * forgotten, or -errno. */
int jti_store_prune(struct jti_store *s, time_t now, unsigned skew, struct pst_err *e);

#endif
