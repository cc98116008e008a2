/* Rebuilding the per-module and per-user index from the ledger (index_build.h). */
#define _GNU_SOURCE
#include "index_build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "ledger.h"
#include "text.h"
#include "safefile.h"

#define BUILD_NAME "index.new"
static const char *const kinds[] = { "module", "user" };

/* Each entry of dir_fd: fsynced, or (with drop) removed. Only plain files are expected. */
static int each_file(int dir_fd, bool drop, struct pst_err *e)
{
	int walk_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dh = walk_fd < 0 ? NULL : fdopendir(walk_fd);
	struct dirent *de;
	int rc = 0, fd;

	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return pst_fail(e, errno, "<state>/history/" BUILD_NAME ": cannot read: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (drop) {
			if (unlinkat(dir_fd, de->d_name, 0) != 0)
				rc = pst_fail(e, errno, "<state>/history/" BUILD_NAME "/%s: cannot remove: %s",
					      de->d_name, strerror(errno));
			continue;
		}
		fd = openat(dir_fd, de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fsync(fd) != 0)
			rc = pst_fail(e, errno, "<state>/history/" BUILD_NAME "/%s: cannot sync: %s",
				      de->d_name, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	closedir(dh);
	return rc == 0 && fsync(dir_fd) != 0 ? pst_fail(e, errno, "cannot sync the index") : rc;
}

/* Empty a leftover build; made by the daemon alone, it holds only kinds[]/files. */
static int drop_leftover(int state_fd, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFDIR, geteuid(), SF_ANY_GID, 027, 0 };
	int top = sf_openat(state_fd, BUILD_NAME, O_RDONLY | O_DIRECTORY, &rule, NULL, e);
	int rc = 0, fd;
	size_t i;

	if (top == -ENOENT)
		return 0;
	if (top < 0)
		return top;
	for (i = 0; rc == 0 && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		fd = sf_openat(top, kinds[i], O_RDONLY | O_DIRECTORY, &rule, NULL, e);
		if (fd == -ENOENT)
			continue;
		rc = fd < 0 ? fd : each_file(fd, true, e);
		if (fd >= 0)
			close(fd);
		if (rc == 0 && unlinkat(top, kinds[i], AT_REMOVEDIR) != 0)
			rc = pst_fail(e, errno, "<state>/history/" BUILD_NAME "/%s: cannot remove: %s", kinds[i],
				      strerror(errno));
	}
	close(top);
	if (rc == 0 && unlinkat(state_fd, BUILD_NAME, AT_REMOVEDIR) != 0)
		rc = pst_fail(e, errno, "<state>/history/" BUILD_NAME ": cannot remove: %s", strerror(errno));
	return rc;
}

struct build {
	int fd[2];           /* index.new/module, index.new/user */
	int rc;
	struct pst_err *e;
};

static int append_plain(int dir_fd, const char *name, const char *line, struct pst_err *e)
{
	int fd = openat(dir_fd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
	int rc = 0;

	if (fd < 0 || sf_write_full(fd, line, strlen(line)) < 0)
		rc = pst_fail(e, errno, "<state>/history/" BUILD_NAME "/%s: cannot write: %s", name,
			      strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

static bool add_record(const struct ledger_record *r, const char *line, void *arg)
{
	struct build *b = arg;

	if (!name_is_module(r->module) || !sf_is_component(r->user)) {
		syslog(LOG_WARNING, "index: a ledger line with module \"%s\" user \"%s\" is left out",
		       r->module, r->user);
		return true;
	}
	b->rc = append_plain(b->fd[0], r->module, line, b->e);
	if (b->rc == 0)
		b->rc = append_plain(b->fd[1], r->user, line, b->e);
	return b->rc == 0;
}

static int make_dirs(int state_fd, struct build *b, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFDIR, geteuid(), SF_ANY_GID, 027, 0 };
	int top, rc = 0;
	size_t i;

	if (mkdirat(state_fd, BUILD_NAME, 0750) != 0)
		return pst_fail(e, errno, "<state>/history/" BUILD_NAME ": cannot make: %s", strerror(errno));
	top = sf_openat(state_fd, BUILD_NAME, O_RDONLY | O_DIRECTORY, &rule, NULL, e);
	if (top < 0)
		return top;
	for (i = 0; rc == 0 && i < 2; i++) {
		if (mkdirat(top, kinds[i], 0750) != 0)
			rc = pst_fail(e, errno, "<state>/history/" BUILD_NAME "/%s: cannot make: %s", kinds[i],
				      strerror(errno));
		else if ((b->fd[i] = sf_openat(top, kinds[i], O_RDONLY | O_DIRECTORY, &rule, NULL, e)) < 0)
			rc = b->fd[i];
	}
	if (rc == 0 && fsync(top) != 0)
		rc = pst_fail(e, errno, "<state>/history/" BUILD_NAME ": cannot sync: %s", strerror(errno));
	close(top);
	return rc;
}

int index_build(int ledger_dir_fd, int state_fd, struct pst_err *e)
{
	struct build b = { { -1, -1 }, 0, e };
	int rc = drop_leftover(state_fd, e);

	if (rc == 0)
		rc = make_dirs(state_fd, &b, e);
	if (rc == 0)
		rc = ledger_each(ledger_dir_fd, add_record, &b, e);
	if (rc == 0)
		rc = b.rc;
	if (rc == 0)
		rc = each_file(b.fd[0], false, e);
	if (rc == 0)
		rc = each_file(b.fd[1], false, e);
	if (b.fd[0] >= 0)
		close(b.fd[0]);
	if (b.fd[1] >= 0)
		close(b.fd[1]);
	if (rc == 0 && renameat(state_fd, BUILD_NAME, state_fd, "index") != 0)
		rc = pst_fail(e, errno, "<state>/history/index: cannot put in place: %s", strerror(errno));
	if (rc == 0 && fsync(state_fd) != 0)
		rc = pst_fail(e, errno, "<state>/history: cannot sync: %s", strerror(errno));
	if (rc == 0)
		syslog(LOG_NOTICE, "index: rebuilt <state>/history/index from the ledger");
	return rc;
}
