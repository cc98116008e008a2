/*
 * The audit session id's hash: the first 16 lowercase hex digits of
 * SHA-256(data) (docs/AUDIT.md). Two definitions that MUST give the same
 * answer: sid_hash_libcrypto.c for the programs that link libcrypto anyway
 * (pam_postern inside sshd among them), sid_hash_nettle.c for postern-shell,
 * which has no other use for libcrypto and would spend most of its start-up
 * relocating it (bench/shell). On failure: sixteen zeros.
 */
#ifndef POSTERN_SID_HASH_H
#define POSTERN_SID_HASH_H

#include <stddef.h>

void sid_hash16(const void *data, size_t len, char out[17]);

#endif
