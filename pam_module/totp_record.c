/*
 * Parses and formats one user's TOTP record (totp_record.h). It must refuse what
 * it does not fully understand, never half-trust a record.
 */
#include "totp_record.h"

#include <errno.h>
#include <inttypes.h>
#include <liboath/oath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 256

enum field {
	F_VERSION, F_ALGORITHM, F_DIGITS, F_PERIOD, F_SECRET, F_CREATED,
	F_LAST_STEP, F_LAST_SUCCESS, F_FAILURES, F_LOCKED_UNTIL, F_KEY, F_RECOVERY,
	F_COUNT,
};

static const char *const field_names[F_COUNT] = {
	"version", "algorithm", "digits", "period", "secret", "created",
	"last_step", "last_success", "failures", "locked_until", "key", "recovery",
};

struct parse_state {
	struct totp_record *r;
	unsigned seen;              /* bit per field given once */
	unsigned line;
	struct pst_err *e;
};

const char *totp_alg_name(enum totp_alg alg)
{
	switch (alg) {
	case TOTP_SHA1: return "SHA1";
	case TOTP_SHA256: return "SHA256";
	case TOTP_SHA512: return "SHA512";
	}
	return "?";
}

bool totp_alg_parse(const char *name, enum totp_alg *out)
{
	if (strcmp(name, "SHA1") == 0)
		*out = TOTP_SHA1;
	else if (strcmp(name, "SHA256") == 0)
		*out = TOTP_SHA256;
	else if (strcmp(name, "SHA512") == 0)
		*out = TOTP_SHA512;
	else
		return false;
	return true;
}

size_t totp_alg_secret_len(enum totp_alg alg)
{
	switch (alg) {
	case TOTP_SHA1: return 20;
	case TOTP_SHA256: return 32;
	case TOTP_SHA512: return 64;
	}
	return 64;
}

static bool is_b64_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '/';
}

bool totp_fingerprint_valid(const char *s)
{
	size_t i;

	if (strncmp(s, "SHA256:", 7) != 0)
		return false;
	for (i = 0; i < 43; i++)
		if (!is_b64_char(s[7 + i]))
			return false;
	return s[7 + 43] == '\0';
}

int record_decimal(const char *v, uint64_t max, uint64_t *out, const char **why)
{
	unsigned long long n;
	char *end;

	*why = "not a decimal number";
	if (v[0] < '0' || v[0] > '9' || (v[0] == '0' && v[1] != '\0'))
		return -EINVAL;
	errno = 0;
	n = strtoull(v, &end, 10);
	*why = "number out of range";
	if (errno != 0 || *end != '\0' || n > max)
		return -ERANGE;
	*out = n;
	return 0;
}

/* yescrypt output: "$y$" then crypt(3)'s alphabet and '$' separators. */
bool totp_hash_valid(const char *s)
{
	size_t n = strlen(s);
	size_t i;

	if (n < 4 || n >= TOTP_HASH_MAX || strncmp(s, "$y$", 3) != 0)
		return false;
	for (i = 3; i < n; i++)
		if (!is_b64_char(s[i]) && s[i] != '.' && s[i] != '$')
			return false;
	return strchr(s, '+') == NULL;
}

static int fail(struct parse_state *p, const char *what)
{
	return pst_fail(p->e, EINVAL, "line %u: %s", p->line, what);
}

static int parse_u64(struct parse_state *p, const char *v, uint64_t max, uint64_t *out)
{
	const char *why;

	return record_decimal(v, max, out, &why) < 0 ? fail(p, why) : 0;
}

static int parse_secret(struct parse_state *p, const char *v)
{
	char *raw = NULL;
	size_t len = 0;
	int rc;

	if (oath_base32_decode(v, strlen(v), &raw, &len) != OATH_OK)
		return fail(p, "secret is not base32");
	if (len < TOTP_SECRET_MIN || len > TOTP_SECRET_MAX) {
		rc = fail(p, "secret length out of range");
	} else {
		memcpy(p->r->secret, raw, len);
		p->r->secret_len = len;
		rc = 0;
	}
	explicit_bzero(raw, len);
	free(raw);
	return rc;
}

