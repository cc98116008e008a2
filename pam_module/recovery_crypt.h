/*
 * The one yescrypt computation totp_verify() needs, to check a typed
 * recovery code against a stored hash. Two definitions, one per kind of
 * program: recovery_crypt_linked.c (libcrypt linked in: postern-totp, the
 * tests, the fuzz targets) and recovery_crypt_dlopen.c (pam_postern.so,
 * which loads libcrypt only when someone types a recovery code, not in
 * every sshd login). Both MUST return NULL on any failure, which denies.
 */
#ifndef POSTERN_RECOVERY_CRYPT_H
#define POSTERN_RECOVERY_CRYPT_H

#include <crypt.h>

/* crypt_rn(code, hash, cd, sizeof(*cd)): cd->output, or NULL on failure. */
char *recovery_crypt(const char *code, const char *hash, struct crypt_data *cd);

#endif
