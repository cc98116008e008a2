/*
 * The folded-namespace rules (checker/tarball_names.c) from any bytes.
 * Input: members separated by '\n', each one byte for the kind, then
 * "<name>\0<link target>". Each member that tarball_member_check() allows
 * goes through tarball_names_add(), as tarball.c does. A refusal must come
 * with a reason; an accepted member holds no backslash; and no two
 * accepted members may have the same name, unless both are directories.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tarball.h"
#include "tarball_names.h"

#define MEMBERS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_member(struct tarball_names *names, char *rec, size_t len, char **seen,
		       size_t *n_seen)
{
	enum tarball_member_kind kind;
	struct pst_err why;
	char *name, *link;
	size_t i;
	int rc;

	if (len < 1)
		return;
	kind = (enum tarball_member_kind)((unsigned char)rec[0] % (TARBALL_MEMBER_UNKNOWN + 1));
	name = rec + 1;
	link = memchr(name, '\0', len - 1) != NULL ? name + strlen(name) + 1 : rec + len;
	if (!tarball_member_check(name, kind, link, "demo", "1.0", &why))
		return;
	why.msg[0] = '\0';
	rc = tarball_names_add(names, name, kind, link, &why);
	if (rc == -EBADMSG && why.msg[0] == '\0')
		abort();
	if (rc != 0)
		return;
	if (strchr(name, '\\') != NULL || ((kind == TARBALL_MEMBER_SYMLINK ||
	    kind == TARBALL_MEMBER_HARDLINK) && strchr(link, '\\') != NULL))
		abort();
	for (i = 0; i < *n_seen; i++)
		if (strcmp(seen[i], name) == 0)
			abort();
	if (*n_seen < MEMBERS_MAX && kind != TARBALL_MEMBER_DIR)
		seen[(*n_seen)++] = name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tarball_names *names = tarball_names_new();
	char *buf = malloc(size + 2), *rec, *end, *seen[MEMBERS_MAX];
	size_t n_seen = 0;

	if (names == NULL || buf == NULL) {
		free(buf);
		tarball_names_free(names);
		return 0;
	}
	memcpy(buf, data, size);
	buf[size] = '\n';
	buf[size + 1] = '\0';
	for (rec = buf; rec < buf + size; rec = end + 1) {
		end = memchr(rec, '\n', (size_t)(buf + size + 1 - rec));
		*end = '\0';
		one_member(names, rec, (size_t)(end - rec), seen, &n_seen);
	}
	tarball_names_free(names);
	free(buf);
	return 0;
}
