/*
 * recovery_crypt() and recovery_gensalt() with libcrypt linked in, for the
 * programs that are not pam_postern.so (see recovery_crypt.h). MUST NOT be
 * linked into the module: it would load libcrypt in every login.
 */
#include <crypt.h>
#include <stddef.h>
#include "recovery_crypt.h"

char *recovery_crypt(const char *code, const char *hash, struct crypt_data *cd)
{
	return crypt_rn(code, hash, cd, sizeof(*cd));
}

char *recovery_gensalt(char *out, int outlen)
{
	return crypt_gensalt_rn("$y$", 0, NULL, 0, out, outlen);
}
