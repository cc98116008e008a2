/*
 * The inclusion proof beside each release: <tree>/sources/<module>/<dir>/
 * <file>.tlog-proof, a c2sp.org/tlog-proof@v1 file carrying the install's
 * log entry, its inclusion proof and the checkpoint that first covered it,
 * so a user can check a download offline with postern-verify and the
 * pinned key alone. Derived from the log, so not logged itself; it goes
 * to the attic with its release.
 */
#ifndef POSTERN_RELEASE_PROOF_H
#define POSTERN_RELEASE_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "installd.h"
#include "ledger.h"

/*
 * Writes r's proof (r an install whose entry, index, is the last of the
 * log). Under the log lock; redone safely when a crash interrupted it.
 */
int release_proof_write(const struct installd *d, const struct ledger_record *r, uint64_t index,
			const char *entry, size_t entry_len, struct pst_err *e);

#endif
