/*
 * The one way a module's part of the tree changes (install, --force,
 * delete-own), in one place instead of one copy per operation:
 *
 *   begin:  take the module's lock (recovering a change a crash left), open
 *           its directory
 *   commit: [open an attic event] -> write the intent (the ledger line) ->
 *           the operation's moves -> reindex -> append the ledger line ->
 *           clear the intent
 *   end:    close the directory, release the lock
 *
 * The order of commit is what crash recovery (module_lock.c) relies on:
 * nothing moves before the intent is on disk, and the intent names the
 * attic event before anything goes there.
 */
#ifndef POSTERN_MODULE_CHANGE_H
#define POSTERN_MODULE_CHANGE_H

#include <stdbool.h>

#include "installd.h"
#include "ledger.h"
#include "module_lock.h"

struct module_change {
	const struct installd *d;
	const char *module;
	struct module_lock lock;
	int module_fd;    /* sources/<module>, or -1 while the module has none */
};

/*
 * Take module's lock (telling notify_sock, if >= 0, when it has to wait)
 * and open its directory if it exists. On error nothing is held.
 */
int module_change_begin(struct module_change *c, const struct installd *d, const char *module,
			int notify_sock, struct pst_err *e);

/* Close the directory and release the lock. */
void module_change_end(struct module_change *c);

/*
 * The operation's own moves, called with the intent on disk. event_fd is
 * the attic event directory when one was asked for, else -1.
 */
typedef int module_moves_fn(void *arg, int module_fd, int event_fd, struct pst_err *e);

/*
 * Commit rec: when with_attic, first open an attic event and put its path in
 * rec->attic; then intent, moves(arg, ...), reindex, ledger, clear intent.
 * The directory must be open (module_fd >= 0). Returns 0 or -errno; on
 * error the intent stays for the next lock holder's recovery.
 */
int module_change_commit(struct module_change *c, struct ledger_record *rec, bool with_attic,
			 module_moves_fn *moves, void *arg, struct pst_err *e);

#endif
