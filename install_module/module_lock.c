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

static bool file_in_tree(const struct installd *d, const struct ledger_record *r)
{
	struct tree_module m;
	bool found;
	int fd = tree_module_open(d->sources_fd, r->module, 0, NULL);

	if (fd < 0)
		return false;
	if (tree_scan_module(fd, r->module, &m, NULL) < 0) {
		close(fd);
		return false;
	}
	found = tree_find_file(&m, r->file) != NULL;
	tree_module_free(&m);
	close(fd);
	return found;
}

/* Finish what the intent of module describes. Called with the lock held. */
static int recover(const struct installd *d, const char *module, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFREG, d->uid, SF_ANY_GID, 022, LEDGER_LINE_MAX };
	struct ledger_record r;
	char name[NAME_MAX + 1];
	char *line = NULL;
	bool done;
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
	rc = tree_reindex(d->sources_fd, module, e);
	if (rc == 0 && ledger_parse(line, &r) && strcmp(r.module, module) == 0) {
		done = file_in_tree(d, &r) == (strcmp(r.op, "install") == 0);
		if (done && !ledger_has_line(d->state_fd, line))
			rc = ledger_append(d->state_fd, line, e);
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
		rc = sf_lock(fd, true, e);
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
