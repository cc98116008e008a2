/* Any bytes: the invite record parser either refuses them or yields a
 * record that formats back to the same bytes (one text per record). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "invite_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct invite_record r;
	static char text[INVITE_RECORD_MAX];
	int n;

	if (invite_record_parse((const char *)data, size, &r, NULL) < 0)
		return 0;
	n = invite_record_format(&r, text, sizeof(text), NULL);
	if (n < 0 || (size_t)n != size || memcmp(text, data, size) != 0)
		abort();
	return 0;
}
