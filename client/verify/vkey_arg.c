/* --vkey FILE|KEY, for postern-verify and postern-audit verify (verify.h). */
#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int verify_load_vkey(const char *arg, struct tlog_vkey *k, struct pst_err *e)
{
	char text[TLOG_VKEY_MAX + 2], why[sizeof(e->msg)];
	size_t len;
	FILE *f;

	/* A key has a name, an id and a key joined by '+'; anything else names a file. */
	if (tlog_vkey_parse(arg, strlen(arg), k, e) == 0)
		return 0;
	f = fopen(arg, "re");
	memcpy(why, e->msg, sizeof(why));
	if (f == NULL && strchr(arg, '+') != NULL)
		return pst_fail(e, EINVAL, "%s: %s", arg, why);
	if (f == NULL)
		return pst_fail(e, errno, "%s: neither a key nor a readable file (%s)", arg,
				strerror(errno));
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	if (len > 0 && text[len - 1] == '\n')
		text[--len] = '\0';
	if (tlog_vkey_parse(text, len, k, e) < 0) {
		memcpy(why, e->msg, sizeof(why));
		return pst_fail(e, EINVAL, "%s: %s", arg, why);
	}
	return 0;
}
