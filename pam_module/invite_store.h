/*
 * Invites and enrolments in progress, two directories of the TOTP store on
 * its rules (totp_store.h): <store>/.invite/<user> (invite_record.h) and
 * <store>/.pending/<user>, the TOTP record made at the invite login, which
 * becomes <store>/<user> when a code from it logs the user in. Both are
 * root:root 0700 directories of root:root 0600 records, changed only under
 * the record's lock by atomic replacement; used-up, revoked and replaced
 * records are moved to the store's .attic, never unlinked.
 */
#ifndef POSTERN_INVITE_STORE_H
#define POSTERN_INVITE_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"
#include "invite_record.h"

#define INVITE_DIR ".invite"
#define PENDING_DIR ".pending"

/* <store>/.invite, made when create is set: fd, -ENOENT, or another -errno. */
int invite_store_open(int storefd, bool create, struct pst_err *e);

/* <store>/.pending, likewise. */
int pending_store_open(int storefd, bool create, struct pst_err *e);

/*
 * Open and parse user's invite; with fd_out, the returned fd holds its
 * exclusive lock until closed. -ENOENT: no invite.
 */
int invite_store_read(int invfd, const char *user, int *fd_out, struct invite_record *r,
		      struct pst_err *e);

/* Replace (or create) user's invite atomically (the caller holds its lock, if any). */
int invite_store_write(int invfd, const char *user, const struct invite_record *r,
		       struct pst_err *e);

/*
 * Move user's record out of dirfd (the invite or the pending directory) to
 * <store>/.attic/<user>.<label>-<why>.<time>; kept gets the attic name.
 */
int invite_store_retire(int storefd, int dirfd, const char *label, const char *user,
			const char *why, char *kept, size_t keptlen, struct pst_err *e);

#endif
