/*
 * Safe file access for code that holds privileges.
 *
 * MUST: open every file relative to a directory fd that was itself opened
 * without following symlinks; refuse a symlink at the last component
 * (O_NOFOLLOW) and anywhere on the way (sf_open_dir_path walks component by
 * component); check type, owner, mode and size on the open fd (fstat), never
 * on a path; replace files only by rename of a fully written and fsynced
 * temporary in the same directory, then fsync the directory.
 * MUST NOT: accept a name with '/' where a single component is expected, or
 * trust anything learnt about a path before it was opened.
 */
#ifndef POSTERN_SAFEFILE_H
#define POSTERN_SAFEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errmsg.h"

#define SF_ANY_UID ((uid_t)-1)
#define SF_ANY_GID ((gid_t)-1)

/* What a file must look like before it is trusted. */
struct sf_rule {
	mode_t type;       /* S_IFREG, S_IFDIR, ... (0: any) */
	uid_t uid;         /* required owner, or SF_ANY_UID */
	gid_t gid;         /* required group, or SF_ANY_GID */
	mode_t forbid;     /* permission bits that must be clear, e.g. 022 */
	off_t max_size;    /* 0: no cap */
};

/* Check an open fd against r. what names the file in the message. */
int sf_check_fd(int fd, const struct sf_rule *r, const char *what,
		struct stat *st_out, struct pst_err *e);

/* True when name is one path component: non-empty, no '/', not "." or "..". */
bool sf_is_component(const char *name);

/*
 * openat(dirfd, name) with O_NOFOLLOW|O_CLOEXEC|O_NOCTTY added, then
 * sf_check_fd(). name must be a single component. Returns the fd or -errno.
 */
int sf_openat(int dirfd, const char *name, int flags, const struct sf_rule *r,
	      struct stat *st_out, struct pst_err *e);

/* Flags for sf_open_dir_path(). */
#define SF_TRUSTED_PATH 0x1  /* every directory on the way, "/" included, must be
			      * owned by root and not writable by group or other */
#define SF_PATH_ONLY    0x2  /* return an O_PATH fd: enough to open entries below
			      * and to fstat, for a directory we may only search
			      * (mode 0711), not list */

/*
 * Open an absolute directory path one component at a time with
 * O_NOFOLLOW|O_DIRECTORY, so no symlink anywhere is followed, and check the
 * final directory against r (r may be NULL). With SF_TRUSTED_PATH, nobody but
 * root can have swapped any directory on the way (what OpenSSH's safe_path
 * checks for authorized_keys). Directories on the way need only search
 * permission. Returns the fd or -errno.
 */
int sf_open_dir_path(const char *path, const struct sf_rule *r, unsigned flags,
		     struct pst_err *e);

/* How a file written by sf_write_atomic ends up. */
struct sf_new {
	mode_t mode;
	uid_t uid;         /* SF_ANY_UID: leave as created */
	gid_t gid;         /* SF_ANY_GID: leave as created */
};

/*
 * Replace dirfd/name with exactly len bytes of data: a temporary in the same
 * directory, written, fchmod/fchown'd, fsynced, renamed over name, and the
 * directory fsynced. On any failure name keeps its old content and the
 * temporary is removed.
 */
int sf_write_atomic(int dirfd, const char *name, const void *data, size_t len,
		    const struct sf_new *how, struct pst_err *e);

/*
 * The same with the temporary made in tmp_dirfd (on dirfd's filesystem) and
 * renamed into dirfd: a crash leaves it where readers of dirfd never see it.
 */
int sf_write_atomic_via(int tmp_dirfd, int dirfd, const char *name, const void *data, size_t len,
			const struct sf_new *how, struct pst_err *e);

/*
 * Remove what a crash between the create and the rename of an atomic write
 * left in dirfd: files and symlinks named ".<name>.<hex>.tmp" owned by this
 * user. Only for a directory nobody else writes to (under its lock).
 */
int sf_drop_temps(int dirfd, struct pst_err *e);

/* Exclusive flock(2) on fd; with wait false, -EWOULDBLOCK when held. */
int sf_lock(int fd, bool wait, struct pst_err *e);

/*
 * Open dirfd/name (as sf_openat) and take the exclusive lock, retrying when
 * the name was replaced by a rename between open and lock, so the locked fd
 * is the file currently linked at name.
 */
int sf_open_locked(int dirfd, const char *name, int flags, const struct sf_rule *r,
		   struct stat *st_out, struct pst_err *e);

/* Read all of fd (at most max bytes) into a NUL-terminated malloc'd buffer. */
int sf_read_all(int fd, size_t max, char **out, size_t *out_len, struct pst_err *e);

/* write(2) all of buf, retrying on EINTR and short writes. */
int sf_write_full(int fd, const void *buf, size_t len);

#endif
