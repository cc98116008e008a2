/*
 * Any bytes as a login proof record (what postern-shell reads from a file)
 * and as a /proc stat line: no crash; a record that parses formats back to
 * the same bytes, so the parser accepts exactly what pam_postern writes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "login_proof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[LOGIN_PROOF_MAX + 1];
	unsigned long long start;
	struct login_proof p;
	pid_t ppid;
	int len;

	if (login_proof_parse((const char *)data, size, &p, NULL) == 0) {
		len = login_proof_format(&p, text, sizeof(text));
		if (len < 0 || (size_t)len != size || memcmp(text, data, size) != 0)
			abort();
	}
	if (proc_stat_parse((const char *)data, size, &ppid, &start, NULL) == 0 && ppid < 0)
		abort();
	return 0;
}
