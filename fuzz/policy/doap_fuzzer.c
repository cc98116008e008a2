/*
 * The DOAP parser on any bytes: no crash, no leak, and either an error with
 * a message or a list of maintainers within the cap.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "doap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doap_maintainers dm;
	struct pst_err e = { "" };
	size_t i;

	xmlInitParser();
	if (doap_parse((const char *)data, size, "fuzz.doap", &dm, &e) != 0) {
		if (e.msg[0] == '\0' || dm.v != NULL)
			abort();
		return 0;
	}
	if (dm.n > DOAP_MAINTAINERS_MAX)
		abort();
	for (i = 0; i < dm.n; i++)
		if (dm.v[i].userid != NULL && dm.v[i].userid[0] == '\0')
			abort();
	doap_maintainers_free(&dm);
	return 0;
}
