/*
 * A bump allocator: everything a loaded policy owns lives in one arena and
 * is freed at once, so the loaded policy has no ownership graph to get
 * wrong and nothing in it is ever modified after loading.
 */
#ifndef POSTERN_POLICY_ARENA_H
#define POSTERN_POLICY_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
};

/* Zeroed memory aligned for any type, or NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t size);

/* Copy len bytes of s and a terminating NUL. */
char *arena_strndup(struct arena *a, const char *s, size_t len);
char *arena_strdup(struct arena *a, const char *s);

void arena_free(struct arena *a);

#endif