static int parse_list_item(struct parse_state *p, enum field f, const char *v)
{
	struct totp_record *r = p->r;

	if (f == F_KEY) {
		if (r->nkeys == TOTP_KEYS_MAX)
			return fail(p, "too many keys");
		if (!totp_fingerprint_valid(v))
			return fail(p, "key is not a SHA256 fingerprint");
		memcpy(r->keys[r->nkeys++], v, strlen(v) + 1);
		return 0;
	}
	if (r->nrecovery == TOTP_RECOVERY_MAX)
		return fail(p, "too many recovery codes");
	if (!totp_hash_valid(v))
		return fail(p, "recovery is not a yescrypt hash");
	memcpy(r->recovery[r->nrecovery++], v, strlen(v) + 1);
	return 0;
}

static int parse_value(struct parse_state *p, enum field f, const char *v)
{
	struct totp_record *r = p->r;
	uint64_t n = 0;
	int rc;

	switch (f) {
	case F_VERSION:
		if (strcmp(v, "1") != 0)
			return fail(p, "unsupported record version (this postern reads version 1)");
		return 0;
	case F_ALGORITHM:
		return totp_alg_parse(v, &r->alg) ? 0 : fail(p, "unknown algorithm");
	case F_SECRET:
		return parse_secret(p, v);
	case F_KEY:
	case F_RECOVERY:
		return parse_list_item(p, f, v);
	case F_DIGITS:
	case F_PERIOD:
	case F_CREATED:
	case F_LAST_STEP:
	case F_LAST_SUCCESS:
	case F_FAILURES:
	case F_LOCKED_UNTIL:
	case F_COUNT:
		break;
	}
	rc = parse_u64(p, v, f == F_LAST_STEP ? UINT64_MAX / 2 : INT64_MAX / 2, &n);
	if (rc < 0)
		return rc;
	if (f == F_DIGITS && n != 6 && n != 8)
		return fail(p, "digits must be 6 or 8");
	if (f == F_PERIOD && n != 30 && n != 60)
		return fail(p, "period must be 30 or 60");
	if (f == F_FAILURES && n > 1000000)
		return fail(p, "failure count out of range");
	if (f == F_DIGITS)
		r->digits = (unsigned)n;
	else if (f == F_PERIOD)
		r->period = (unsigned)n;
	else if (f == F_CREATED)
		r->created = (int64_t)n;
	else if (f == F_LAST_STEP)
		r->last_step = n;
	else if (f == F_LAST_SUCCESS)
		r->last_success = (int64_t)n;
	else if (f == F_FAILURES)
		r->failures = (unsigned)n;
	else
		r->locked_until = (int64_t)n;
	return 0;
}

static int parse_line(struct parse_state *p, char *line)
{
	char *sp = strchr(line, ' ');
	unsigned f;

	if (sp == NULL || sp == line || sp[1] == '\0' || strchr(sp + 1, ' ') != NULL)
		return fail(p, "expected 'name value'");
	*sp = '\0';
	for (f = 0; f < F_COUNT; f++)
		if (strcmp(line, field_names[f]) == 0)
			break;
	if (f == F_COUNT)
		return fail(p, "unknown field");
	if (p->line == 1 && f != F_VERSION)
		return fail(p, "a record must start with its version");
	if (f != F_KEY && f != F_RECOVERY) {
		if (p->seen & (1u << f))
			return fail(p, "field given twice");
		p->seen |= 1u << f;
	}
	return parse_value(p, (enum field)f, sp + 1);
}

static int parse_lines(struct parse_state *p, const char *buf, size_t len)
{
	char line[LINE_MAX_LEN];
	const char *nl;
	size_t n;
	int rc;

	while (len > 0) {
		p->line++;
		nl = memchr(buf, '\n', len);
		if (nl == NULL)
			return fail(p, "missing newline at the end");
		n = (size_t)(nl - buf);
		if (n >= sizeof(line))
			return fail(p, "line too long");
		memcpy(line, buf, n);
		line[n] = '\0';
		if (strlen(line) != n)
			return fail(p, "NUL byte");
		rc = parse_line(p, line);
		explicit_bzero(line, sizeof(line));
		if (rc < 0)
			return rc;
		buf = nl + 1;
		len -= n + 1;
	}
	return 0;
}

