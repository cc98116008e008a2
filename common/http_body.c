/* An HTTP answer in memory, capped (http_body.h). */
#include "http_body.h"

#include <stdlib.h>
#include <string.h>

size_t http_body_take(char *ptr, size_t size, size_t n, void *arg)
{
	struct http_body *b = arg;
	size_t add = size * n;
	unsigned char *bigger;

	if (add > b->max - b->len) {
		b->too_big = true;
		return 0;         /* libcurl stops the transfer */
	}
	bigger = realloc(b->data, b->len + add + 1);
	if (bigger == NULL)
		return 0;
	b->data = bigger;
	memcpy(b->data + b->len, ptr, add);
	b->len += add;
	b->data[b->len] = '\0';
	return add;
}
