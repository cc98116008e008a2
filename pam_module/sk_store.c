/*
 * The security-key records (sk_store.h), on the TOTP store's rules: no
 * symlink followed, nothing unlinked but a temporary name of our own.
 */
#include "sk_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"
#include "totp_store.h"

static const struct sf_new record_new = { .mode = 0600, .uid = 0, .gid = 0 };

int sk_store_open(int storefd, bool create, struct pst_err *e)
{
	return totp_store_subdir(storefd, SK_DIR, create, e);
}

static int parse_sk(const char *buf, size_t len, void *record, struct pst_err *e)
{
	return sk_record_parse(buf, len, record, e);
}

int sk_store_read(int skfd, const char *user, int *fd_out, struct sk_record *r,
		  struct pst_err *e)
{
	memset(r, 0, sizeof(*r));
	return totp_store_read_kind(skfd, SK_DIR, user, SK_RECORD_MAX, fd_out != NULL, fd_out,
				    parse_sk, r, e);
}

static int write_named(int skfd, const char *name, const struct sk_record *r,
		       struct pst_err *e)
{
	char buf[SK_RECORD_MAX];
	int len = sk_record_format(r, buf, sizeof(buf), e);

	if (len < 0)
		return len;
	return sf_write_atomic(skfd, name, buf, (size_t)len, &record_new, e);
}

int sk_store_write(int skfd, const char *user, const struct sk_record *r, struct pst_err *e)
{
	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	return write_named(skfd, user, r, e);
}

int sk_store_create(int skfd, const char *user, const struct sk_record *r, struct pst_err *e)
{
	char name[128], exists[128];
	int rc;

	if (!name_is_user(user))
		return pst_fail(e, EINVAL, "'%s' is not a valid user name", user);
	rc = totp_store_new_name(user, name, sizeof(name), e);
	if (rc < 0)
		return rc;
	rc = write_named(skfd, name, r, e);
	if (rc < 0)
		return rc;
	snprintf(exists, sizeof(exists), "%s: has security keys already", user);
	return totp_store_put_new(skfd, name, user, exists, e);
}

int sk_store_keep(int storefd, int skfd, const char *user, const char *why, char *kept,
		  size_t keptlen, struct pst_err *e)
{
	char label[64];

	snprintf(label, sizeof(label), "sk-%s", why);
	return totp_store_set_aside_in(storefd, skfd, user, label, false, kept, keptlen, e);
}

bool sk_store_key_owner(int skfd, const char *fpr, const char *self, char *owner, size_t len)
{
	struct pst_err e = { "" };
	struct sk_record r;
	struct dirent *de;
	bool found = false;
	DIR *d = fdopendir(dup(skfd));

	while (d != NULL && !found && (de = readdir(d)) != NULL) {
		if (!name_is_user(de->d_name) || strcmp(de->d_name, self) == 0 ||
		    sk_store_read(skfd, de->d_name, NULL, &r, &e) < 0)
			continue;
		found = sk_record_find(&r, fpr) != NULL && str_copy(owner, len, de->d_name);
	}
	if (d != NULL)
		closedir(d);
	return found;
}
