/*
 * Making and checking one-time codes (recovery_codes.h). The hashes are
 * libcrypt's yescrypt through recovery_crypt.h, so the module loads
 * libcrypt only on this path.
 */
#include "recovery_codes.h"

#include <errno.h>
#include <nettle/memops.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "recovery_crypt.h"
#include "totp_verify.h"

static const char code_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

int one_time_code_new(char code[ONE_TIME_CODE_SIZE], struct pst_err *e)
{
	unsigned char rnd[16];
	size_t i, o;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return pst_fail(e, EIO, "getrandom failed");
	for (i = 0, o = 0; i < sizeof(rnd); i++) {
		if (i > 0 && i % 4 == 0)
			code[o++] = '-';
		code[o++] = code_alphabet[rnd[i] & 31];
	}
	code[o] = '\0';
	explicit_bzero(rnd, sizeof(rnd));
	return 0;
}

int recovery_hash(const char *code, char *out, size_t outlen)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	int rc = -1;

	if (recovery_gensalt(setting, sizeof(setting)) == NULL)
		return -1;
	cd = calloc(1, sizeof(*cd));
	if (cd == NULL)
		return -1;
	if (recovery_crypt(code, setting, cd) != NULL && cd->output[0] != '*' &&
	    strlen(cd->output) < outlen && strlen(cd->output) < TOTP_HASH_MAX) {
		memcpy(out, cd->output, strlen(cd->output) + 1);
		rc = 0;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return rc;
}

int recovery_codes_new(struct totp_record *r, char codes[][ONE_TIME_CODE_SIZE], size_t n,
		       struct pst_err *e)
{
	size_t i;

	for (i = 0; i < n && i < TOTP_RECOVERY_MAX; i++) {
		if (one_time_code_new(codes[i], e) < 0)
			return -EIO;
		if (recovery_hash(codes[i], r->recovery[i], TOTP_HASH_MAX) < 0)
			return pst_fail(e, EIO, "yescrypt hashing failed");
	}
	r->nrecovery = i;
	return 0;
}

bool one_time_code_matches(const char *code, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	size_t hlen = strlen(hash);
	bool match;

	if (cd == NULL)
		return false;
	match = recovery_crypt(code, hash, cd) != NULL && strlen(cd->output) == hlen &&
		memeql_sec(cd->output, hash, hlen);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return match;
}
