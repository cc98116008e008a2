/*
 * The TOTP store: a root:root 0700 directory holding one root:root 0600
 * record per user, named by the user, so a lookup is one openat whatever
 * the number of users.
 *
 * MUST: reach the store only through a path where every directory is
 * root-owned and not group/other writable (SF_TRUSTED_PATH); open records
 * with O_NOFOLLOW relative to the store fd and check type, owner, mode and
 * size on the open fd; change a record only while holding its exclusive
 * lock, by atomic replacement. Records that are replaced or revoked move to
 * <store>/.attic/ — never unlinked.
 * MUST NOT: modify anything it refused to read.
 */
#ifndef POSTERN_TOTP_STORE_H
#define POSTERN_TOTP_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"
#include "totp_record.h"

#define TOTP_ATTIC ".attic"

/* Open the store directory (root:root, no group/other bits). fd or -errno. */
int totp_store_open(const char *path, struct pst_err *e);

/* As totp_store_open, creating the last component (0700) when missing. */
int totp_store_open_create(const char *path, struct pst_err *e);

/*
 * Open and parse user's record. With lock, the returned *fd_out holds the
 * record's exclusive lock until closed (pass fd_out NULL without lock).
 * -ENOENT: not enrolled. Other errors: the record is unusable.
 */
int totp_store_read(int storefd, const char *user, bool lock, int *fd_out,
		    struct totp_record *r, struct pst_err *e);

/*
 * Open dirfd/user (the store or one of its directories) as a record of at
 * most max bytes, checked like every record, with its exclusive lock when
 * lock is set, and read it into *buf (malloc'd, NUL-terminated; the caller
 * wipes and frees it). Returns the open fd, or -errno.
 */
int totp_store_load(int dirfd, const char *user, size_t max, bool lock, char **buf,
		    size_t *len, struct pst_err *e);

/* One kind of record's parser (totp_record_parse, sk_record_parse, ...). */
typedef int (*store_parse_fn)(const char *buf, size_t len, void *record, struct pst_err *e);

/*
 * totp_store_load() and parse the text into record, wiping the text; an
 * error names the record as LABEL/USER (USER when label is NULL). With
 * fd_out the open fd is returned there (holding the lock, if taken).
 */
int totp_store_read_kind(int dirfd, const char *label, const char *user, size_t max,
			 bool lock, int *fd_out, store_parse_fn parse, void *record,
			 struct pst_err *e);

/*
 * Take the exclusive lock of user's record without parsing it (to replace
 * an unreadable one). fd or -errno; -ENOENT when there is none.
 */
int totp_store_lock(int storefd, const char *user, struct pst_err *e);

/* Atomically replace user's record (the caller holds its lock, if any). */
int totp_store_write(int storefd, const char *user, const struct totp_record *r,
		     struct pst_err *e);

/*
 * Write user's first record: atomically, and only if there is none, so two
 * enrolments at once cannot replace each other. -EEXIST when there is one.
 */
int totp_store_create(int storefd, const char *user, const struct totp_record *r,
		      struct pst_err *e);

/*
 * A directory of the store for records of another kind (".sk"): a dot name,
 * root:root 0700 like the store, made when create is set. fd or -errno
 * (-ENOENT when missing and not created).
 */
int totp_store_subdir(int storefd, const char *name, bool create, struct pst_err *e);

/*
 * For a first record of another kind: a temporary dot name for user's new
 * record in buf, and putting the written one in place as user only if there
 * is none (-EEXIST, with the message exists), then syncing dirfd.
 */
int totp_store_new_name(const char *user, char *buf, size_t len, struct pst_err *e);
int totp_store_put_new(int dirfd, const char *tmpname, const char *user, const char *exists,
		       struct pst_err *e);

/*
 * Keep the current record of user in <store>/.attic/<user>.<why>.<time>:
 * moved there (move true), or hard-linked so the name keeps working until
 * it is replaced. The attic name is written to kept (may be NULL).
 */
int totp_store_set_aside(int storefd, const char *user, const char *why, bool move,
			 char *kept, size_t keptlen, struct pst_err *e);

/* The same for the record user in dirfd, a directory of the store (totp_store_subdir). */
int totp_store_set_aside_in(int storefd, int dirfd, const char *user, const char *why,
			    bool move, char *kept, size_t keptlen, struct pst_err *e);

#endif
