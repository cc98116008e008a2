/*
 * Parses and formats one user's security-key record (sk_record.h). Like the
 * TOTP record, it refuses what it does not fully understand.
 */
#include "sk_record.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 256
/* "key" TYPE FPR CREATED LAST_USED COMMENT */
#define KEY_WORDS 6

static const char *const sk_types[] = {
	"sk-ssh-ed25519@openssh.com",
	"sk-ecdsa-sha2-nistp256@openssh.com",
};

struct parse_state {
	struct sk_record *r;
	bool seen_version, seen_require;
	unsigned line;
	struct pst_err *e;
};

bool sk_key_type_valid(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof(sk_types) / sizeof(sk_types[0]); i++)
		if (strcmp(type, sk_types[i]) == 0)
			return true;
	return false;
}

bool sk_comment_valid(const char *c)
{
	size_t n = strlen(c), i;

	if (n == 0 || n > SK_COMMENT_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((c[i] >= 'A' && c[i] <= 'Z') || (c[i] >= 'a' && c[i] <= 'z') ||
		      (c[i] >= '0' && c[i] <= '9') || strchr("._@+:=-", c[i]) != NULL))
			return false;
	return true;
}

struct sk_key *sk_record_find(struct sk_record *r, const char *fpr)
{
	size_t i;

	for (i = 0; i < r->nkeys; i++)
		if (strcmp(r->keys[i].fpr, fpr) == 0)
			return &r->keys[i];
	return NULL;
}

static int fail(struct parse_state *p, const char *what)
{
	return pst_fail(p->e, EINVAL, "line %u: %s", p->line, what);
}

static int parse_time(struct parse_state *p, const char *v, int64_t *out)
{
	const char *why;
	uint64_t n;

	if (record_decimal(v, INT64_MAX / 2, &n, &why) < 0)
		return fail(p, why);
	*out = (int64_t)n;
	return 0;
}

static int parse_key(struct parse_state *p, char **w)
{
	struct sk_key *k;

	if (p->r->nkeys == SK_KEYS_MAX)
		return fail(p, "too many keys");
	if (!sk_key_type_valid(w[1]))
		return fail(p, "not a security key type");
	if (!totp_fingerprint_valid(w[2]))
		return fail(p, "key is not a SHA256 fingerprint");
	if (sk_record_find(p->r, w[2]) != NULL)
		return fail(p, "the same key twice");
	if (strcmp(w[5], "-") != 0 && !sk_comment_valid(w[5]))
		return fail(p, "comment is not one word of letters, digits and ._@+:=-");
	k = &p->r->keys[p->r->nkeys];
	if (parse_time(p, w[3], &k->created) < 0 || parse_time(p, w[4], &k->last_used) < 0)
		return -EINVAL;
	memcpy(k->type, w[1], strlen(w[1]) + 1);
	memcpy(k->fpr, w[2], strlen(w[2]) + 1);
	if (strcmp(w[5], "-") != 0)
		memcpy(k->comment, w[5], strlen(w[5]) + 1);
	p->r->nkeys++;
	return 0;
}

/* Words separated by exactly one space; NULL-terminated up to max. */
static size_t split_words(char *line, char **w, size_t max)
{
	size_t n = 0;
	char *s = line;

	while (n < max) {
		w[n++] = s;
		s = strchr(s, ' ');
		if (s == NULL)
			return n;
		*s++ = '\0';
	}
	return n + 1;   /* more words than max */
}

static int parse_line(struct parse_state *p, char *line)
{
	char *w[KEY_WORDS];
	size_t i, n = split_words(line, w, KEY_WORDS);

	for (i = 0; i < n && i < KEY_WORDS; i++)
		if (w[i][0] == '\0')
			return fail(p, "empty word (one space between words, none at the ends)");
	if (!p->seen_version) {
		if (n != 2 || strcmp(w[0], "version") != 0)
			return fail(p, "the record must start with its version");
		if (strcmp(w[1], "1") != 0)
			return fail(p, "unsupported record version (this postern reads version 1)");
		p->seen_version = true;
		return 0;
	}
	if (n == 2 && strcmp(w[0], "require") == 0) {
		if (strcmp(w[1], "security-key") != 0)
			return fail(p, "require: only security-key is known");
		if (p->seen_require)
			return fail(p, "require given twice");
		p->seen_require = p->r->require = true;
		return 0;
	}
	if (n == KEY_WORDS && strcmp(w[0], "key") == 0)
		return parse_key(p, w);
	return fail(p, "unknown line");
}

int sk_record_parse(const char *buf, size_t len, struct sk_record *r, struct pst_err *e)
{
	struct parse_state p = { r, false, false, 0, e };
	char line[LINE_MAX_LEN + 1];
	size_t pos = 0, n;
	const char *nl;
	int rc;

	memset(r, 0, sizeof(*r));
	if (memchr(buf, '\0', len) != NULL)
		return pst_fail(e, EINVAL, "NUL byte in the record");
	while (pos < len) {
		p.line++;
		nl = memchr(buf + pos, '\n', len - pos);
		if (nl == NULL)
			return fail(&p, "the last line has no newline");
		n = (size_t)(nl - (buf + pos));
		if (n > LINE_MAX_LEN)
			return fail(&p, "line too long");
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		rc = parse_line(&p, line);
		if (rc < 0) {
			memset(r, 0, sizeof(*r));
			return rc;
		}
		pos += n + 1;
	}
	if (!p.seen_version)
		return pst_fail(e, EINVAL, "empty record (no version line)");
	return 0;
}

static bool append(char *out, size_t outlen, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool append(char *out, size_t outlen, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + *pos, outlen - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= outlen - *pos)
		return false;
	*pos += (size_t)n;
	return true;
}

static bool key_valid(const struct sk_key *k)
{
	return sk_key_type_valid(k->type) && totp_fingerprint_valid(k->fpr) &&
	       (k->comment[0] == '\0' || sk_comment_valid(k->comment)) &&
	       k->created >= 0 && k->created <= INT64_MAX / 2 &&
	       k->last_used >= 0 && k->last_used <= INT64_MAX / 2;
}

int sk_record_format(const struct sk_record *r, char *out, size_t outlen, struct pst_err *e)
{
	size_t pos = 0, i;

	if (r->nkeys > SK_KEYS_MAX)
		return pst_fail(e, EINVAL, "too many keys");
	if (!append(out, outlen, &pos, "version %d\n", SK_RECORD_VERSION) ||
	    (r->require && !append(out, outlen, &pos, "require security-key\n")))
		return pst_fail(e, ENOSPC, "record too large");
	for (i = 0; i < r->nkeys; i++) {
		const struct sk_key *k = &r->keys[i];

		if (!key_valid(k))
			return pst_fail(e, EINVAL, "key %zu is not valid", i + 1);
		if (!append(out, outlen, &pos, "key %s %s %" PRId64 " %" PRId64 " %s\n", k->type,
			    k->fpr, k->created, k->last_used, k->comment[0] ? k->comment : "-"))
			return pst_fail(e, ENOSPC, "record too large");
	}
	return (int)pos;
}
