/*
 * The member rules with the folded namespace of the earlier members
 * (archive/member_rules.h, archive/tarball_names.c) from any bytes.
 * Input: members separated by '\n', each one byte for the kind, then
 * "<name>\0<link target>". Each member goes through both stages, the
 * namespace looked up in between, as tarball.c does. A refusal must come
 * with a reason; an accepted member holds no backslash; and no two
 * accepted members may have the same name, unless both are directories.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "member_rules.h"
#include "tarball_names.h"

#define MEMBERS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Both stages, as tarball.c asks them; 0 when allowed and remembered. */
static int member_judged(struct tarball_names *names, struct member_facts *f)
{
	struct decision d;
	int rc;

	if (!member_rules_check(MEMBER_STAGE_HEADER, f, &d))
		return -EBADMSG;
	rc = tarball_names_look(names, f->name, f->kind, f->linkname, &f->seen);
	if (rc != 0)
		return rc;
	if (!member_rules_check(MEMBER_STAGE_EARLIER, f, &d)) {
		if (d.reason[0] == '\0' || d.rule == NULL)
			abort();
		return -EBADMSG;
	}
	return tarball_names_remember(names, f->name, f->kind);
}

static void one_member(struct tarball_names *names, char *rec, size_t len, const char **seen,
		       size_t *n_seen)
{
	struct member_facts f = { .perm = 0644, .top = "demo-1.0" };
	size_t i;

	if (len < 1)
		return;
	f.kind = (enum tarball_member_kind)((unsigned char)rec[0] % (TARBALL_MEMBER_UNKNOWN + 1));
	f.name = rec + 1;
	f.linkname = memchr(f.name, '\0', len - 1) != NULL ? f.name + strlen(f.name) + 1 : rec + len;
	if (member_judged(names, &f) != 0)
		return;
	if (strchr(f.name, '\\') != NULL || ((f.kind == TARBALL_MEMBER_SYMLINK ||
	    f.kind == TARBALL_MEMBER_HARDLINK) && strchr(f.linkname, '\\') != NULL))
		abort();
	for (i = 0; i < *n_seen; i++)
		if (strcmp(seen[i], f.name) == 0)
			abort();
	if (*n_seen < MEMBERS_MAX && f.kind != TARBALL_MEMBER_DIR)
		seen[(*n_seen)++] = f.name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tarball_names *names = tarball_names_new();
	char *buf = malloc(size + 2), *rec, *end;
	const char *seen[MEMBERS_MAX];
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
