/* Lists in one audit value (see audit_list.h): the writer's encoding and its exact inverse. */
#include "audit_list.h"

#include <string.h>

#include "audit.h"

/* Bytes item takes encoded. */
static size_t encoded_len(const char *item)
{
	size_t n = 0;

	if (strcmp(item, "-") == 0)
		return 3;
	for (; *item != '\0'; item++)
		n += (*item == '%' || *item == ',') ? 3 : 1;
	return n;
}

static void encode(const char *item, char *out)
{
	if (strcmp(item, "-") == 0) {
		memcpy(out, "%2d", 4);
		return;
	}
	for (; *item != '\0'; item++) {
		if (*item == '%' || *item == ',') {
			memcpy(out, *item == '%' ? "%25" : "%2c", 3);
			out += 3;
		} else {
			*out++ = *item;
		}
	}
	*out = '\0';
}

bool audit_list_add(char *buf, size_t size, const char *item)
{
	char escaped[AUDIT_VALUE_MAX + 1];
	size_t len = strlen(buf), need;
	int truncated = 0;

	if (item[0] == '\0')
		return false;
	need = (len > 0 ? 1 : 0) + encoded_len(item);
	if (need >= size - len)
		return false;
	if (len > 0)
		buf[len++] = ',';
	encode(item, buf + len);
	audit_escape(escaped, sizeof(escaped), buf, &truncated);
	if (truncated) {
		buf[len > 0 && buf[len - 1] == ',' ? len - 1 : len] = '\0';
		return false;
	}
	return true;
}

/* The byte a "%xx" escape stands for, or 0 when it is not one we write. */
static char decode_escape(const char *p)
{
	if (p[0] != '%' || p[1] != '2')
		return 0;
	switch (p[2]) {
	case '5':
		return '%';
	case 'c':
		return ',';
	case 'd':
		return '-';
	default:
		return 0;
	}
}

int audit_list_next(const char **cursor, char *item, size_t size)
{
	const char *start = *cursor, *p = start;
	char again[3 * AUDIT_VALUE_MAX + 4];
	size_t n = 0;
	char c;

	if (*p == '\0' || strcmp(p, "-") == 0)
		return 0;
	while (*p != '\0' && *p != ',') {
		c = *p == '%' ? decode_escape(p) : *p;
		if (c == 0 || n + 1 >= size || n >= AUDIT_VALUE_MAX)
			return -1;
		item[n++] = c;
		p += *p == '%' ? 3 : 1;
	}
	item[n] = '\0';
	/* After a ',' comes an item: not the end, not a bare "-" (the empty list). */
	if (n == 0 || (p[0] == ',' && (p[1] == '\0' || strcmp(p + 1, "-") == 0)))
		return -1;
	/* Only the one spelling audit_list_add() writes ("%2d" is the item "-" alone). */
	encode(item, again);
	if (strlen(again) != (size_t)(p - start) || memcmp(again, start, (size_t)(p - start)) != 0)
		return -1;
	*cursor = *p == ',' ? p + 1 : p;
	return 1;
}
