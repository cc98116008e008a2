/*
 * Moves released files into <state>/attic instead of unlinking them (attic.h).
 * It must never delete a released file.
 */
#define _GNU_SOURCE
#include "attic.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"

static int subdir(int parent, const char *name, struct pst_err *e)
{
	int fd;

	if (mkdirat(parent, name, 0750) != 0 && errno != EEXIST)
		return pst_fail(e, errno, "attic/%s: cannot create: %s", name, strerror(errno));
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return pst_fail(e, errno, "attic/%s: cannot open: %s", name, strerror(errno));
	if (fsync(parent) != 0) {
		close(fd);
		return pst_fail(e, errno, "attic: cannot sync: %s", strerror(errno));
	}
	return fd;
}

int attic_event_open(int attic_fd, const char *module, char *rel, size_t rellen,
		     struct pst_err *e)
{
	char stamp[64];
	struct tm tm;
	time_t now = time(NULL);
	int module_fd;
	int fd;

	if (gmtime_r(&now, &tm) == NULL || strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
		return pst_fail(e, EIO, "attic: cannot format the time");
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), ".%ld", (long)getpid());
	if (snprintf(rel, rellen, "attic/%s/%s", module, stamp) >= (int)rellen)
		return pst_fail(e, ENAMETOOLONG, "attic path too long");
	module_fd = subdir(attic_fd, module, e);
	if (module_fd < 0)
		return module_fd;
	fd = subdir(module_fd, stamp, e);
	close(module_fd);
	return fd;
}

static int copy_synced(int from_fd, const char *name, int event_fd, struct pst_err *e)
{
	char buf[65536];
	struct stat st;
	ssize_t n;
	int in = openat(from_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out;
	int rc = 0;

	if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (in >= 0)
			close(in);
		return pst_fail(e, EIO, "%s: cannot open as a regular file", name);
	}
	out = openat(event_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return pst_fail(e, errno, "attic: %s: cannot create: %s", name, strerror(errno));
	}
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || sf_write_full(out, buf, (size_t)n) < 0)
			rc = pst_fail(e, errno, "attic: %s: copy failed: %s", name, strerror(errno));
	}
	/* The copy is the release itself (a restore puts it back in the tree): it
	 * keeps the mode the tree gave it and the mtime that list shows as its date. */
	if (rc == 0 && (fchmod(out, st.st_mode & 0777) != 0 ||
			futimens(out, (const struct timespec[2]){ st.st_atim, st.st_mtim }) != 0))
		rc = pst_fail(e, errno, "attic: %s: cannot keep its mode and time: %s", name, strerror(errno));
	if (rc == 0 && (fsync(out) != 0 || fsync(event_fd) != 0))
		rc = pst_fail(e, errno, "attic: %s: cannot sync: %s", name, strerror(errno));
	close(in);
	close(out);
	if (rc < 0)
		unlinkat(event_fd, name, 0);
	return rc;
}

int attic_move(int from_fd, const char *name, int event_fd, struct pst_err *e)
{
	int rc;

	if (!sf_is_component(name))
		return pst_fail(e, EINVAL, "'%s' is not a plain file name", name);
	if (renameat2(from_fd, name, event_fd, name, RENAME_NOREPLACE) != 0) {
		if (errno != EXDEV)
			return pst_fail(e, errno, "%s: cannot move to the attic: %s", name, strerror(errno));
		rc = copy_synced(from_fd, name, event_fd, e);
		if (rc < 0)
			return rc;
		/* The copy is safe on disk: only now may the tree's name go. */
		if (unlinkat(from_fd, name, 0) != 0)
			return pst_fail(e, errno, "%s: copied to the attic but not removed: %s", name,
					strerror(errno));
	}
	if (fsync(event_fd) != 0 || fsync(from_fd) != 0)
		return pst_fail(e, errno, "%s: moved to the attic, but syncing failed: %s", name,
				strerror(errno));
	return 0;
}

int attic_event_reopen(int attic_fd, const char *module, const char *rel)
{
	char stamp[NAME_MAX + 1];
	size_t mlen = strlen(module);
	int module_fd;
	int fd;

	if (strncmp(rel, "attic/", 6) != 0 || strncmp(rel + 6, module, mlen) != 0 ||
	    rel[6 + mlen] != '/' || !str_copy(stamp, sizeof(stamp), rel + 7 + mlen) ||
	    !sf_is_component(stamp))
		return -EINVAL;
	module_fd = openat(attic_fd, module, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (module_fd < 0)
		return -errno;
	fd = openat(module_fd, stamp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(module_fd);
	return fd < 0 ? -errno : fd;
}
