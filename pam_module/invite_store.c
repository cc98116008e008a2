/*
 * Invites and enrolments in progress (invite_store.h), on the TOTP store's
 * rules: no symlink followed, nothing unlinked but a temporary name.
 */
#include "invite_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"
#include "totp_store.h"

static const struct sf_new record_new = { .mode = 0600, .uid = 0, .gid = 0 };

/* The alphabet of recovery codes: an invite is typed at the same prompt. */
static const char code_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

int invite_store_open(int storefd, bool create, struct pst_err *e)
{
	return totp_store_subdir(storefd, INVITE_DIR, create, e);
}

int pending_store_open(int storefd, bool create, struct pst_err *e)
{
	return totp_store_subdir(storefd, PENDING_DIR, create, e);
}

int invite_store_read(int invfd, const char *user, int *fd_out, struct invite_record *r,
		      struct pst_err *e)
{
	char *buf;
	size_t len;
	int fd, rc;

	memset(r, 0, sizeof(*r));
	fd = totp_store_load(invfd, user, INVITE_RECORD_MAX, fd_out != NULL, &buf, &len, e);
	if (fd < 0)
		return fd;
	rc = invite_record_parse(buf, len, r, e);
	explicit_bzero(buf, len);
	free(buf);
	if (rc < 0) {
		pst_err_prefix(e, "%s/%s", INVITE_DIR, user);
		close(fd);
		return rc == -ENOENT ? -EINVAL : rc;
	}
	if (fd_out != NULL)
		*fd_out = fd;
	else
		close(fd);
	return 0;
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

int invite_code_new(char code[INVITE_CODE_LEN + 1], struct pst_err *e)
{
	unsigned char rnd[16];
	size_t i, o;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return pst_fail(e, EIO, "getrandom failed");
	for (i = 0, o = 0; i < sizeof(rnd); i++) {
		if (i > 0 && i % 4 == 0)
			code[o++] = '-';
		code[o++] = code_alphabet[rnd[i] & 31];
	}
	code[o] = '\0';
	explicit_bzero(rnd, sizeof(rnd));
	return 0;
}
