/*
 * totp_verify(): the one decision on a typed code (totp_verify.h). It must never
 * accept while locked out, a replayed step or a used recovery code.
 */
#include "totp_verify.h"

#include <crypt.h>
#include <liboath/oath.h>
#include <nettle/memops.h>
#include <stdlib.h>
#include <string.h>

#include "recovery_crypt.h"

static const char recovery_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

static bool is_recovery_char(char c)
{
	return c != '\0' && strchr(recovery_alphabet, c) != NULL;
}

static char ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Accepts "abcdefghijklmnop" and "abcd-efgh-ijkl-mnop", any case. */
static bool recovery_normalise(const char *in, size_t len, char *norm)
{
	size_t i;
	size_t o = 0;
	bool dashed = (len == RECOVERY_CODE_LEN);

	if (len != RECOVERY_CODE_LEN && len != 16)
		return false;
	for (i = 0; i < len; i++) {
		if (dashed && i % 5 == 4) {
			if (in[i] != '-')
				return false;
			norm[o++] = '-';
			continue;
		}
		if (!is_recovery_char(ascii_lower(in[i])))
			return false;
		norm[o++] = ascii_lower(in[i]);
		if (!dashed && i % 4 == 3 && i != len - 1)
			norm[o++] = '-';
	}
	norm[o] = '\0';
	return true;
}

enum code_kind code_input_check(const char *input, unsigned digits, char *norm,
				size_t normlen)
{
	size_t len;
	size_t i;

	if (input == NULL || normlen < RECOVERY_CODE_LEN + 1)
		return CODE_INVALID;
	len = strnlen(input, CODE_INPUT_MAX + 1);
	if (len > CODE_INPUT_MAX)
		return CODE_INVALID;
	for (i = 0; i < len && input[i] >= '0' && input[i] <= '9'; i++)
		;
	if (i == len && len == digits) {
		memcpy(norm, input, len + 1);
		return CODE_TOTP;
	}
	if (recovery_normalise(input, len, norm))
		return CODE_RECOVERY;
	norm[0] = '\0';
	return CODE_INVALID;
}

struct typed_code {
	const char *code;
	size_t len;
};

/* liboath hands us each candidate; compare without an early exit. */
static int code_compare(void *handle, const char *candidate)
{
	const struct typed_code *t = handle;

	if (strlen(candidate) != t->len)
		return 1;
	return memeql_sec(t->code, candidate, t->len) ? 0 : 1;
}

static int oath_flags(enum totp_alg alg)
{
	switch (alg) {
	case TOTP_SHA1: return 0;
	case TOTP_SHA256: return OATH_TOTP_HMAC_SHA256;
	case TOTP_SHA512: return OATH_TOTP_HMAC_SHA512;
	}
	return -1;
}

static enum totp_verdict check_totp(struct totp_record *r, const char *code, time_t now,
				    unsigned window, struct totp_outcome *out)
{
	struct typed_code t = { .code = code, .len = strlen(code) };
	uint64_t counter = 0;
	int pos = 0;
	int flags = oath_flags(r->alg);
	int rc;

	if (flags < 0 || oath_init() != OATH_OK)
		return TOTP_ERROR;
	rc = oath_totp_validate4_callback((const char *)r->secret, r->secret_len, now,
					  r->period, 0, r->digits, window, &pos, &counter,
					  flags, code_compare, &t);
	if (rc == OATH_INVALID_OTP)
		return TOTP_REJECT_BAD_CODE;
	if (rc < 0)
		return TOTP_ERROR;
	if (counter <= r->last_step)
		return TOTP_REJECT_REPLAY;
	r->last_step = counter;
	out->step = counter;
	return TOTP_ACCEPT_CODE;
}

/* Every stored hash is tried, so the time taken does not say which matched. */
static enum totp_verdict check_recovery(struct totp_record *r, const char *norm)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	size_t match = TOTP_RECOVERY_MAX;
	size_t hlen;
	size_t i;

	if (cd == NULL)
		return TOTP_ERROR;
	for (i = 0; i < r->nrecovery; i++) {
		hlen = strlen(r->recovery[i]);
		if (recovery_crypt(norm, r->recovery[i], cd) == NULL)
			continue;
		if (strlen(cd->output) == hlen &&
		    memeql_sec(cd->output, r->recovery[i], hlen) &&
		    match == TOTP_RECOVERY_MAX)
			match = i;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	if (match == TOTP_RECOVERY_MAX)
		return TOTP_REJECT_BAD_CODE;
	for (i = match; i + 1 < r->nrecovery; i++)
		memcpy(r->recovery[i], r->recovery[i + 1], TOTP_HASH_MAX);
	r->nrecovery--;
	explicit_bzero(r->recovery[r->nrecovery], TOTP_HASH_MAX);
	return TOTP_ACCEPT_RECOVERY;
}

static void count_failure(struct totp_record *r, time_t now, const struct totp_policy *p,
			  struct totp_outcome *out)
{
	if (r->failures < 1000000)
		r->failures++;
	if (r->locked_until == 0 && r->failures >= p->max_failures) {
		r->locked_until = (int64_t)now + p->lockout;
		out->lockout_started = true;
	}
}

static enum totp_verdict judge(struct totp_record *r, const char *input, time_t now,
				unsigned window, struct totp_outcome *out)
{
	char norm[RECOVERY_CODE_LEN + 1];
	enum totp_verdict v;

	switch (code_input_check(input, r->digits, norm, sizeof(norm))) {
	case CODE_TOTP:
		v = check_totp(r, norm, now, window, out);
		break;
	case CODE_RECOVERY:
		v = check_recovery(r, norm);
		break;
	case CODE_INVALID:
	default:
		v = TOTP_REJECT_BAD_INPUT;
		break;
	}
	explicit_bzero(norm, sizeof(norm));
	return v;
}

/*
 * Judged like an open record, on a copy that is dropped: an instant refusal
 * would tell the client about the lockout by its timing.
 */
static enum totp_verdict refuse_locked(struct totp_record *r, const char *input, time_t now,
				       const struct totp_policy *p, struct totp_outcome *out)
{
	struct totp_record scratch = *r;

	(void)judge(&scratch, input, now, p->window, out);
	totp_record_wipe(&scratch);
	memset(out, 0, sizeof(*out));
	count_failure(r, now, p, out);
	return TOTP_REJECT_LOCKED;
}

enum totp_verdict totp_verify(struct totp_record *r, const char *input, time_t now,
			      const struct totp_policy *p, struct totp_outcome *out)
{
	enum totp_verdict v;

	memset(out, 0, sizeof(*out));
	if (r->locked_until != 0 && r->locked_until <= (int64_t)now) {
		r->locked_until = 0;    /* served: a fresh run of attempts */
		r->failures = 0;
	}
	if (r->locked_until != 0)
		return refuse_locked(r, input, now, p, out);
	v = judge(r, input, now, p->window, out);
	if (v == TOTP_ACCEPT_CODE || v == TOTP_ACCEPT_RECOVERY) {
		r->failures = 0;
		r->last_success = (int64_t)now;
	} else if (v != TOTP_ERROR) {
		count_failure(r, now, p, out);
	}
	return v;
}
