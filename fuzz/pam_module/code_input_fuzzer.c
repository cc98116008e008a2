/* Any typed input: classified without reading past its end, and what is
 * accepted has exactly the canonical shape the verifier relies on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "totp_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *in, unsigned digits)
{
	char norm[RECOVERY_CODE_LEN + 1];
	size_t i;

	switch (code_input_check(in, digits, norm, sizeof(norm))) {
	case CODE_TOTP:
		if (strlen(norm) != digits)
			abort();
		for (i = 0; i < digits; i++)
			if (norm[i] < '0' || norm[i] > '9')
				abort();
		break;
	case CODE_RECOVERY:
		if (strlen(norm) != RECOVERY_CODE_LEN)
			abort();
		for (i = 0; i < RECOVERY_CODE_LEN; i++)
			if ((i % 5 == 4) != (norm[i] == '-') ||
			    (norm[i] != '-' && strchr("abcdefghijklmnopqrstuvwxyz234567", norm[i]) == NULL))
				abort();
		break;
	case CODE_INVALID:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1);

	if (in == NULL)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	check(in, 6);
	check(in, 8);
	free(in);
	return 0;
}
