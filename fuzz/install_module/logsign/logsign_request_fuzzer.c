/*
 * Any bytes as a request to postern-logsign (what the daemon, which may be
 * compromised, sends the signer): no crash; a request that parses has a
 * proof of at most TLOG_PROOF_MAX hashes and round-trips to the same text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logsign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct logsign_request r;
	char again[LOGSIGN_REQUEST_MAX + 128], b64[45];
	size_t i;
	int n;

	if (logsign_parse_request((const char *)data, size, &r, NULL) != 0)
		return 0;
	if (r.proof.n > TLOG_PROOF_MAX)
		abort();
	tlog_hash_b64(&r.root, b64);
	n = snprintf(again, sizeof(again), "postern-logsign 1\nold %llu\nnew %llu %s\n",
		     (unsigned long long)r.old, (unsigned long long)r.size, b64);
	for (i = 0; i < r.proof.n; i++) {
		tlog_hash_b64(&r.proof.h[i], b64);
		n += snprintf(again + n, sizeof(again) - (size_t)n, "proof %s\n", b64);
	}
	if ((size_t)n != size || memcmp(again, data, size) != 0)
		abort();
	return 0;
}
