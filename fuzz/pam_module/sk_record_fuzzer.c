/* Any bytes: the security-key record parser either refuses them or yields a
 * record that formats back to text which parses to the same record. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sk_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sk_record a;
	static struct sk_record b;
	static char text[SK_RECORD_MAX];
	int n;

	if (sk_record_parse((const char *)data, size, &a, NULL) < 0)
		return 0;
	n = sk_record_format(&a, text, sizeof(text), NULL);
	if (n < 0 || sk_record_parse(text, (size_t)n, &b, NULL) < 0)
		abort();
	if (memcmp(&a, &b, sizeof(a)) != 0)
		abort();
	return 0;
}