int totp_record_parse(const char *buf, size_t len, struct totp_record *r,
		      struct pst_err *e)
{
	const unsigned required = (1u << F_VERSION) | (1u << F_ALGORITHM) |
		(1u << F_DIGITS) | (1u << F_PERIOD) | (1u << F_SECRET) |
		(1u << F_CREATED) | (1u << F_LAST_STEP) | (1u << F_LAST_SUCCESS) |
		(1u << F_FAILURES) | (1u << F_LOCKED_UNTIL);
	struct parse_state p = { .r = r, .seen = 0, .line = 0, .e = e };
	int rc;

	totp_record_wipe(r);
	if (len > TOTP_RECORD_MAX)
		return pst_fail(e, EFBIG, "record longer than %d bytes", TOTP_RECORD_MAX);
	rc = parse_lines(&p, buf, len);
	if (rc == 0 && (p.seen & required) != required)
		rc = pst_fail(e, EINVAL, "record is missing a required field");
	if (rc < 0)
		totp_record_wipe(r);
	return rc;
}

static bool record_valid(const struct totp_record *r)
{
	size_t i;

	if ((r->digits != 6 && r->digits != 8) || (r->period != 30 && r->period != 60) ||
	    r->secret_len < TOTP_SECRET_MIN || r->secret_len > TOTP_SECRET_MAX ||
	    r->nkeys > TOTP_KEYS_MAX || r->nrecovery > TOTP_RECOVERY_MAX ||
	    r->created < 0 || r->last_success < 0 || r->locked_until < 0)
		return false;
	for (i = 0; i < r->nkeys; i++)
		if (!totp_fingerprint_valid(r->keys[i]))
			return false;
	for (i = 0; i < r->nrecovery; i++)
		if (!totp_hash_valid(r->recovery[i]))
			return false;
	return true;
}

static int put(char *out, size_t outlen, size_t *pos, const char *name, const char *value)
{
	int n = snprintf(out + *pos, outlen - *pos, "%s %s\n", name, value);

	if (n < 0 || (size_t)n >= outlen - *pos)
		return -ENOSPC;
	*pos += (size_t)n;
	return 0;
}

static int put_num(char *out, size_t outlen, size_t *pos, const char *name, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return put(out, outlen, pos, name, num);
}

static int format_fields(const struct totp_record *r, char *out, size_t outlen,
			 size_t *pos, const char *secret_b32)
{
	size_t i;
	int rc = 0;

	rc |= put_num(out, outlen, pos, "version", TOTP_RECORD_VERSION);
	rc |= put(out, outlen, pos, "algorithm", totp_alg_name(r->alg));
	rc |= put_num(out, outlen, pos, "digits", r->digits);
	rc |= put_num(out, outlen, pos, "period", r->period);
	rc |= put(out, outlen, pos, "secret", secret_b32);
	rc |= put_num(out, outlen, pos, "created", (uint64_t)r->created);
	rc |= put_num(out, outlen, pos, "last_step", r->last_step);
	rc |= put_num(out, outlen, pos, "last_success", (uint64_t)r->last_success);
	rc |= put_num(out, outlen, pos, "failures", r->failures);
	rc |= put_num(out, outlen, pos, "locked_until", (uint64_t)r->locked_until);
	for (i = 0; i < r->nkeys; i++)
		rc |= put(out, outlen, pos, "key", r->keys[i]);
	for (i = 0; i < r->nrecovery; i++)
		rc |= put(out, outlen, pos, "recovery", r->recovery[i]);
	return rc;
}

int totp_record_format(const struct totp_record *r, char *out, size_t outlen,
		       struct pst_err *e)
{
	char *b32 = NULL;
	size_t b32len = 0;
	size_t pos = 0;
	int rc;

	if (!record_valid(r))
		return pst_fail(e, EINVAL, "refusing to write an invalid record");
	if (oath_base32_encode((const char *)r->secret, r->secret_len, &b32, &b32len) != OATH_OK)
		return pst_fail(e, ENOMEM, "cannot encode the secret");
	rc = format_fields(r, out, outlen, &pos, b32);
	explicit_bzero(b32, b32len);
	free(b32);
	if (rc != 0 || pos > TOTP_RECORD_MAX) {
		explicit_bzero(out, outlen);
		return pst_fail(e, ENOSPC, "record does not fit in %d bytes", TOTP_RECORD_MAX);
	}
	return (int)pos;
}

void totp_record_wipe(struct totp_record *r)
{
	explicit_bzero(r, sizeof(*r));
	r->digits = 6;
	r->period = 30;
}
