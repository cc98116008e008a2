/*
 * sid_hash16() with libcrypto's low-level SHA-256 (deprecated in OpenSSL
 * 3.0, still maintained): an EVP digest first activates the default
 * provider and builds its method tables, about 2 ms of CPU in every process
 * that logs (bench/totp measured it in each sshd login). The same code
 * without that machinery.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "sid_hash.h"

#include <openssl/sha.h>
#include <string.h>

#include "hex.h"

void sid_hash16(const void *data, size_t len, char out[17])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX ctx;

	if (SHA256_Init(&ctx) != 1 || SHA256_Update(&ctx, data, len) != 1 ||
	    SHA256_Final(md, &ctx) != 1) {
		memcpy(out, "0000000000000000", 17);
		return;
	}
	hex_lower(md, 8, out);
}
