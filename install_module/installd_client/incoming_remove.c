/*
 * Removing an entry of incoming, recursively (see incoming_remove.h).
 *
 * MUST: resolve every name relative to an fd of its parent, opened with
 * O_NOFOLLOW|O_DIRECTORY and compared (st_dev, st_ino) with what fstatat
 * saw, so a directory swapped for a symlink during the walk is refused;
 * remove symlinks as links; bound the depth. Each directory is opened with
 * openat2(RESOLVE_NO_XDEV): a bind mount of the same file system has the
 * same st_dev, so comparing st_dev alone would walk into it.
 * MUST NOT: follow a symlink; cross into another file system; run with
 * more rights than the maintainer's.
 */
#define _GNU_SOURCE
#include "incoming_remove.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "safefile.h"

static int remove_at(int dirfd, const char *name, const struct stat *parent, unsigned depth,
		     struct pst_err *e);

/* Empty the directory open as fd (which is st), then nothing else. */
static int empty_dir(int fd, const struct stat *st, unsigned depth, struct pst_err *e)
{
	int list_fd = dup(fd);
	DIR *d = list_fd >= 0 ? fdopendir(list_fd) : NULL;
	struct dirent *de;
	int rc = 0;

	if (d == NULL) {
		if (list_fd >= 0)
			close(list_fd);
		return pst_fail(e, errno, "cannot read a directory: %s", strerror(errno));
	}
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rc = remove_at(fd, de->d_name, st, depth + 1, e);
		if (rc == -ENOENT)
			rc = 0;
	}
	if (rc == 0 && errno != 0)
		rc = pst_fail(e, errno, "cannot read a directory: %s", strerror(errno));
	closedir(d);
	return rc;
}

/* name in dirfd as a directory, never through a symlink nor into another mount. */
static int open_dir_same_mount(int dirfd, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_BENEATH,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	/* Before Linux 5.6 (no openat2): the st_dev comparison is all there is. */
	if (fd < 0 && errno == ENOSYS)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

static int remove_dir(int dirfd, const char *name, const struct stat *st, unsigned depth,
		      struct pst_err *e)
{
	struct stat opened;
	int fd, rc;

	if (depth > INCOMING_REMOVE_DEPTH)
		return pst_fail(e, ELOOP, "%s: directories nested deeper than %d levels (ask an "
				"administrator)", name, INCOMING_REMOVE_DEPTH);
	fd = open_dir_same_mount(dirfd, name);
	if (fd < 0 && errno == EXDEV)
		return pst_fail(e, EXDEV, "%s: is a mount point (another file system, or a bind "
				"mount): nothing was removed from it; ask an administrator", name);
	if (fd < 0)
		return pst_fail(e, errno, "%s: cannot open the directory: %s", name, strerror(errno));
	if (fstat(fd, &opened) != 0 || opened.st_dev != st->st_dev || opened.st_ino != st->st_ino) {
		close(fd);
		return pst_fail(e, EAGAIN, "%s: changed while it was being removed (try again)", name);
	}
	rc = empty_dir(fd, &opened, depth, e);
	close(fd);
	if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) != 0)
		rc = pst_fail(e, errno, "%s: cannot remove the directory: %s", name, strerror(errno));
	return rc;
}

static int remove_at(int dirfd, const char *name, const struct stat *parent, unsigned depth,
		     struct pst_err *e)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? -ENOENT :
		       pst_fail(e, errno, "%s: %s", name, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		if (parent != NULL && st.st_dev != parent->st_dev)
			return pst_fail(e, EXDEV, "%s: is on another file system (ask an "
					"administrator)", name);
		return remove_dir(dirfd, name, &st, depth, e);
	}
	if (unlinkat(dirfd, name, 0) != 0)
		return errno == ENOENT ? -ENOENT :
		       pst_fail(e, errno, "%s: cannot remove it: %s", name, strerror(errno));
	return 0;
}

int incoming_remove(int dirfd, const char *name, struct pst_err *e)
{
	struct stat dir;

	if (!sf_is_component(name))
		return pst_fail(e, EINVAL, "'%s' is not a plain name", name);
	if (fstat(dirfd, &dir) != 0)
		return pst_fail(e, errno, "cannot look at your incoming directory: %s", strerror(errno));
	return remove_at(dirfd, name, &dir, 0, e);
}
