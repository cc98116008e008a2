/*
 * Whether the key that made a signature is valid now: what gpgv's status
 * lines say, read as a veto over sqv's pass. sqv judges a key at the
 * signature's creation time, which the signer chooses; gpgv judges it at
 * the present (EXPKEYSIG, REVKEYSIG). A pure function, unit-tested and
 * fuzzed.
 */
#ifndef POSTERN_SIG_NOW_H
#define POSTERN_SIG_NOW_H

#include <stddef.h>

#include "sig_verdict.h"

/* The second verifier: GnuPG's gpgv, run only for its judgement of the key now. */
#define SIG_NOW_VERIFIER_PATH "/usr/bin/gpgv"

/*
 * wait_status as waitpid() gave it; status gpgv's --status-fd output (not
 * NUL-terminated, possibly cut: truncated says so); signer the fingerprint
 * sqv named. A pass needs exit status 0 and exactly one signature whose
 * lines are NEWSIG, GOODSIG and VALIDSIG with signer as its primary key's
 * fingerprint, and none of EXPKEYSIG, REVKEYSIG, EXPSIG, BADSIG or ERRSIG
 * anywhere. A key expired or revoked (softly: superseded or retired) since
 * it signed is refused with its own message; everything else that is not
 * a pass is a refusal, or an internal error when gpgv could not be run.
 * On a pass r keeps signer.
 */
void sig_now_read(int wait_status, const char *status, size_t len, int truncated,
		  const char *signer, struct sig_result *r);

#endif
