/*
 * The record of every change, in three places that move together under
 * one lock (<state>/history/log.lock):
 *
 *   <tree>/log               the public release log (release_log.h)
 *   <state>/ledger           the server's own line per change (ledger.h)
 *   <state>/history/index/module/<m>  the ledger lines of module m, and
 *   <state>/history/index/user/<u>    of user u: what requests read instead
 *                            of the whole ledger, so their cost does not
 *                            grow with the history of the server
 *   <state>/history/log.size how many entries the log has: a log that
 *                            vanished or was cut is noticed, never restarted
 *
 * Recording one change:
 *   lock -> finish any pending record -> write <state>/history/log.pending (the
 *   size before, the ledger line, the entry's text) -> append the entry to
 *   the log and get it signed -> ledger, indexes (each append skipped if
 *   already there) -> log.size -> remove log.pending -> unlock.
 * Whoever takes the lock next finds a pending record and finishes it with
 * the same entry, so a crash at any step ends with log, ledger, indexes
 * and log.size agreeing, and the signer is asked for the same tree again.
 *
 * The index is a cache of the ledger: when <state>/history/index is missing it is
 * rebuilt from the ledger (which also holds the history from before the
 * log began, and the fields only the server needs) at the daemon's start.
 */
#ifndef POSTERN_HISTORY_H
#define POSTERN_HISTORY_H

#include <stdbool.h>
#include <time.h>

#include "installd.h"
#include "ledger.h"

/* At the daemon's start: finish a pending record, rebuild a missing index, check the log. */
int history_open(const struct installd *d, struct pst_err *e);

/* Before a change touches the tree: the log agrees with the state and the signer answers. */
int history_ready(const struct installd *d, struct pst_err *e);

/* Record a change whose moves and reindex are done (line: ledger_format of r). */
int history_record(const struct installd *d, const struct ledger_record *r, const char *line,
		   struct pst_err *e);

/* Whether line (of module's change) is already recorded; finishes a pending record first. */
int history_recorded(const struct installd *d, const char *module, const char *line,
		     bool *recorded, struct pst_err *e);

/*
 * The latest time the daemon has seen before now (<state>/history/clock,
 * raised to now): what a clock set back is caught by. 0 the first time.
 */
int history_clock(const struct installd *d, time_t now, time_t *seen, struct pst_err *e);

/*
 * A change not yet told to the mirrors (<state>/history/sync.pending,
 * written with each record): survives a restart. history_sync_taken
 * clears it, under the lock, just before the mirror_sync hook runs, so a
 * change during the hook asks for the next one.
 */
bool history_sync_pending(const struct installd *d);
int history_sync_taken(const struct installd *d, struct pst_err *e);

/* The records of one module, or of one user, oldest first (ledger_each's contract). */
int history_each_module(const struct installd *d, const char *module, ledger_visit_fn *fn,
			void *arg, struct pst_err *e);
int history_each_user(const struct installd *d, const char *user, ledger_visit_fn *fn,
		      void *arg, struct pst_err *e);

#endif
