/*
 * One mutation per module at a time and recovery from an interrupted one
 * (module_lock.h). It must never finish an intent the tree does not show.
 */
#define _GNU_SOURCE
#include "module_lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "attic.h"
#include "conn_slots.h"
#include "history.h"
#include "ledger.h"
#include "safefile.h"
#include "text.h"
#include "tree_index.h"
#include "tree_scan.h"
#include "wire_io.h"

#define INTENT_SUFFIX ".intent"

static int lock_name(char *out, size_t len, const char *module, const char *suffix)
{
	if (!name_is_module(module) || snprintf(out, len, "%s%s", module, suffix) >= (int)len)
		return -EINVAL;
	return 0;
}

/* True when the release file of r is in the tree with r's checksum. */
static bool same_file_in_tree(int module_fd, const struct tree_entry *t,
			      const struct ledger_record *r)
{
	char hex[65];
	int dir_fd = openat(module_fd, t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = dir_fd < 0 ? -1 : openat(dir_fd, t->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	bool same = fd >= 0 && tree_hash_fd(fd, hex, NULL) == 0 && strcmp(hex, r->sha256) == 0;

	if (fd >= 0)
		close(fd);
	if (dir_fd >= 0)
		close(dir_fd);
	return same;
}

/*
 * Whether the file of r is in the tree. For an install it must also be
 * the installed bytes: a --force of the same file name killed before the
 * old file moved to the attic leaves the old file under that name.
 */
static bool file_in_tree(const struct installd *d, const struct ledger_record *r)
{
	const struct tree_entry *t;
	struct tree_module m;
	bool found;
	int fd = tree_module_open(d->sources_fd, r->module, 0, NULL);

	if (fd < 0)
		return false;
	if (tree_scan_module(fd, r->module, &m, NULL) < 0) {
		close(fd);
		return false;
	}
	t = tree_find_file(&m, r->file);
	found = t != NULL && (strcmp(r->op, "install") != 0 || same_file_in_tree(fd, t, r));
	tree_module_free(&m);
	close(fd);
	return found;
}

/*
 * A --force install died after moving the old files to the attic and before
 * its own file arrived: put the old files back where they were.
 */
static int restore_forced(const struct installd *d, const struct ledger_record *r,
			  struct pst_err *e)
{
	struct dirent *de;
	DIR *dh = NULL;
	int walk_fd = -1;
	int module_fd;
	int dir_fd;
	int rc = 0;
	int event_fd = attic_event_reopen(d->attic_fd, r->module, r->attic);

	if (event_fd < 0)
		return pst_fail(e, -event_fd, "%s: cannot open the attic directory to restore from", r->attic);
	module_fd = tree_module_open(d->sources_fd, r->module, 1, e);
	dir_fd = module_fd < 0 ? -1 : openat(module_fd, r->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (module_fd >= 0)
		close(module_fd);
	if (dir_fd >= 0)
		walk_fd = openat(event_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (walk_fd >= 0)
		dh = fdopendir(walk_fd);
	if (dh == NULL && walk_fd >= 0)
		close(walk_fd);
	if (dh == NULL)
		rc = pst_fail(e, EIO, "%s/%s: cannot restore the old release", r->module, r->dir);
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (de->d_name[0] != '.')
			rc = attic_move(event_fd, de->d_name, dir_fd, e);
	}
	if (dh != NULL)
		closedir(dh);
	if (dir_fd >= 0)
		close(dir_fd);
	close(event_fd);
	return rc;
}

/* The directory r->dir of r's module in the tree, or -errno. */
static int open_record_dir(const struct installd *d, const struct ledger_record *r)
{
	return tree_release_dir_open(d->sources_fd, r->module, r->dir, NULL);
}

/*
 * The signature of r, if still in the tree, into event_fd, or a new attic
 * event when event_fd < 0. An install that died between its signature's
 * link and its tarball's left the signature alone in the tree (and, under
 * --force, in the way of the old one coming back); a delete that died
 * after its tarball moved left the signature behind.
 */
static int move_record_signature(const struct installd *d, const struct ledger_record *r,
				 int event_fd, struct pst_err *e)
{
	char rel[256];
	int own_event = -1;
	int dir_fd;
	int rc = 0;

	if (!ledger_signed(r) || !sf_is_component(r->signature))
		return 0;
	dir_fd = open_record_dir(d, r);
	if (dir_fd < 0 || faccessat(dir_fd, r->signature, F_OK, AT_SYMLINK_NOFOLLOW) != 0) {
		if (dir_fd >= 0)
			close(dir_fd);
		return 0;
	}
	if (event_fd < 0)
		event_fd = own_event = attic_event_open(d->attic_fd, r->module, rel, sizeof(rel), e);
	if (event_fd < 0)
		rc = event_fd;
	else
		rc = attic_move(dir_fd, r->signature, event_fd, e);
	if (rc == 0)
		syslog(LOG_WARNING, "recovery: %s/%s moved to the attic (%s)", r->module,
		       r->signature, own_event >= 0 ? rel : r->attic);
	if (own_event >= 0)
		close(own_event);
	close(dir_fd);
	return rc;
}

/* A delete that is done: its record's signature to the delete's own attic event. */
static int finish_deleted_signature(const struct installd *d, const struct ledger_record *r,
				    struct pst_err *e)
{
	int event_fd = attic_event_reopen(d->attic_fd, r->module, r->attic);
	int rc;

	if (event_fd < 0)
		return move_record_signature(d, r, -1, e);
	rc = move_record_signature(d, r, event_fd, e);
	close(event_fd);
	return rc;
}

/* Finish what the intent of module describes. Called with the lock held. */
static int recover(const struct installd *d, const char *module, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFREG, d->uid, SF_ANY_GID, 022, LEDGER_LINE_MAX };
	struct ledger_record r;
	char name[NAME_MAX + 1];
	char *line = NULL;
	bool done;
	bool recorded = false;
	int fd;
	int rc;

	if (lock_name(name, sizeof(name), module, INTENT_SUFFIX) < 0)
		return pst_fail(e, EINVAL, "%s: not a module name", module);
	fd = sf_openat(d->locks_fd, name, O_RDONLY, &rule, NULL, e);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	rc = sf_read_all(fd, LEDGER_LINE_MAX, &line, NULL, e);
	close(fd);
	if (rc < 0)
		return rc;
	syslog(LOG_WARNING, "recovering an interrupted change of %s", module);
	if (ledger_parse(line, &r) && strcmp(r.module, module) == 0) {
		done = file_in_tree(d, &r) == (strcmp(r.op, "install") == 0);
		if (!done && strcmp(r.op, "install") == 0)
			rc = move_record_signature(d, &r, -1, e);
		if (done && strcmp(r.op, "delete") == 0)
			rc = finish_deleted_signature(d, &r, e);
		if (rc == 0 && !done && strcmp(r.op, "install") == 0 && strcmp(r.forced, "yes") == 0)
			rc = restore_forced(d, &r, e);
		if (rc == 0)
			rc = tree_reindex(d->sources_fd, module, e);
		if (rc == 0 && done)
			rc = history_recorded(d, module, line, &recorded, e);
		if (rc == 0 && done && !recorded)
			rc = history_record(d, &r, line, e);
	} else {
		rc = tree_reindex(d->sources_fd, module, e);
	}
	free(line);
	if (rc == 0)
		rc = module_intent_clear(d, module, e);
	return rc;
}

int module_lock_take(const struct installd *d, const char *module, int notify_sock,
		     struct module_lock *l, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFREG, d->uid, SF_ANY_GID, 077, 0 };
	char name[NAME_MAX + 1];
	int fd;
	int rc;

	l->fd = -1;
	if (lock_name(name, sizeof(name), module, ".lock") < 0)
		return pst_fail(e, EINVAL, "%s: not a module name", module);
	fd = sf_openat(d->locks_fd, name, O_RDWR | O_CREAT, &rule, NULL, e);
	if (fd < 0)
		return fd;
	rc = sf_lock(fd, false, NULL);
	if (rc == -EWOULDBLOCK) {
		if (notify_sock >= 0)
			wire_send_msg(notify_sock, WIRE_MSG_WAIT,
				      "waiting: another release or deletion of %s is in progress", module);
		/* A handler that only waits gives its working slot to others meanwhile. */
		conn_slot_waiting(true);
		rc = sf_lock(fd, true, e);
		conn_slot_waiting(false);
	}
	if (rc == 0)
		rc = recover(d, module, e);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	l->fd = fd;
	return 0;
}

void module_lock_release(struct module_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

int module_intent_write(const struct installd *d, const char *module, const char *ledger_line,
			struct pst_err *e)
{
	const struct sf_new how = { 0600, SF_ANY_UID, SF_ANY_GID };
	char name[NAME_MAX + 1];

	if (lock_name(name, sizeof(name), module, INTENT_SUFFIX) < 0)
		return pst_fail(e, EINVAL, "%s: not a module name", module);
	return sf_write_atomic(d->locks_fd, name, ledger_line, strlen(ledger_line), &how, e);
}

int module_intent_clear(const struct installd *d, const char *module, struct pst_err *e)
{
	char name[NAME_MAX + 1];

	if (lock_name(name, sizeof(name), module, INTENT_SUFFIX) < 0)
		return pst_fail(e, EINVAL, "%s: not a module name", module);
	if (unlinkat(d->locks_fd, name, 0) != 0 && errno != ENOENT)
		return pst_fail(e, errno, "locks/%s: cannot remove: %s", name, strerror(errno));
	if (fsync(d->locks_fd) != 0)
		return pst_fail(e, errno, "locks: cannot sync: %s", strerror(errno));
	return 0;
}

int module_recover_all(const struct installd *d, struct pst_err *e)
{
	char module[NAME_MAX + 1];
	struct module_lock l;
	struct dirent *de;
	size_t n;
	size_t slen = strlen(INTENT_SUFFIX);
	int walk_fd = openat(d->locks_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dh = walk_fd >= 0 ? fdopendir(walk_fd) : NULL;
	int rc = 0;

	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return pst_fail(e, errno, "locks: cannot read: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		n = strlen(de->d_name);
		if (n <= slen || strcmp(de->d_name + n - slen, INTENT_SUFFIX) != 0)
			continue;
		memcpy(module, de->d_name, n - slen);
		module[n - slen] = '\0';
		rc = module_lock_take(d, module, -1, &l, e);
		module_lock_release(&l);
	}
	closedir(dh);
	return rc;
}
