/*
 * The daemon's directories. <tree> and <tree>/sources must belong to the
 * daemon's user; <state> belongs to root (it also holds the TOTP store), so
 * the daemon's entries in it (ledger, locks/, attic/) are made by
 * installd_prepare_state() while still root, or by the admin beforehand.
 */
#define _GNU_SOURCE
#include "installd.h"
#include "installd_setup.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"

/* dir/name as a directory owned by the daemon, without group/other bits in forbid. */
static int own_subdir(int dir_fd, const char *name, mode_t mode, mode_t forbid, bool create,
		      uid_t uid, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFDIR, uid, SF_ANY_GID, forbid, 0 };
	int fd;

	if (create && mkdirat(dir_fd, name, mode) == 0 && fsync(dir_fd) != 0)
		return pst_fail(e, errno, "%s: cannot sync: %s", name, strerror(errno));
	fd = sf_openat(dir_fd, name, O_RDONLY | O_DIRECTORY, &rule, NULL, e);
	if (fd < 0)
		pst_err_prefix(e, "the daemon's directory");
	return fd;
}

/* A directory the daemon owns below <tree> or <state>, and where its fd goes. */
struct own_dir {
	const char *name;
	mode_t mode;        /* when created */
	mode_t forbid;      /* group/other bits it must not have */
	bool create;
	int *fd;
};

static int own_subdirs(int dir_fd, const struct own_dir *dirs, size_t n, uid_t uid,
		       struct pst_err *e)
{
	size_t i;

	for (i = 0; i < n; i++) {
		*dirs[i].fd = own_subdir(dir_fd, dirs[i].name, dirs[i].mode, dirs[i].forbid,
					 dirs[i].create, uid, e);
		if (*dirs[i].fd < 0)
			return *dirs[i].fd;
	}
	return 0;
}

int installd_open_dirs(struct installd *d, struct pst_err *e)
{
	const struct sf_rule tree_rule = { S_IFDIR, d->uid, SF_ANY_GID, 022, 0 };
	const struct sf_rule state_rule = { S_IFDIR, SF_ANY_UID, SF_ANY_GID, 022, 0 };
	const struct own_dir in_tree[] = {
		{ "sources", 0755, 022, true, &d->sources_fd },
		{ ".staging", 0700, 077, true, &d->staging_fd },
	};
	const struct own_dir in_state[] = {
		{ "locks", 0700, 077, false, &d->locks_fd },
		{ "attic", 0750, 027, false, &d->attic_fd },
		{ "history", 0750, 027, false, &d->history_fd },
	};
	int rc;

	d->tree_fd = sf_open_dir_path(d->set->tree, &tree_rule, SF_TRUSTED_PATH, e);
	if (d->tree_fd < 0)
		return d->tree_fd;
	rc = own_subdirs(d->tree_fd, in_tree, sizeof(in_tree) / sizeof(in_tree[0]), d->uid, e);
	if (rc < 0)
		return rc;
	d->state_fd = sf_open_dir_path(d->set->state, &state_rule, SF_TRUSTED_PATH, e);
	if (d->state_fd < 0)
		return d->state_fd;
	return own_subdirs(d->state_fd, in_state, sizeof(in_state) / sizeof(in_state[0]), d->uid, e);
}

static int prepare_entry(int state_fd, const char *name, mode_t type_mode, uid_t uid, gid_t gid,
			 struct pst_err *e)
{
	mode_t mode = type_mode & 07777;
	int fd;

	if (S_ISDIR(type_mode)) {
		if (mkdirat(state_fd, name, mode) != 0 && errno != EEXIST)
			return pst_fail(e, errno, "%s: cannot create: %s", name, strerror(errno));
		fd = openat(state_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		fd = openat(state_fd, name, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, mode);
	}
	if (fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", name, strerror(errno));
	if (fchown(fd, uid, gid) != 0 || fchmod(fd, mode) != 0) {
		close(fd);
		return pst_fail(e, errno, "%s: cannot set owner and mode: %s", name, strerror(errno));
	}
	close(fd);
	return 0;
}

int installd_prepare_state(const char *state, uid_t uid, gid_t gid, struct pst_err *e)
{
	const struct sf_rule state_rule = { S_IFDIR, 0, SF_ANY_GID, 022, 0 };
	int fd = sf_open_dir_path(state, &state_rule, SF_TRUSTED_PATH, e);
	int rc;

	if (fd < 0)
		return fd;
	rc = prepare_entry(fd, "locks", S_IFDIR | 0700, uid, gid, e);
	if (rc == 0)
		rc = prepare_entry(fd, "attic", S_IFDIR | 0750, uid, gid, e);
	if (rc == 0)
		rc = prepare_entry(fd, "history", S_IFDIR | 0750, uid, gid, e);
	if (rc == 0)
		rc = prepare_entry(fd, "ledger", S_IFREG | 0640, uid, gid, e);
	if (rc == 0 && fsync(fd) != 0)
		rc = pst_fail(e, errno, "%s: cannot sync: %s", state, strerror(errno));
	close(fd);
	return rc;
}
