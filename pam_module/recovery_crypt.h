/*
 * The yescrypt computations: checking a typed recovery or invite code
 * against a stored hash (totp_verify(), the invite login), and the salt for
 * hashing new recovery codes (recovery_codes.c: postern-totp, and the
 * module when an invited user completes enrolment). Two definitions, one per kind of
 * program: recovery_crypt_linked.c (libcrypt linked in: postern-totp, the
 * tests, the fuzz targets) and recovery_crypt_dlopen.c (pam_postern.so,
 * which loads libcrypt only when someone types a recovery or invite code,
 * not in every sshd login). Both MUST return NULL on any failure, which denies.
 */
#ifndef POSTERN_RECOVERY_CRYPT_H
#define POSTERN_RECOVERY_CRYPT_H

#include <crypt.h>

/* crypt_rn(code, hash, cd, sizeof(*cd)): cd->output, or NULL on failure. */
char *recovery_crypt(const char *code, const char *hash, struct crypt_data *cd);

/* crypt_gensalt_rn("$y$", 0, NULL, 0, out, outlen): a fresh yescrypt setting. */
char *recovery_gensalt(char *out, int outlen);

#endif
