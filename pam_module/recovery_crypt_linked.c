/*
 * recovery_crypt() and recovery_hash() with libcrypt linked in, for the
 * programs that are not pam_postern.so (see recovery_crypt.h). MUST NOT be
 * linked into the module: it would load libcrypt in every login.
 */
#include <crypt.h>
#include <stdlib.h>
#include <string.h>

#include "recovery_crypt.h"
#include "totp_verify.h"

char *recovery_crypt(const char *code, const char *hash, struct crypt_data *cd)
{
	return crypt_rn(code, hash, cd, sizeof(*cd));
}

int recovery_hash(const char *code, char *out, size_t outlen)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	int rc = -1;

	if (crypt_gensalt_rn("$y$", 0, NULL, 0, setting, sizeof(setting)) == NULL)
		return -1;
	cd = calloc(1, sizeof(*cd));
	if (cd == NULL)
		return -1;
	if (crypt_rn(code, setting, cd, sizeof(*cd)) != NULL && cd->output[0] != '*' &&
	    strlen(cd->output) < outlen && strlen(cd->output) < TOTP_HASH_MAX) {
		memcpy(out, cd->output, strlen(cd->output) + 1);
		rc = 0;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return rc;
}
