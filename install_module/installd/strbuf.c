/*
 * A growing text buffer with JSON quoting (strbuf.h). On allocation failure it
 * marks the buffer failed; it must never write past its end.
 */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(struct strbuf *b, size_t more)
{
	size_t cap;
	char *bigger;

	if (b->failed)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1)
		cap *= 2;
	bigger = realloc(b->s, cap);
	if (bigger == NULL) {
		b->failed = true;
		return false;
	}
	b->s = bigger;
	b->cap = cap;
	return true;
}

void strbuf_add(struct strbuf *b, const char *text)
{
	size_t n = strlen(text);

	if (!grow(b, n))
		return;
	memcpy(b->s + b->len, text, n + 1);
	b->len += n;
}

void strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !grow(b, (size_t)n)) {
		b->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void strbuf_add_json(struct strbuf *b, const char *text)
{
	const unsigned char *p;
	char esc[8];

	strbuf_add(b, "\"");
	for (p = (const unsigned char *)text; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			esc[2] = '\0';
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
		} else {
			esc[0] = (char)*p;
			esc[1] = '\0';
		}
		strbuf_add(b, esc);
	}
	strbuf_add(b, "\"");
}

void strbuf_free(struct strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
