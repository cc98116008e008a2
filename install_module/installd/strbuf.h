/* A growing text buffer for index files and messages, with JSON string quoting. */
#ifndef POSTERN_STRBUF_H
#define POSTERN_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *s;
	size_t len;
	size_t cap;
	bool failed;    /* an allocation failed: the content is incomplete */
};

void strbuf_add(struct strbuf *b, const char *text);
void strbuf_addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append text as a JSON string: quoted, with '"', '\' and control characters escaped. */
void strbuf_add_json(struct strbuf *b, const char *text);
void strbuf_free(struct strbuf *b);

#endif
