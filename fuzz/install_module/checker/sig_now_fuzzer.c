/*
 * The checker's reading of gpgv's status lines, from any bytes: they carry
 * the signer's user ID and other text an attacker chose. Input: byte 0
 * picks the wait status and whether the output was cut, the rest is the
 * output. A pass must keep exactly sqv's signer, and every message must be
 * printable ASCII: gpgv's text is never quoted.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sig_now.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SIGNER "ACD7F0BD1E88E58F1C024048FD20EDA0024978C5"

static const int statuses[] = {
	0, 1 << 8, 2 << 8, SIG_VERIFIER_SETUP_FAILED << 8, SIG_VERIFIER_EXEC_FAILED << 8,
	SIGSYS, SIGSEGV, SIGXCPU, SIGALRM, 0x7f,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sig_result r;
	size_t i;

	if (size < 1)
		return 0;
	sig_now_read(statuses[(data[0] & 0x7f) % (sizeof(statuses) / sizeof(statuses[0]))],
		     (const char *)data + 1, size - 1, data[0] >> 7, SIGNER, &r);
	if (r.outcome == CHECK_PASS && strcmp(r.signer, SIGNER) != 0)
		abort();
	if (r.outcome != CHECK_PASS && r.signer[0] != '\0')
		abort();
	for (i = 0; r.message[i] != '\0'; i++)
		if (r.message[i] < 0x20 || r.message[i] > 0x7e)
			abort();
	return 0;
}
