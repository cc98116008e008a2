/* Any bytes: the enrolment handoff parser either refuses them or yields a
 * handoff that formats back to the same bytes (there is one text per
 * handoff), with nothing a terminal would act on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enrol_handoff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void no_control(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct enrol_handoff h;
	static char text[4096];
	size_t i;
	int n;

	if (enrol_handoff_parse((const char *)data, size, &h, NULL) < 0)
		return 0;
	no_control(h.uri);
	no_control(h.key_type);
	no_control(h.key_fpr);
	for (i = 0; i < h.ncodes; i++)
		no_control(h.codes[i]);
	n = enrol_handoff_format(&h, text, sizeof(text), NULL);
	if (n < 0 || (size_t)n != size || memcmp(text, data, size) != 0)
		abort();
	return 0;
}
