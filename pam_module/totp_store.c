/*
 * The TOTP store: reading, locking and atomically replacing records (totp_store.h).
 * It must never unlink a record (replaced ones go to .attic) nor follow a symlink.
 */
#define _GNU_SOURCE   /* renameat2 */
#include "totp_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"

static const struct sf_rule store_dir_rule = {
	.type = S_IFDIR, .uid = 0, .gid = 0, .forbid = 077, .max_size = 0,
};

static const struct sf_rule record_rule = {
	.type = S_IFREG, .uid = 0, .gid = 0, .forbid = 077, .max_size = TOTP_RECORD_MAX,
};

static const struct sf_new record_new = { .mode = 0600, .uid = 0, .gid = 0 };

int totp_store_open(const char *path, struct pst_err *e)
{
	return sf_open_dir_path(path, &store_dir_rule, SF_TRUSTED_PATH, e);
}

static int split_parent(const char *path, char *parent, size_t plen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL || slash[1] == '\0' || (size_t)(slash - path) + 2 > plen)
		return -EINVAL;
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	if (parent[0] == '\0')
		strcpy(parent, "/");
	*base = slash + 1;
	return 0;
}

static int mkdir_root_0700(int parentfd, const char *name, struct pst_err *e)
{
	int fd;

	if (mkdirat(parentfd, name, 0700) != 0 && errno != EEXIST)
		return pst_fail(e, errno, "%s: cannot create: %s", name, strerror(errno));
	fd = sf_openat(parentfd, name, O_RDONLY | O_DIRECTORY, NULL, NULL, e);
	if (fd < 0)
		return fd;
	if (fchown(fd, 0, 0) != 0 || fchmod(fd, 0700) != 0) {
		int err = errno;
		close(fd);
		return pst_fail(e, err, "%s: cannot set owner and mode: %s", name, strerror(err));
	}
	close(fd);
	return 0;
}

int totp_store_open_create(const char *path, struct pst_err *e)
{
	char parent[4096];
	const char *base;
	int pfd;
	int rc;

	rc = totp_store_open(path, e);
	if (rc != -ENOENT)
		return rc;
	if (split_parent(path, parent, sizeof(parent), &base) < 0)
		return pst_fail(e, EINVAL, "%s: not an absolute directory path", path);
	pfd = sf_open_dir_path(parent, NULL, SF_TRUSTED_PATH, e);
	if (pfd < 0)
		return pfd;
	rc = mkdir_root_0700(pfd, base, e);
	close(pfd);
	if (rc < 0)
		return rc;
	return totp_store_open(path, e);
}

