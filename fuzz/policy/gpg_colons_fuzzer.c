/*
 * The reader of gpg's --with-colons key listing (policy/keyring.c) on any
 * bytes: no crash, and every certificate it returns has a fingerprint of 40
 * or 64 upper-case hex digits and a validity of '-', 'r' or 'e'.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keyring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct keyring_listing k;
	size_t i, n = keyring_parse_colons((const char *)data, size, &k);

	if (n != k.count || n > KEYRING_CERTS_MAX || (k.more && n != KEYRING_CERTS_MAX))
		abort();
	for (i = 0; i < n; i++) {
		size_t len = strlen(k.cert[i].fpr);
		if ((len != 40 && len != 64) || strspn(k.cert[i].fpr, "0123456789ABCDEF") != len ||
		    strchr("-re", k.cert[i].validity) == NULL || k.cert[i].validity == '\0')
			abort();
	}
	return 0;
}
