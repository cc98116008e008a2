/*
 * File access for privileged code (safefile.h): openat below verified dir fds,
 * checks on the open fd, atomic replacement. It must never follow a symlink or trust a path.
 */
#define _GNU_SOURCE
#include "safefile.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define SF_LOCK_RETRIES 16

static const char *type_name(mode_t type)
{
	switch (type) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFLNK: return "a symlink";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	default: return "of unknown type";
	}
}

int sf_check_fd(int fd, const struct sf_rule *r, const char *what,
		struct stat *st_out, struct pst_err *e)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return pst_fail(e, errno, "%s: cannot stat: %s", what, strerror(errno));
	if (st_out != NULL)
		*st_out = st;
	if (r == NULL)
		return 0;
	if (r->type != 0 && (st.st_mode & S_IFMT) != r->type)
		return pst_fail(e, EPERM, "%s: is %s, expected %s", what,
				type_name(st.st_mode & S_IFMT), type_name(r->type));
	if (r->uid != SF_ANY_UID && st.st_uid != r->uid)
		return pst_fail(e, EPERM, "%s: owned by uid %lu, expected uid %lu (fix with chown)",
				what, (unsigned long)st.st_uid, (unsigned long)r->uid);
	if (r->gid != SF_ANY_GID && st.st_gid != r->gid)
		return pst_fail(e, EPERM, "%s: group is gid %lu, expected gid %lu (fix with chgrp)",
				what, (unsigned long)st.st_gid, (unsigned long)r->gid);
	if ((st.st_mode & r->forbid) != 0)
		return pst_fail(e, EPERM, "%s: mode %04o is too open (must not have %04o; fix with chmod)",
				what, (unsigned)(st.st_mode & 07777), (unsigned)r->forbid);
	if (r->max_size > 0 && st.st_size > r->max_size)
		return pst_fail(e, EFBIG, "%s: %lld bytes, more than the limit of %lld",
				what, (long long)st.st_size, (long long)r->max_size);
	return 0;
}

bool sf_is_component(const char *name)
{
	return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int sf_openat(int dirfd, const char *name, int flags, const struct sf_rule *r,
	      struct stat *st_out, struct pst_err *e)
{
	int fd;
	int rc;

	if (!sf_is_component(name))
		return pst_fail(e, EINVAL, "'%s' is not a plain file name", name ? name : "(null)");
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		if (errno == ELOOP)
			return pst_fail(e, ELOOP, "%s: is a symlink, refused", name);
		return pst_fail(e, errno, "%s: cannot open: %s", name, strerror(errno));
	}
	rc = sf_check_fd(fd, r, name, st_out, e);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

static const struct sf_rule trusted_ancestor = {
	.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
};

int sf_open_dir_path(const char *path, const struct sf_rule *r, unsigned flags,
		     struct pst_err *e)
{
	char comp[256];
	const char *p;
	size_t n;
	int dirfd;
	int next;

	if (path == NULL || path[0] != '/')
		return pst_fail(e, EINVAL, "'%s' is not an absolute path", path ? path : "(null)");
	dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return pst_fail(e, errno, "/: cannot open: %s", strerror(errno));
	comp[0] = '\0';
	for (p = path; *p != '\0'; p += n) {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n >= sizeof(comp) || (n == 2 && p[0] == '.' && p[1] == '.')) {
			close(dirfd);
			return pst_fail(e, EINVAL, "%s: refused path component", path);
		}
		if ((flags & SF_TRUSTED_PATH) &&
		    sf_check_fd(dirfd, &trusted_ancestor, comp[0] ? comp : "/", NULL, e) < 0) {
			close(dirfd);
			pst_err_prefix(e, "%s: untrusted directory on the way", path);
			return -EPERM;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (strcmp(comp, ".") == 0)
			continue;
		/* O_PATH: passing through a directory takes search permission only. */
		next = openat(dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			int err = errno;
			close(dirfd);
			if (err == ELOOP || err == ENOTDIR)
				return pst_fail(e, err, "%s: component '%s' is a symlink or not a directory, refused",
						path, comp);
			return pst_fail(e, err, "%s: cannot open '%s': %s", path, comp, strerror(err));
		}
		close(dirfd);
		dirfd = next;
	}
	next = sf_check_fd(dirfd, r, path, NULL, e);
	if (next < 0) {
		close(dirfd);
		return next;
	}
	if (flags & SF_PATH_ONLY)
		return dirfd;
	/* Reopening "." of the checked fd cannot land anywhere else. */
	next = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dirfd);
	if (next < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", path, strerror(errno));
	return next;
}

int sf_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int temp_name(char *buf, size_t len, const char *name)
{
	unsigned char rnd[6];
	int n;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -EIO;
	n = snprintf(buf, len, ".%s.%02x%02x%02x%02x%02x%02x.tmp", name, rnd[0],
		     rnd[1], rnd[2], rnd[3], rnd[4], rnd[5]);
	return (n > 0 && (size_t)n < len) ? 0 : -ENAMETOOLONG;
}

static int write_and_settle(int fd, const void *data, size_t len,
			    const struct sf_new *how)
{
	int rc = sf_write_full(fd, data, len);

	if (rc < 0)
		return rc;
	if (fchmod(fd, how->mode) != 0)
		return -errno;
	if ((how->uid != SF_ANY_UID || how->gid != SF_ANY_GID) &&
	    fchown(fd, how->uid, how->gid) != 0)
		return -errno;
	if (fsync(fd) != 0)
		return -errno;
	return 0;
}

int sf_write_atomic_via(int tmp_dirfd, int dirfd, const char *name, const void *data, size_t len,
			const struct sf_new *how, struct pst_err *e)
{
	char tmp[300];
	int fd;
	int rc;

	if (!sf_is_component(name))
		return pst_fail(e, EINVAL, "'%s' is not a plain file name", name ? name : "(null)");
	rc = temp_name(tmp, sizeof(tmp), name);
	if (rc < 0)
		return pst_fail(e, -rc, "%s: cannot make a temporary name", name);
	fd = openat(tmp_dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    how->mode & 0600);
	if (fd < 0)
		return pst_fail(e, errno, "%s: cannot create temporary file: %s", name,
				strerror(errno));
	rc = write_and_settle(fd, data, len, how);
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(tmp_dirfd, tmp, dirfd, name) != 0)
		rc = -errno;
	if (rc < 0) {
		unlinkat(tmp_dirfd, tmp, 0);
		return pst_fail(e, -rc, "%s: write failed, old content kept: %s", name,
				strerror(-rc));
	}
	if (fsync(dirfd) != 0)
		return pst_fail(e, errno, "%s: written, but syncing its directory failed: %s",
				name, strerror(errno));
	return 0;
}

