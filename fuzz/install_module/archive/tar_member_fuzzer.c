/*
 * The member rules' header stage (member_rules.h) from any bytes. Input: one byte for the member kind,
 * then "<name>\0<link target>". Whatever the rule allows must be a plain
 * relative path under demo-1.0/ with no "." or ".." component, and a refusal
 * must always come with a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "member_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool plain_path_under_top(const char *name)
{
	const char *p;

	if (strncmp(name, "demo-1.0", 8) != 0 || (name[8] != '\0' && name[8] != '/'))
		return false;
	for (p = name; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return strstr(name, "/../") == NULL && strstr(name, "/./") == NULL &&
	       strstr(name, "//") == NULL && (strlen(name) < 3 ||
					      strcmp(name + strlen(name) - 3, "/..") != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum tarball_member_kind kind;
	struct member_facts f = { .perm = 0644, .top = "demo-1.0" };
	struct decision d;
	char *buf, *link;
	bool ok;

	if (size < 1)
		return 0;
	kind = (enum tarball_member_kind)(data[0] % (TARBALL_MEMBER_UNKNOWN + 1));
	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	buf[size] = '\0';
	link = buf + strlen(buf) + (strlen(buf) < size - 1 ? 1 : 0);
	f.name = buf;
	f.kind = kind;
	f.linkname = link;
	ok = member_rules_check(MEMBER_STAGE_HEADER, &f, &d);
	if (!ok && (d.reason[0] == '\0' || d.rule == NULL))
		abort();
	if (ok && (!plain_path_under_top(buf) || kind > TARBALL_MEMBER_HARDLINK))
		abort();
	if (ok && kind == TARBALL_MEMBER_HARDLINK && !plain_path_under_top(link))
		abort();
	if (ok && kind == TARBALL_MEMBER_SYMLINK && link[0] == '/')
		abort();
	free(buf);
	return 0;
}
