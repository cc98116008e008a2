/*
 * Typed reads of YAML nodes for the schema walks: each either stores a value
 * that is known to be sensible or fails with "FILE:LINE:COL: what is wrong".
 */
#ifndef POSTERN_POLICY_SCHEMA_UTIL_H
#define POSTERN_POLICY_SCHEMA_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "policy_internal.h"

/* Context of one file's schema walk. */
struct schema_ctx {
	struct arena *a;
	const char *name;                 /* file name used in messages */
	const char *source;               /* basename, for policy_module.source */
	struct pst_err *e;
};

/* "FILE:LINE:COL: what" in c->e for node n; returns -EINVAL. */
int schema_fail(struct schema_ctx *c, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One known key of a mapping and what to do with its value. */
struct schema_key {
	const char *key;
	int (*read)(struct schema_ctx *c, const struct ynode *value, void *target);
};

/*
 * Walk map (which must be a mapping) and call the reader of each key with
 * target. Unknown keys, duplicate keys and non-scalar keys are errors. what
 * names the mapping in messages ("paths", "module gtk").
 */
int schema_walk(struct schema_ctx *c, const struct ynode *map, const char *what,
		const struct schema_key *keys, size_t nkeys, void *target);

bool schema_is_null(const struct ynode *n);
int schema_expect(struct schema_ctx *c, const struct ynode *n, enum ynode_kind kind,
		  const char *what);

int schema_string(struct schema_ctx *c, const struct ynode *n, const char *what,
		  const char **out);
int schema_path(struct schema_ctx *c, const struct ynode *n, const char *what,
		const char **out);
int schema_bool(struct schema_ctx *c, const struct ynode *n, const char *what, bool *out);
int schema_size(struct schema_ctx *c, const struct ynode *n, const char *what,
		uint64_t min, uint64_t *out);
int schema_uint(struct schema_ctx *c, const struct ynode *n, const char *what,
		unsigned min, unsigned *out);
int schema_path_list(struct schema_ctx *c, const struct ynode *n, const char *what,
		     const char *const **out);
int schema_user_list(struct schema_ctx *c, const struct ynode *n, const char *what,
		     const char *const **out);
/* A list of at most max distinct values, each one valid(); else
 * "WHAT: 'VALUE' is not KIND" or "WHAT: 'VALUE' is listed twice". */
int schema_word_list(struct schema_ctx *c, const struct ynode *n, const char *what, size_t max,
		     bool (*valid)(const char *), const char *kind, const char *const **out);
/*
 * A mapping of NAME: VALUE entries, at least one and at most max (else
 * "WHAT: between 1 and MAX NOUN"): a zeroed array of one size-byte element
 * per entry, owned by the arena; NULL, with *rc < 0, when it is not.
 */
void *schema_entries(struct schema_ctx *c, const struct ynode *v, const char *what,
		     const char *noun, size_t max, size_t size, int *rc);
/* A Unix group name (the rules of a user name). */
int schema_group(struct schema_ctx *c, const struct ynode *n, const char *what, const char **out);
int schema_argv(struct schema_ctx *c, const struct ynode *n, const char *what,
		const char *const **out);

#endif
