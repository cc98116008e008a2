/*
 * One mutation per module at a time, and recovery from a crash in the
 * middle of one.
 *
 * <state>/locks/<module>.lock is flock()ed for the whole of an install or
 * delete. Before the first change to the tree the operation writes
 * <state>/locks/<module>.intent (atomically) holding the ledger line it is
 * about to commit; it removes it when the indexes and the ledger are done.
 * Whoever takes the lock next (or the daemon at start) and finds an intent
 * finishes the job from the tree: reindex the module and append the ledger
 * line if the tree shows the change happened.
 */
#ifndef POSTERN_MODULE_LOCK_H
#define POSTERN_MODULE_LOCK_H

#include "installd.h"

struct module_lock {
	int fd;
};

/*
 * Take module's lock. When another operation holds it, tell the client on
 * notify_sock (-1: nobody to tell) that it waits, then wait. Any pending
 * intent is recovered before this returns.
 */
int module_lock_take(const struct installd *d, const char *module, int notify_sock,
		     struct module_lock *l, struct pst_err *e);
void module_lock_release(struct module_lock *l);

int module_intent_write(const struct installd *d, const char *module, const char *ledger_line,
			struct pst_err *e);
int module_intent_clear(const struct installd *d, const char *module, struct pst_err *e);

/* At start: recover every module that has an intent left. */
int module_recover_all(const struct installd *d, struct pst_err *e);

#endif
