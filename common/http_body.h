/*
 * An HTTP answer collected in memory up to a cap: the write callback that
 * libcurl calls (CURLOPT_WRITEFUNCTION with CURLOPT_WRITEDATA a struct
 * http_body). Past max bytes it stops the transfer and sets too_big. Kept
 * NUL-terminated for text answers.
 */
#ifndef POSTERN_HTTP_BODY_H
#define POSTERN_HTTP_BODY_H

#include <stdbool.h>
#include <stddef.h>

struct http_body {
	unsigned char *data;   /* malloc'ed, NUL-terminated; NULL before the first byte */
	size_t len, max;
	bool too_big;
};

size_t http_body_take(char *ptr, size_t size, size_t n, void *body);

#endif
