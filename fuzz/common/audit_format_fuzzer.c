/* Any bytes as a value must give a record with no control characters, no
 * open quote and exactly the fields that were passed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_record(const char *rec)
{
	int in_quotes = 0;
	int fields = 0;
	const char *p;

	for (p = rec; *p != '\0'; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
		if (in_quotes && *p == '\\') {
			if (*++p == '\0')
				abort();
			continue;
		}
		if (*p == '"')
			in_quotes = !in_quotes;
		if (!in_quotes && *p == '=')
			fields++;
	}
	if (in_quotes || (fields != 7 && strstr(rec, " truncated=yes") == NULL))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char rec[AUDIT_RECORD_MAX];
	struct audit_session s;
	char *value = malloc(size + 1);

	if (value == NULL)
		return 0;
	memcpy(value, data, size);
	value[size] = '\0';
	audit_session_init(&s, value, value);
	{
		const char *kv[] = { "file", value, "reason", value, NULL };
		audit_format(rec, sizeof(rec), "fuzz", &s, kv);
	}
	check_record(rec);
	free(value);
	return 0;
}
