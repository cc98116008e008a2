/*
 * The DOAP parser's answer as root reads it from the confined child, on any
 * bytes: no crash, no leak; a refusal has a message and no list; a list is
 * within the cap and encodes back to the very bytes it was read from.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doap_answer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doap_maintainers dm;
	struct pst_err e = { "" };
	char *again;
	size_t len;

	if (doap_answer_decode((const char *)data, size, "fuzz.doap", &dm, &e) != 0) {
		if (e.msg[0] == '\0' || dm.v != NULL || dm.n != 0)
			abort();
		return 0;
	}
	if (dm.n > DOAP_MAINTAINERS_MAX)
		abort();
	if (doap_answer_encode(0, &dm, &e, &again, &len) != 0)
		abort();
	if (len != size || memcmp(again, data, size) != 0)
		abort();
	free(again);
	doap_maintainers_free(&dm);
	return 0;
}
