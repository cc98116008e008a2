/* Files or standard input, line by line, to records for the query; it never
 * counts a line trail.c calls suspicious, and says which it dropped. */
#include "input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define PROG "postern-audit"
/* Longer than any syslog line carrying a 2 KiB record, and than a journal
 * entry that has it escaped as \u00XX. */
#define LINE_MAX_BYTES 65536

struct line {
	char *buf;
	size_t len;
	bool overlong;       /* the rest past LINE_MAX_BYTES was skipped */
	bool newline;        /* ended in '\n' (a last line may not) */
};

/* One line, without its '\n'; false at end of file. */
static bool read_line(FILE *f, struct line *l)
{
	int c;

	l->len = 0;
	l->overlong = false;
	l->newline = false;
	while ((c = getc_unlocked(f)) != EOF) {
		if (c == '\n') {
			l->newline = true;
			return true;
		}
		if (l->len < LINE_MAX_BYTES)
			l->buf[l->len++] = (char)c;
		else
			l->overlong = true;
	}
	return l->len > 0 || l->overlong;
}

static enum trail_source source_of(const struct input_options *in, const struct line *l)
{
	if (in->format == INPUT_JOURNAL)
		return TRAIL_JOURNAL;
	if (in->format == INPUT_SYSLOG)
		return TRAIL_SYSLOG;
	return l->len > 0 && l->buf[0] == '{' ? TRAIL_JOURNAL : TRAIL_SYSLOG;
}

static void suspicious(struct input_stats *stats, const char *name, unsigned long n,
		       const char *why, const struct line *l)
{
	stats->suspicious++;
	report_suspicious(stderr, PROG, name, n, why, l->buf, l->len);
}

static int read_stream(FILE *f, const char *name, const struct input_options *in,
		       const struct query *q, struct record_set *set,
		       struct input_stats *stats)
{
	struct line l = { .buf = malloc(LINE_MAX_BYTES) };
	enum trail_source source = TRAIL_SYSLOG;
	struct trail_record r;
	struct pst_err why;
	unsigned long n = 0;
	int rc = 0;

	if (l.buf == NULL)
		return -ENOMEM;
	while (rc == 0 && read_line(f, &l)) {
		if (++n == 1)
			source = source_of(in, &l);
		if (l.overlong) {
			suspicious(stats, name, n, "line longer than 64 KiB", &l);
			continue;
		}
		if (!l.newline) {
			suspicious(stats, name, n, "last line has no newline (cut short?)", &l);
			continue;
		}
		switch (trail_read_line(l.buf, l.len, source, &in->rules, &r, &why)) {
		case TRAIL_SUSPICIOUS:
			suspicious(stats, name, n, why.msg, &l);
			break;
		case TRAIL_OTHER:
			break;
		case TRAIL_RECORD:
			stats->records++;
			stats->unverified += !r.verified;
			if (query_matches(q, &r))
				rc = record_set_add(set, &r, name, n);
			trail_record_free(&r);
			break;
		}
	}
	free(l.buf);
	return rc;
}

static int read_file(const char *path, const struct input_options *in, const struct query *q,
		     struct record_set *set, struct input_stats *stats)
{
	unsigned long unverified = stats->unverified;
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "(stdin)" : path;
	FILE *f = is_stdin ? stdin : fopen(path, "re");
	int rc;

	if (f == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	rc = read_stream(f, name, in, q, set, stats);
	if (rc == 0 && ferror(f)) {
		fprintf(stderr, PROG ": %s: read error\n", name);
		rc = -EIO;
	}
	if (!is_stdin)
		fclose(f);
	if (rc == 0 && !in->quiet && stats->unverified > unverified)
		fprintf(stderr, PROG ": note: %s: syslog does not say who wrote a line: its %lu records are unverified (journalctl -o json gives verified ones)\n",
			name, stats->unverified - unverified);
	return rc;
}

int input_read_all(const struct input_options *in, const struct query *q,
		   char **files, int nfiles, struct record_set *set,
		   struct input_stats *stats)
{
	int i, rc;

	if (nfiles == 0)
		return read_file("-", in, q, set, stats);
	for (i = 0; i < nfiles; i++) {
		rc = read_file(files[i], in, q, set, stats);
		if (rc != 0)
			return rc;
	}
	return 0;
}
