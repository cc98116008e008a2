/*
 * The skeleton every change of a module follows (see module_change.h).
 *
 * MUST: hold the module lock for the whole change; write the intent before
 * the first move and clear it only after the ledger line is appended.
 * MUST NOT: decide anything (the operations do), or unlink from the tree.
 */
#define _GNU_SOURCE
#include "module_change.h"

#include <errno.h>
#include <unistd.h>

#include "attic.h"
#include "history.h"
#include "text.h"
#include "tree_index.h"
#include "tree_scan.h"

/*
 * The operations fill rec->user with str_copy from peer->user (op_install.c,
 * op_delete.c). A copy that did not fit would leave it empty and
 * ledger_format, refusing an empty value, would refuse the change: never a
 * record under a cut name. This keeps that refusal from ever happening.
 */
_Static_assert(sizeof(((struct ledger_record *)0)->user) >= sizeof(((struct installd_peer *)0)->user),
	       "a ledger record must hold every peer's user name");

int module_change_begin(struct module_change *c, const struct installd *d, const char *module,
			int notify_sock, struct pst_err *e)
{
	int rc;

	c->d = d;
	c->module = module;
	c->module_fd = -1;
	rc = module_lock_take(d, module, notify_sock, &c->lock, e);
	if (rc < 0)
		return rc;
	c->module_fd = tree_module_open(d->sources_fd, module, 0, e);
	if (c->module_fd < 0 && c->module_fd != -ENOENT) {
		rc = c->module_fd;
		c->module_fd = -1;
		module_lock_release(&c->lock);
		return rc;
	}
	if (c->module_fd < 0)
		c->module_fd = -1;
	return 0;
}

void module_change_end(struct module_change *c)
{
	if (c->module_fd >= 0)
		close(c->module_fd);
	c->module_fd = -1;
	module_lock_release(&c->lock);
}

int module_change_commit(struct module_change *c, struct ledger_record *rec, bool with_attic,
			 module_moves_fn *moves, void *arg, struct pst_err *e)
{
	char line[LEDGER_LINE_MAX];
	char rel[256];
	int event_fd = -1;
	int rc;

	if (c->module_fd < 0)
		return pst_fail(e, EINVAL, "%s: the module directory is not open", c->module);
	if (with_attic) {
		/* The intent names the attic event before anything moves there, so a
		 * recovery can bring the old files back if the change never ends. */
		event_fd = attic_event_open(c->d->attic_fd, c->module, rel, sizeof(rel), e);
		if (event_fd < 0)
			return event_fd;
		str_copy(rec->attic, sizeof(rec->attic), rel);
	}
	rc = ledger_format(rec, line, sizeof(line)) ? 0
		: pst_fail(e, EINVAL, "the ledger record cannot be written");
	if (rc == 0)
		rc = history_ready(c->d, e);
	if (rc == 0)
		rc = module_intent_write(c->d, c->module, line, e);
	if (rc == 0)
		rc = moves(arg, c->module_fd, event_fd, e);
	if (event_fd >= 0)
		close(event_fd);
	if (rc == 0)
		rc = tree_reindex(c->d->sources_fd, c->module, e);
	if (rc == 0 && (rc = history_record(c->d, rec, line, e)) < 0)
		pst_err_prefix(e, "the change is in the tree but not yet in the release log; it is "
			       "recorded when the log is writable again (the daemon retries at the "
			       "module's next change and at its start)");
	if (rc == 0)
		rc = module_intent_clear(c->d, c->module, e);
	return rc;
}
