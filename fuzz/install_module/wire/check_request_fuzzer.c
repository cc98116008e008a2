/*
 * The checker's parser of the daemon's request, from any bytes (the
 * checker trusts the daemon, but a parser that accepts what it does not
 * fully understand is a bug either way). Whatever it accepts must encode
 * back to exactly the same bytes, name a valid module, a known compression
 * and signature kind, and no limit of 0.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char again[CHECK_REQUEST_SIZE];
	struct check_request r;
	struct pst_err e;

	e.msg[0] = '\0';
	if (check_request_parse(data, size, &r, &e) < 0) {
		if (e.msg[0] == '\0')
			abort();
		return 0;
	}
	if (size != CHECK_REQUEST_SIZE || !check_request_encode(&r, again) ||
	    memcmp(again, data, size) != 0)
		abort();
	if (!name_is_module(r.module) || r.sig_kind > CHECK_SIG_TAR || r.compression > RELEASE_ZST ||
	    r.limits.max_compressed == 0 || r.limits.check_memory == 0)
		abort();
	return 0;
}
