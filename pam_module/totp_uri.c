/* The otpauth:// URI (totp_uri.h), base32 by liboath. */
#include "totp_uri.h"

#include <errno.h>
#include <liboath/oath.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char *buf;
	size_t len, pos;
	bool full;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->full)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->pos, o->len - o->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->len - o->pos)
		o->full = true;
	else
		o->pos += (size_t)n;
}

/* RFC 3986 unreserved characters as they are, the rest percent-encoded. */
static void put_encoded(struct out *o, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~')
			put(o, "%c", c);
		else
			put(o, "%%%02X", c);
	}
}

int totp_uri_format(const struct totp_record *r, const char *issuer, const char *user,
		    char *out, size_t outlen)
{
	struct out o = { out, outlen, 0, false };
	char *b32 = NULL;
	size_t len = 0;

	if (outlen == 0)
		return -ENOSPC;
	if (oath_base32_encode((const char *)r->secret, r->secret_len, &b32, &len) != OATH_OK)
		return -ENOMEM;
	while (len > 0 && b32[len - 1] == '=')
		b32[--len] = '\0';
	put(&o, "otpauth://totp/");
	put_encoded(&o, issuer);
	put(&o, ":");
	put_encoded(&o, user);
	put(&o, "?secret=%s&issuer=", b32);
	put_encoded(&o, issuer);
	put(&o, "&algorithm=%s&digits=%u&period=%u", totp_alg_name(r->alg), r->digits, r->period);
	explicit_bzero(b32, len);
	free(b32);
	if (o.full) {
		explicit_bzero(out, outlen);
		return -ENOSPC;
	}
	return (int)o.pos;
}
