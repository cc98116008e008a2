/*
 * Any line, read as syslog and as a journal entry: the reader must never
 * crash, and a line it accepts must give a record whose five leading fields
 * are there and whose values hold no control character and only UTF-8, so
 * it can be printed as is. What it prints about a refused line must be
 * free of control characters too.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "report.h"
#include "text.h"
#include "trail.h"
#include "text_show.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long no_user(const char *user)
{
	return strcmp(user, "alice") == 0 ? 1000 : -1;
}

static void check_printable(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		if (s[i] == '\n' && i + 1 == len)
			break;
		n = text_printable_len((const unsigned char *)s + i, len - i);
		if (n == 0)
			abort();
		i += n;
	}
}

static void check_record(const struct trail_record *r)
{
	size_t i;

	if (r->f.count < 5 || r->event == NULL || r->sid == NULL || strlen(r->sid) != 16)
		abort();
	for (i = 0; i < r->f.count; i++) {
		check_printable(r->f.key[i], strlen(r->f.key[i]));
		check_printable(r->f.value[i], strlen(r->f.value[i]));
	}
}

static void check_report(const char *line, size_t len, const char *why)
{
	char *text = NULL;
	size_t text_len = 0;
	FILE *f = open_memstream(&text, &text_len);

	if (f == NULL)
		return;
	report_suspicious(f, "fuzz", "input", 1, why, line, len);
	fclose(f);
	check_printable(text, text_len);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trail_rules rules = {
		.years = { .year = 2026, .fixed = true },
		.daemon_uid = 999,
		.shell_exe = "/usr/bin/postern-shell",
		.uid_of_user = no_user,
	};
	enum trail_source sources[] = { TRAIL_SYSLOG, TRAIL_JOURNAL };
	struct trail_record r;
	struct pst_err why;
	size_t i;

	for (i = 0; i < 2; i++) {
		switch (trail_read_line((const char *)data, size, sources[i], &rules, &r, &why)) {
		case TRAIL_RECORD:
			check_record(&r);
			trail_record_free(&r);
			break;
		case TRAIL_SUSPICIOUS:
			check_printable(why.msg, strlen(why.msg));
			check_report((const char *)data, size, why.msg);
			break;
		case TRAIL_OTHER:
			break;
		}
	}
	return 0;
}
