/*
 * The PAM service file parser (policy/pam_file.c) on any bytes: no crash,
 * and every rule it hands out is one it could have read: a known control,
 * a non-empty module (or included name), a type for every rule but
 * @include, and a line number that never goes back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pam_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int rule_sane(const struct pam_line *l, void *ctx)
{
	unsigned *last = ctx;

	if (l->lineno < *last || l->module[0] == '\0' || l->control > PAM_CTL_DIRECTIVE ||
	    (l->control == PAM_CTL_DIRECTIVE) != (l->type[0] == '\0') ||
	    (l->control == PAM_CTL_BRACKET && l->control_text[0] != '[') ||
	    strchr(l->module, ' ') != NULL)
		abort();
	*last = l->lineno;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned last = 0;
	struct pst_err e;

	if (pam_text_parse((const char *)data, size, rule_sane, &last, &e) < 0 &&
	    memchr(e.msg, '\0', sizeof(e.msg)) == NULL)
		abort();
	if (size > 0)
		pam_name_ok(memchr(data, '\0', size) != NULL ? (const char *)data : "x");
	return 0;
}
