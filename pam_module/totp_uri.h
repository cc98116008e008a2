/* The otpauth:// URI an authenticator app reads a secret from (Google's Key Uri Format). */
#ifndef POSTERN_TOTP_URI_H
#define POSTERN_TOTP_URI_H

#include <stddef.h>

#include "totp_record.h"

#define TOTP_URI_MAX 512

/*
 * otpauth://totp/ISSUER:USER?secret=...&issuer=...&algorithm=...&digits=...&period=...
 * into out (no newline). Its length, or -errno. The caller wipes out.
 */
int totp_uri_format(const struct totp_record *r, const char *issuer, const char *user,
		    char *out, size_t outlen);

#endif