int totp_store_load(int dirfd, const char *user, size_t max, bool lock, char **buf,
		    size_t *len, struct pst_err *e)
{
	const struct sf_rule rule = {
		.type = S_IFREG, .uid = 0, .gid = 0, .forbid = 077, .max_size = (off_t)max,
	};
	int fd, rc;

	*buf = NULL;
	*len = 0;
	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	/* O_NONBLOCK: a FIFO in the store is refused by the type check, not waited on. */
	if (lock)
		fd = sf_open_locked(dirfd, user, O_RDONLY | O_NONBLOCK, &rule, NULL, e);
	else
		fd = sf_openat(dirfd, user, O_RDONLY | O_NONBLOCK, &rule, NULL, e);
	if (fd < 0)
		return fd;
	rc = sf_read_all(fd, max, buf, len, e);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int totp_store_read_kind(int dirfd, const char *label, const char *user, size_t max,
			 bool lock, int *fd_out, store_parse_fn parse, void *record,
			 struct pst_err *e)
{
	char *buf;
	size_t len;
	int fd, rc;

	fd = totp_store_load(dirfd, user, max, lock, &buf, &len, e);
	if (fd < 0)
		return fd;
	rc = parse(buf, len, record, e);
	explicit_bzero(buf, len);
	free(buf);
	if (rc < 0) {
		if (label != NULL)
			pst_err_prefix(e, "%s/%s", label, user);
		else
			pst_err_prefix(e, "%s", user);
		close(fd);
		return rc == -ENOENT ? -EINVAL : rc;
	}
	if (fd_out != NULL)
		*fd_out = fd;
	else
		close(fd);
	return 0;
}

static int parse_totp(const char *buf, size_t len, void *record, struct pst_err *e)
{
	return totp_record_parse(buf, len, record, e);
}

int totp_store_read(int storefd, const char *user, bool lock, int *fd_out,
		    struct totp_record *r, struct pst_err *e)
{
	totp_record_wipe(r);
	return totp_store_read_kind(storefd, NULL, user, TOTP_RECORD_MAX, lock, fd_out,
				    parse_totp, r, e);
}

int totp_store_lock(int storefd, const char *user, struct pst_err *e)
{
	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	return sf_open_locked(storefd, user, O_RDONLY | O_NONBLOCK, &record_rule, NULL, e);
}

/*
 * A record is formatted on the stack when it fits in 2 KiB (an enrolment's
 * ten recovery hashes and up to about ten bound keys), else on the heap:
 * an 8 KiB stack buffer pushed everything below it onto stack pages the
 * login had not touched, a copy-on-write fault each in sshd's PAM child.
 */
#define RECORD_ON_STACK 2048

static int format_record(const struct totp_record *r, char *small, char **out,
			 struct pst_err *e)
{
	int len = totp_record_format(r, small, RECORD_ON_STACK, e);

	*out = small;
	if (len != -ENOSPC)
		return len;
	*out = malloc(TOTP_RECORD_MAX);
	if (*out == NULL) {
		pst_fail(e, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	len = totp_record_format(r, *out, TOTP_RECORD_MAX, e);
	if (len < 0) {
		free(*out);
		*out = NULL;
	}
	return len;
}

static int write_record(int storefd, const char *name, const struct totp_record *r,
			struct pst_err *e)
{
	char small[RECORD_ON_STACK];
	char *buf;
	int len;
	int rc;

	len = format_record(r, small, &buf, e);
	if (len < 0)
		return len;
	rc = sf_write_atomic(storefd, name, buf, (size_t)len, &record_new, e);
	explicit_bzero(buf, (size_t)len + 1);   /* what was written, its NUL included */
	if (buf != small)
		free(buf);
	return rc;
}

int totp_store_write(int storefd, const char *user, const struct totp_record *r,
		     struct pst_err *e)
{
	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	return write_record(storefd, user, r, e);
}

/* A dot name, which no user name can be: neither the module nor list reads it. */
int totp_store_new_name(const char *user, char *buf, size_t len, struct pst_err *e)
{
	unsigned char rnd[8];
	int n;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return pst_fail(e, EIO, "%s: cannot make a temporary name", user);
	n = snprintf(buf, len, ".new.%s.%02x%02x%02x%02x%02x%02x%02x%02x", user, rnd[0], rnd[1],
		     rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	if (n <= 0 || (size_t)n >= len)
		return pst_fail(e, ENAMETOOLONG, "%s: cannot make a temporary name", user);
	return 0;
}

int totp_store_put_new(int dirfd, const char *tmpname, const char *user, const char *exists,
		       struct pst_err *e)
{
	int err;

	if (renameat2(dirfd, tmpname, dirfd, user, RENAME_NOREPLACE) != 0) {
		err = errno;
		unlinkat(dirfd, tmpname, 0);
		if (err == EEXIST)
			return pst_fail(e, EEXIST, "%s", exists);
		return pst_fail(e, err, "%s: cannot put the new record in place: %s", user,
				strerror(err));
	}
	if (fsync(dirfd) != 0)
		return pst_fail(e, errno, "%s: written, but syncing the store failed: %s", user,
				strerror(errno));
	return 0;
}

int totp_store_create(int storefd, const char *user, const struct totp_record *r,
		      struct pst_err *e)
{
	char name[128];
	int rc;

	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	rc = totp_store_new_name(user, name, sizeof(name), e);
	if (rc < 0)
		return rc;
	rc = write_record(storefd, name, r, e);
	if (rc < 0)
		return rc;
	return totp_store_put_new(storefd, name, user, "already enrolled", e);
}

int totp_store_subdir(int storefd, const char *name, bool create, struct pst_err *e)
{
	int rc;

	if (name[0] != '.' || !sf_is_component(name))
		return pst_fail(e, EINVAL, "'%s' is not a dot name", name);
	if (create) {
		rc = mkdir_root_0700(storefd, name, e);
		if (rc < 0)
			return rc;
	}
	return sf_openat(storefd, name, O_RDONLY | O_DIRECTORY, &store_dir_rule, NULL, e);
}

static int attic_open(int storefd, struct pst_err *e)
{
	int rc = mkdir_root_0700(storefd, TOTP_ATTIC, e);

	if (rc < 0)
		return rc;
	return sf_openat(storefd, TOTP_ATTIC, O_RDONLY | O_DIRECTORY, &store_dir_rule, NULL, e);
}

static int place_in_attic(int dirfd, const char *user, int atticfd, const char *name,
			  bool move)
{
	if (move)
		return renameat2(dirfd, user, atticfd, name, RENAME_NOREPLACE) == 0 ? 0 : -errno;
	return linkat(dirfd, user, atticfd, name, 0) == 0 ? 0 : -errno;
}

int totp_store_set_aside(int storefd, const char *user, const char *why, bool move,
			 char *kept, size_t keptlen, struct pst_err *e)
{
	return totp_store_set_aside_in(storefd, storefd, user, why, move, kept, keptlen, e);
}

int totp_store_set_aside_in(int storefd, int dirfd, const char *user, const char *why,
			    bool move, char *kept, size_t keptlen, struct pst_err *e)
{
	char name[128];
	int atticfd;
	int rc = -EEXIST;
	unsigned n;

	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	atticfd = attic_open(storefd, e);
	if (atticfd < 0)
		return atticfd;
	for (n = 0; n < 100 && rc == -EEXIST; n++) {
		if (n == 0)
			snprintf(name, sizeof(name), "%s.%s.%lld", user, why, (long long)time(NULL));
		else
			snprintf(name, sizeof(name), "%s.%s.%lld.%u", user, why,
				 (long long)time(NULL), n);
		rc = place_in_attic(dirfd, user, atticfd, name, move);
	}
	if (rc == 0)
		rc = fsync(atticfd) == 0 && fsync(dirfd) == 0 ? 0 : -errno;
	close(atticfd);
	if (rc < 0)
		return pst_fail(e, -rc, "%s: cannot keep the record aside: %s", user, strerror(-rc));
	if (kept != NULL)
		snprintf(kept, keptlen, "%s/%s", TOTP_ATTIC, name);
	return 0;
}
