/*
 * Parses and formats one user's invite record (invite_record.h): fixed
 * lines in a fixed order, so there is exactly one text for a record.
 */
#include "invite_record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 192

/* The required lines, in order; then "key TYPE FPR" may follow. */
enum field { F_VERSION, F_CREATED, F_EXPIRES, F_HASH, F_FAILURES, F_ADMITTED, F_KEY, F_END };

static const char *const field_names[] = {
	"version", "created", "expires", "hash", "failures", "admitted", "key",
};

struct parse_state {
	struct invite_record *r;
	enum field next;
	unsigned line;
	struct pst_err *e;
};

static int fail(struct parse_state *p, const char *what)
{
	return pst_fail(p->e, EINVAL, "line %u: %s", p->line, what);
}

static int parse_number(struct parse_state *p, const char *v, uint64_t max, uint64_t *out)
{
	const char *why;

	return record_decimal(v, max, out, &why) < 0 ? fail(p, why) : 0;
}

static int parse_time(struct parse_state *p, const char *v, int64_t *out)
{
	uint64_t n;

	if (parse_number(p, v, INT64_MAX / 2, &n) < 0)
		return -EINVAL;
	*out = (int64_t)n;
	return 0;
}

static int parse_key(struct parse_state *p, char *v)
{
	char *fpr = strchr(v, ' ');

	if (fpr == NULL)
		return fail(p, "key: expected TYPE FINGERPRINT");
	*fpr++ = '\0';
	if (!sk_key_type_valid(v))
		return fail(p, "key: not a security key type");
	if (!totp_fingerprint_valid(fpr))
		return fail(p, "key: not a SHA256 fingerprint");
	memcpy(p->r->key_type, v, strlen(v) + 1);
	memcpy(p->r->key_fpr, fpr, strlen(fpr) + 1);
	return 0;
}

static int parse_value(struct parse_state *p, enum field f, char *v)
{
	uint64_t n;

	switch (f) {
	case F_VERSION:
		return strcmp(v, "1") == 0 ? 0
			: fail(p, "unsupported record version (this postern reads version 1)");
	case F_CREATED:
		return parse_time(p, v, &p->r->created);
	case F_EXPIRES:
		return parse_time(p, v, &p->r->expires);
	case F_HASH:
		if (!totp_hash_valid(v))
			return fail(p, "hash: not a yescrypt hash");
		memcpy(p->r->hash, v, strlen(v) + 1);
		return 0;
	case F_FAILURES:
		if (parse_number(p, v, 1000000, &n) < 0)
			return -EINVAL;
		p->r->failures = (unsigned)n;
		return 0;
	case F_ADMITTED:
		return parse_time(p, v, &p->r->admitted);
	case F_KEY:
		return parse_key(p, v);
	case F_END:
		break;
	}
	return fail(p, "a line after the last one");
}

static int parse_line(struct parse_state *p, char *line)
{
	char *v = strchr(line, ' ');
	const char *want;

	if (p->next == F_END)
		return fail(p, "a line after the key line");
	want = field_names[p->next];
	if (v == NULL || v[1] == '\0' || (size_t)(v - line) != strlen(want) ||
	    strncmp(line, want, strlen(want)) != 0)
		return p->next == F_VERSION ? fail(p, "the record must start with its version")
					    : fail(p, "not the line expected here (each line once, in order)");
	*v++ = '\0';
	if (parse_value(p, p->next, v) < 0)
		return -EINVAL;
	p->next++;
	return 0;
}

static int parse_lines(struct parse_state *p, const char *buf, size_t len)
{
	char line[LINE_MAX_LEN + 1];
	size_t pos = 0, n;
	const char *nl;

	if (memchr(buf, '\0', len) != NULL)
		return pst_fail(p->e, EINVAL, "NUL byte in the record");
	while (pos < len) {
		p->line++;
		nl = memchr(buf + pos, '\n', len - pos);
		if (nl == NULL)
			return fail(p, "the last line has no newline");
		n = (size_t)(nl - (buf + pos));
		if (n > LINE_MAX_LEN)
			return fail(p, "line too long");
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		if (parse_line(p, line) < 0)
			return -EINVAL;
		pos += n + 1;
	}
	if (p->next < F_KEY)
		return pst_fail(p->e, EINVAL, "the record ends before its '%s' line",
				field_names[p->next]);
	return 0;
}

int invite_record_parse(const char *buf, size_t len, struct invite_record *r,
			struct pst_err *e)
{
	struct parse_state p = { r, F_VERSION, 0, e };
	int rc;

	memset(r, 0, sizeof(*r));
	rc = parse_lines(&p, buf, len);
	if (rc < 0)
		memset(r, 0, sizeof(*r));
	return rc;
}

static bool record_valid(const struct invite_record *r)
{
	bool key = r->key_type[0] != '\0' || r->key_fpr[0] != '\0';

	return r->created >= 0 && r->created <= INT64_MAX / 2 &&
	       r->expires >= 0 && r->expires <= INT64_MAX / 2 &&
	       r->admitted >= 0 && r->admitted <= INT64_MAX / 2 &&
	       r->failures <= 1000000 && totp_hash_valid(r->hash) &&
	       (!key || (sk_key_type_valid(r->key_type) && totp_fingerprint_valid(r->key_fpr)));
}

int invite_record_format(const struct invite_record *r, char *out, size_t outlen,
			 struct pst_err *e)
{
	int n;

	if (!record_valid(r))
		return pst_fail(e, EINVAL, "the invite record is not valid");
	n = snprintf(out, outlen,
		     "version %d\ncreated %" PRId64 "\nexpires %" PRId64 "\nhash %s\n"
		     "failures %u\nadmitted %" PRId64 "\n",
		     INVITE_RECORD_VERSION, r->created, r->expires, r->hash, r->failures,
		     r->admitted);
	if (n > 0 && (size_t)n < outlen && r->key_type[0] != '\0')
		n += snprintf(out + n, outlen - (size_t)n, "key %s %s\n", r->key_type, r->key_fpr);
	if (n < 0 || (size_t)n >= outlen)
		return pst_fail(e, ENOSPC, "the invite record does not fit in %zu bytes", outlen);
	return n;
}
