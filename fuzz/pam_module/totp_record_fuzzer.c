/* Any bytes: the record parser either refuses them or yields a record that
 * formats back to text which parses to the same record. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "totp_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct totp_record a;
	static struct totp_record b;
	static char text[TOTP_RECORD_MAX];
	int n;

	if (totp_record_parse((const char *)data, size, &a, NULL) < 0)
		return 0;
	n = totp_record_format(&a, text, sizeof(text), NULL);
	if (n < 0 || totp_record_parse(text, (size_t)n, &b, NULL) < 0)
		abort();
	if (memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	return 0;
}
