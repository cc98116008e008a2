/* The policy's bump allocator: one arena freed at once. It never frees or
 * moves a single allocation, so nothing in a loaded policy can dangle. */
#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK_SIZE (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used;
	size_t cap;
	alignas(max_align_t) unsigned char data[];
};

static struct arena_chunk *chunk_new(size_t cap)
{
	struct arena_chunk *c;

	if (cap > SIZE_MAX - sizeof(*c))
		return NULL;
	c = malloc(sizeof(*c) + cap);
	if (c == NULL)
		return NULL;
	c->next = NULL;
	c->used = 0;
	c->cap = cap;
	return c;
}

void *arena_alloc(struct arena *a, size_t size)
{
	const size_t align = alignof(max_align_t);
	struct arena_chunk *c = a->head;
	size_t start;
	void *p;

	if (size > SIZE_MAX - align)
		return NULL;
	size = (size + align - 1) & ~(align - 1);
	if (size == 0)
		size = align;
	if (c == NULL || c->cap - c->used < size) {
		/* An oversized request gets a chunk of its own behind the
		 * current one, so the current chunk's free space stays usable. */
		if (c != NULL && size > ARENA_CHUNK_SIZE / 4) {
			struct arena_chunk *big = chunk_new(size);
			if (big == NULL)
				return NULL;
			big->used = size;
			big->next = c->next;
			c->next = big;
			memset(big->data, 0, size);
			return big->data;
		}
		c = chunk_new(size > ARENA_CHUNK_SIZE ? size : ARENA_CHUNK_SIZE);
		if (c == NULL)
			return NULL;
		c->next = a->head;
		a->head = c;
	}
	start = c->used;
	c->used += size;
	p = c->data + start;
	memset(p, 0, size);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = arena_alloc(a, len + 1);
	if (p == NULL)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;

	while (c != NULL) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
}
