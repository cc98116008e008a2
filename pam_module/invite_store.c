/*
 * Invites and enrolments in progress (invite_store.h), on the TOTP store's
 * rules: no symlink followed, nothing unlinked but a temporary name.
 */
#include "invite_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"
#include "totp_store.h"

static const struct sf_new record_new = { .mode = 0600, .uid = 0, .gid = 0 };

int invite_store_open(int storefd, bool create, struct pst_err *e)
{
	return totp_store_subdir(storefd, INVITE_DIR, create, e);
}

int pending_store_open(int storefd, bool create, struct pst_err *e)
{
	return totp_store_subdir(storefd, PENDING_DIR, create, e);
}

static int parse_invite(const char *buf, size_t len, void *record, struct pst_err *e)
{
	return invite_record_parse(buf, len, record, e);
}

int invite_store_read(int invfd, const char *user, int *fd_out, struct invite_record *r,
		      struct pst_err *e)
{
	memset(r, 0, sizeof(*r));
	return totp_store_read_kind(invfd, INVITE_DIR, user, INVITE_RECORD_MAX, fd_out != NULL,
				    fd_out, parse_invite, r, e);
}

int invite_store_write(int invfd, const char *user, const struct invite_record *r,
		       struct pst_err *e)
{
	char buf[INVITE_RECORD_MAX];
	int len;

	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	len = invite_record_format(r, buf, sizeof(buf), e);
	if (len < 0)
		return len;
	return sf_write_atomic(invfd, user, buf, (size_t)len, &record_new, e);
}

int invite_store_retire(int storefd, int dirfd, const char *label, const char *user,
			const char *why, char *kept, size_t keptlen, struct pst_err *e)
{
	char full[64];

	snprintf(full, sizeof(full), "%s-%s", label, why);
	return totp_store_set_aside_in(storefd, dirfd, user, full, true, kept, keptlen, e);
}
