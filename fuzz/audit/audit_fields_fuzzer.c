/*
 * The record parser on its own: whatever it accepts has printable keys and
 * values, at most FIELDS_MAX fields, and parses the same when the display
 * form is quoted back the way audit.c does (the parse is a function of the
 * fields, not of chance). Every value is also read as an audit list
 * (common/audit_list.h, upload_done's files=): what reads as one must be
 * written back byte for byte by the writer, so a list has one spelling
 * and one name holding ',' cannot read as two.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "audit_list.h"
#include "fields.h"
#include "text_show.h"

static void check_list(const char *value)
{
	char item[AUDIT_VALUE_MAX + 1], again[AUDIT_RECORD_MAX] = "";
	const char *cursor = value;
	bool fits = true;
	int rc;

	while ((rc = audit_list_next(&cursor, item, sizeof(item))) == 1)
		fits = fits && audit_list_add(again, sizeof(again), item);
	if (rc == 0 && fits && strcmp(again, strcmp(value, "-") == 0 ? "" : value) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printable(const char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		n = text_printable_len((const unsigned char *)s + i, len - i);
		if (n == 0)
			abort();
		i += n;
	}
}

/* key="display with " and \ escaped again" ..., in out (large enough). */
static size_t requote(const struct audit_fields *f, char *out)
{
	size_t i, len = 0;
	const char *v;

	for (i = 0; i < f->count; i++) {
		len += (size_t)sprintf(out + len, "%s%s=\"", i > 0 ? " " : "", f->key[i]);
		for (v = f->value[i]; *v != '\0'; v++) {
			if (*v == '"')
				out[len++] = '\\';
			out[len++] = *v;
		}
		out[len++] = '"';
	}
	out[len] = '\0';
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_fields f, again;
	struct pst_err e;
	char *quoted;
	size_t i, len;

	memset(&again, 0, sizeof(again));
	if (fields_parse(&f, (const char *)data, size, &e) == 0) {
		if (f.count == 0 || f.count > FIELDS_MAX)
			abort();
		quoted = malloc(2 * size + 4 * f.count + 1);
		if (quoted == NULL)
			abort();
		for (i = 0; i < f.count; i++) {
			check_printable(f.key[i]);
			check_printable(f.value[i]);
			check_list(f.value[i]);
		}
		len = requote(&f, quoted);
		/* requoting may only lengthen values past the limits */
		if (len <= FIELDS_RECORD_MAX && fields_parse(&again, quoted, len, &e) == 0) {
			if (again.count != f.count)
				abort();
			for (i = 0; i < f.count; i++) {
				if (strcmp(again.key[i], f.key[i]) != 0 || strcmp(again.value[i], f.value[i]) != 0)
					abort();
			}
		}
		fields_free(&again);
		free(quoted);
	}
	fields_free(&f);
	return 0;
}
