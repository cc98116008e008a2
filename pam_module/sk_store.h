/*
 * The security-key records: <store>/.sk/<user> (sk_record.h), a directory
 * of the TOTP store with the same rules (totp_store.h): root:root 0700,
 * records root:root 0600 opened with O_NOFOLLOW and checked on the fd,
 * changed only under the record's lock by atomic replacement, a replaced
 * record kept in the store's .attic, never unlinked.
 */
#ifndef POSTERN_SK_STORE_H
#define POSTERN_SK_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"
#include "sk_record.h"

#define SK_DIR ".sk"

/* <store>/.sk, made when create is set. fd, -ENOENT (no key was ever
 * enrolled), or another -errno. */
int sk_store_open(int storefd, bool create, struct pst_err *e);

/*
 * Open and parse user's record; with fd_out, the returned fd holds its
 * exclusive lock until closed. -ENOENT: no security key enrolled.
 */
int sk_store_read(int skfd, const char *user, int *fd_out, struct sk_record *r,
		  struct pst_err *e);

/* Replace user's record atomically (the caller holds its lock). */
int sk_store_write(int skfd, const char *user, const struct sk_record *r, struct pst_err *e);

/* Write user's first record, only if there is none: -EEXIST when there is. */
int sk_store_create(int skfd, const char *user, const struct sk_record *r, struct pst_err *e);

/* Keep a copy of user's current record in <store>/.attic/<user>.sk.<why>.<time>. */
int sk_store_keep(int storefd, int skfd, const char *user, const char *why, char *kept,
		  size_t keptlen, struct pst_err *e);

/*
 * A security key is one person's device: enrolled for a second user, either
 * could pass as the other wherever both keys are authorized. Whether fpr is
 * in another user's record than self's, that user's name into owner.
 * Unreadable records are passed over (enroll-key and the module read them
 * on their own and refuse them there).
 */
bool sk_store_key_owner(int skfd, const char *fpr, const char *self, char *owner, size_t len);

#endif
