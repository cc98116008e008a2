/*
 * sid_hash16() with nettle's SHA-256, for postern-shell (loading libcrypto,
 * thousands of relocations, was most of its time from exec to decision, for
 * one hash) and pam_postern.so (which links nettle in, and so asks the
 * dynamic linker for nothing of libcrypto's in every sshd login).
 * MUST give exactly what sid_hash_libcrypto.c gives (tests/common checks
 * both against the same vectors).
 */
#include "sid_hash.h"

#include <nettle/sha2.h>

#include "hex.h"

void sid_hash16(const void *data, size_t len, char out[17])
{
	unsigned char md[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(md), md);
	hex_lower(md, 8, out);
}
