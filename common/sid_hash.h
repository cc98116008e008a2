/*
 * The audit session id's hash: the first 16 lowercase hex digits of
 * SHA-256(data) (docs/AUDIT.md). Two definitions that MUST give the same
 * answer: sid_hash_libcrypto.c for the programs that link libcrypto anyway,
 * sid_hash_nettle.c for postern-shell and pam_postern.so, which start in
 * every command and every sshd login and would otherwise spend much of that
 * start on libcrypto (bench/shell, bench/totp). Each links the nettle one as
 * its own object, so the linker never takes common's libcrypto one. On
 * failure: sixteen zeros.
 */
#ifndef POSTERN_SID_HASH_H
#define POSTERN_SID_HASH_H

#include <stddef.h>

void sid_hash16(const void *data, size_t len, char out[17]);

#endif
