/* Any SSH_AUTH_INFO_0 value: refused, or only well-formed fingerprints. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ssh_key.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ssh_keys keys;
	char *in = malloc(size + 1);
	size_t i;

	if (in == NULL)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	if (ssh_auth_info_keys(in, &keys, NULL) == 0) {
		if (keys.n > SSH_KEYS_MAX)
			abort();
		for (i = 0; i < keys.n; i++)
			if (!totp_fingerprint_valid(keys.fpr[i]))
				abort();
	}
	free(in);
	return 0;
}
