/*
 * The checker's reading of the OpenPGP verifier's answer, from any bytes:
 * sqv's output can echo what an attacker put in a signature or keyring.
 * Input: byte 0 picks the signature kind and the wait status, then stdout,
 * a NUL byte, stderr. It must pass only on exit status 0 with a stdout of
 * fingerprints (the first becoming the signer), and every message must be
 * printable ASCII: the verifier's free text is never quoted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sig_verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int statuses[] = {
	0, 1 << 8, 2 << 8, SIG_VERIFIER_SETUP_FAILED << 8, SIG_VERIFIER_EXEC_FAILED << 8,
	9, 11, 24, 14, 0x7f,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sig_result r;
	const char *out, *err, *nul;
	size_t out_len, err_len, i;
	enum check_signature_kind kind;
	int status;

	if (size < 1)
		return 0;
	kind = (data[0] & 1) ? CHECK_SIG_TAR : CHECK_SIG_FILE;
	status = statuses[(data[0] >> 1) % (sizeof(statuses) / sizeof(statuses[0]))];
	out = (const char *)data + 1;
	nul = memchr(out, '\0', size - 1);
	out_len = nul != NULL ? (size_t)(nul - out) : size - 1;
	err = nul != NULL ? nul + 1 : out + out_len;
	err_len = size - 1 - out_len - (nul != NULL ? 1 : 0);
	sig_verdict_read(kind, status, out, out_len, err, err_len, data[0] >> 7, &r);
	if (r.outcome == CHECK_PASS) {
		if (status != 0 || !check_fingerprint_valid(r.signer) || r.message[0] != '\0' ||
		    out_len < strlen(r.signer) + 1 || memcmp(out, r.signer, strlen(r.signer)) != 0 ||
		    (data[0] >> 7) != 0)
			abort();
		return 0;
	}
	if ((r.outcome != CHECK_REFUSED && r.outcome != CHECK_INTERNAL) || r.signer[0] != '\0' ||
	    r.message[0] == '\0')
		abort();
	for (i = 0; r.message[i] != '\0'; i++)
		if (r.message[i] < 0x20 || r.message[i] > 0x7e)
			abort();
	return 0;
}