int sf_write_atomic(int dirfd, const char *name, const void *data, size_t len,
		    const struct sf_new *how, struct pst_err *e)
{
	return sf_write_atomic_via(dirfd, dirfd, name, data, len, how, e);
}

/* ".<name>.<hex>.tmp": what temp_name (and the tree's own link temporaries) make. */
static bool is_temp_name(const char *s)
{
	size_t n = strlen(s), dot;

	if (n < 8 || s[0] != '.' || strcmp(s + n - 4, ".tmp") != 0)
		return false;
	dot = n - 5;                       /* the last hex digit, then back to its '.' */
	while (dot > 0 && isxdigit((unsigned char)s[dot]))
		dot--;
	return dot >= 2 && dot < n - 5 && s[dot] == '.';
}

int sf_drop_temps(int dirfd, struct pst_err *e)
{
	int walk_fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dh = walk_fd < 0 ? NULL : fdopendir(walk_fd);
	struct dirent *de;
	struct stat st;
	int rc = 0;

	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return pst_fail(e, errno, "cannot read a directory to tidy: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (!is_temp_name(de->d_name) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    st.st_uid != geteuid() || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			continue;
		if (unlinkat(dirfd, de->d_name, 0) != 0 && errno != ENOENT)
			rc = pst_fail(e, errno, "%s: cannot remove a leftover temporary: %s",
				      de->d_name, strerror(errno));
	}
	closedir(dh);
	return rc;
}

int sf_lock(int fd, bool wait, struct pst_err *e)
{
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
		if (errno == EINTR)
			continue;
		if (errno == EWOULDBLOCK)
			return pst_fail(e, EWOULDBLOCK, "the file is locked by another process");
		return pst_fail(e, errno, "cannot lock: %s", strerror(errno));
	}
	return 0;
}

int sf_open_locked(int dirfd, const char *name, int flags, const struct sf_rule *r,
		   struct stat *st_out, struct pst_err *e)
{
	struct stat held;
	struct stat now;
	int attempt;
	int fd;
	int rc;

	for (attempt = 0; attempt < SF_LOCK_RETRIES; attempt++) {
		fd = sf_openat(dirfd, name, flags, r, &held, e);
		if (fd < 0)
			return fd;
		rc = sf_lock(fd, true, e);
		if (rc < 0) {
			close(fd);
			return rc;
		}
		/* Whoever held the lock may have renamed a new file over name. */
		if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
		    now.st_dev == held.st_dev && now.st_ino == held.st_ino) {
			rc = sf_check_fd(fd, r, name, st_out, e);
			if (rc < 0) {
				close(fd);
				return rc;
			}
			return fd;
		}
		close(fd);
	}
	return pst_fail(e, EAGAIN, "%s: kept changing while waiting for its lock", name);
}

/*
 * A regular file is read into a buffer of its own size: a 200-byte TOTP
 * record then costs no fresh heap page (a page fault in every sshd login),
 * a large policy no regrowth. Anything else, or a file that grows while it
 * is read, grows the buffer as it comes.
 */
static size_t first_capacity(int fd, size_t max)
{
	struct stat st;

	/* /proc and /sys files are regular with size 0: they grow as read. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (unsigned long long)st.st_size < max)
		return (size_t)st.st_size + 1;
	return 4096;
}

int sf_read_all(int fd, size_t max, char **out, size_t *out_len, struct pst_err *e)
{
	size_t cap = first_capacity(fd, max);
	size_t len = 0;
	char *buf = malloc(cap + 1);
	char *bigger;
	ssize_t n;

	if (buf == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	for (;;) {
		if (len == cap) {
			if (cap > max) {
				free(buf);
				return pst_fail(e, EFBIG, "more than %zu bytes", max);
			}
			cap *= 2;
			bigger = realloc(buf, cap + 1);
			if (bigger == NULL) {
				free(buf);
				return pst_fail(e, ENOMEM, "out of memory");
			}
			buf = bigger;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;
			free(buf);
			return pst_fail(e, err, "read failed: %s", strerror(err));
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			free(buf);
			return pst_fail(e, EFBIG, "more than %zu bytes", max);
		}
	}
	buf[len] = '\0';
	*out = buf;
	if (out_len != NULL)
		*out_len = len;
	return 0;
}
