/* The enrolment handoff's text form (enrol_handoff.h). */
#include "enrol_handoff.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define URI_PREFIX "otpauth://totp/"
#define CODE_LEN 19

static bool all_in(const char *s, size_t n, const char *alphabet, bool alnum)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (alnum && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9')))
			continue;
		if (c == '\0' || strchr(alphabet, c) == NULL)
			return false;
	}
	return true;
}

/* The URI characters totp_uri_format() writes: unreserved, '%' escapes, and the separators. */
static bool uri_valid(const char *s)
{
	size_t n = strlen(s);

	return n > strlen(URI_PREFIX) && n < HANDOFF_URI_MAX &&
	       strncmp(s, URI_PREFIX, strlen(URI_PREFIX)) == 0 &&
	       all_in(s, n, "-._~%:/?&=", true);
}

static bool key_type_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < HANDOFF_KEY_TYPE_MAX && all_in(s, n, "-@.", true);
}

static bool key_fpr_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 7 && n < HANDOFF_KEY_FPR_MAX && strncmp(s, "SHA256:", 7) == 0 &&
	       all_in(s + 7, n - 7, "+/", true);
}

static bool code_valid(const char *s)
{
	size_t i;

	if (strlen(s) != CODE_LEN)
		return false;
	for (i = 0; i < CODE_LEN; i++)
		if (i % 5 == 4 ? s[i] != '-' : !all_in(s + i, 1, "abcdefghijklmnopqrstuvwxyz234567", false))
			return false;
	return true;
}

static bool handoff_valid(const struct enrol_handoff *h)
{
	size_t i;
	bool key = h->key_type[0] != '\0' || h->key_fpr[0] != '\0';

	if ((h->uri[0] == '\0') == (h->ncodes == 0) || h->ncodes > HANDOFF_CODES_MAX)
		return false;     /* exactly one of the two kinds */
	if (h->uri[0] != '\0' && !uri_valid(h->uri))
		return false;
	if (key && (h->uri[0] == '\0' || !key_type_valid(h->key_type) || !key_fpr_valid(h->key_fpr)))
		return false;
	for (i = 0; i < h->ncodes; i++)
		if (!code_valid(h->codes[i]))
			return false;
	return true;
}

int enrol_handoff_format(const struct enrol_handoff *h, char *out, size_t outlen,
			 struct pst_err *e)
{
	size_t i;
	int n = 0;

	if (!handoff_valid(h))
		return pst_fail(e, EINVAL, "the enrolment handoff is not valid");
	if (h->uri[0] != '\0')
		n = snprintf(out, outlen, "uri %s\n", h->uri);
	if (n >= 0 && (size_t)n < outlen && h->key_type[0] != '\0')
		n += snprintf(out + n, outlen - (size_t)n, "key %s %s\n", h->key_type, h->key_fpr);
	for (i = 0; i < h->ncodes && n >= 0 && (size_t)n < outlen; i++)
		n += snprintf(out + n, outlen - (size_t)n, "recovery %s\n", h->codes[i]);
	if (n < 0 || (size_t)n >= outlen) {
		explicit_bzero(out, outlen);
		return pst_fail(e, ENOSPC, "the enrolment handoff does not fit in %zu bytes", outlen);
	}
	return n;
}

static bool copy_field(char *dst, size_t dstlen, const char *src, size_t n)
{
	if (n >= dstlen)
		return false;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return true;
}

/*
 * One line (without its newline); false when it is not one this format has.
 * Each field is checked as it is read, so a line that leaves a field empty
 * or malformed cannot make room for another of its kind.
 */
static bool parse_line(struct enrol_handoff *h, const char *line, size_t n)
{
	const char *sp;

	if (n > 4 && strncmp(line, "uri ", 4) == 0 && h->uri[0] == '\0' && h->ncodes == 0)
		return copy_field(h->uri, sizeof(h->uri), line + 4, n - 4) && uri_valid(h->uri);
	if (n > 4 && strncmp(line, "key ", 4) == 0 && h->uri[0] != '\0' && h->key_type[0] == '\0') {
		sp = memchr(line + 4, ' ', n - 4);
		return sp != NULL &&
		       copy_field(h->key_type, sizeof(h->key_type), line + 4, (size_t)(sp - line - 4)) &&
		       copy_field(h->key_fpr, sizeof(h->key_fpr), sp + 1, (size_t)(line + n - sp - 1)) &&
		       key_type_valid(h->key_type) && key_fpr_valid(h->key_fpr);
	}
	if (n > 9 && strncmp(line, "recovery ", 9) == 0 && h->uri[0] == '\0' &&
	    h->ncodes < HANDOFF_CODES_MAX)
		return copy_field(h->codes[h->ncodes], HANDOFF_CODE_SIZE, line + 9, n - 9) &&
		       code_valid(h->codes[h->ncodes++]);
	return false;
}

int enrol_handoff_parse(const char *buf, size_t len, struct enrol_handoff *h,
			struct pst_err *e)
{
	size_t pos = 0, n;
	const char *nl;
	unsigned line = 0;

	enrol_handoff_wipe(h);
	while (pos < len) {
		line++;
		nl = memchr(buf + pos, '\n', len - pos);
		n = nl == NULL ? 0 : (size_t)(nl - (buf + pos));
		if (nl == NULL || memchr(buf + pos, '\0', n) != NULL || !parse_line(h, buf + pos, n)) {
			enrol_handoff_wipe(h);
			return pst_fail(e, EINVAL, "line %u is not one an enrolment handoff has", line);
		}
		pos += n + 1;
	}
	if (!handoff_valid(h)) {
		enrol_handoff_wipe(h);
		return pst_fail(e, EINVAL, "the enrolment handoff is incomplete or malformed");
	}
	return 0;
}

void enrol_handoff_wipe(struct enrol_handoff *h)
{
	explicit_bzero(h, sizeof(*h));
}
