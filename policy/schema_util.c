/* Typed reads of YAML nodes for the schemas; a value is stored only once
 * it is checked, never a default in place of a value that is wrong. */
#include "schema_util.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define SCHEMA_ARGV_MAX 64

int schema_fail(struct schema_ctx *c, const struct ynode *n, const char *fmt, ...)
{
	char what[PST_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return pst_fail(c->e, EINVAL, "%s:%lu:%lu: %s", c->name, n->line, n->col, what);
}

bool schema_is_null(const struct ynode *n)
{
	return n->kind == YNODE_SCALAR && n->plain &&
	       (n->value[0] == '\0' || strcmp(n->value, "~") == 0 ||
		strcmp(n->value, "null") == 0 || strcmp(n->value, "Null") == 0 ||
		strcmp(n->value, "NULL") == 0);
}

static const char *kind_name(const struct ynode *n)
{
	if (schema_is_null(n))
		return "nothing";
	switch (n->kind) {
	case YNODE_SCALAR: return "a single value";
	case YNODE_SEQUENCE: return "a list";
	case YNODE_MAPPING: return "a mapping";
	default: return "something else";
	}
}

int schema_expect(struct schema_ctx *c, const struct ynode *n, enum ynode_kind kind,
		  const char *what)
{
	static const char *const wanted[] = {
		[YNODE_SCALAR] = "a single value",
		[YNODE_SEQUENCE] = "a list",
		[YNODE_MAPPING] = "a mapping",
	};

	if (n->kind == kind && !(kind == YNODE_SCALAR && schema_is_null(n)))
		return 0;
	return schema_fail(c, n, "%s: expected %s, found %s", what, wanted[kind], kind_name(n));
}

int schema_walk(struct schema_ctx *c, const struct ynode *map, const char *what,
		const struct schema_key *keys, size_t nkeys, void *target)
{
	const struct ynode *seen[32] = { 0 };
	const struct ynode *k;
	size_t i;
	int rc;

	if (nkeys > sizeof(seen) / sizeof(seen[0]))
		return pst_fail(c->e, EINVAL, "%s: schema table too large", c->name);
	rc = schema_expect(c, map, YNODE_MAPPING, what);
	if (rc < 0)
		return rc;
	for (k = map->first; k != NULL && k->next != NULL; k = k->next->next) {
		if (k->kind != YNODE_SCALAR)
			return schema_fail(c, k, "%s: a key must be a single word", what);
		for (i = 0; i < nkeys && strcmp(keys[i].key, k->value) != 0; i++)
			;
		if (i == nkeys)
			return schema_fail(c, k, "%s: unknown key '%s'", what, k->value);
		if (seen[i] != NULL)
			return schema_fail(c, k, "%s: duplicate key '%s' (first at line %lu)",
					   what, k->value, seen[i]->line);
		seen[i] = k;
		rc = keys[i].read(c, k->next, target);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int schema_string(struct schema_ctx *c, const struct ynode *n, const char *what,
		  const char **out)
{
	int rc = schema_expect(c, n, YNODE_SCALAR, what);

	if (rc < 0)
		return rc;
	if (n->value[0] == '\0')
		return schema_fail(c, n, "%s: must not be empty", what);
	if (str_has_control(n->value))
		return schema_fail(c, n, "%s: control characters are not allowed", what);
	*out = n->value;
	return 0;
}

static bool has_dot_component(const char *path)
{
	const char *p = path;

	while (*p != '\0') {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return true;
		p += len;
	}
	return false;
}

int schema_path(struct schema_ctx *c, const struct ynode *n, const char *what,
		const char **out)
{
	int rc = schema_string(c, n, what, out);

	if (rc < 0)
		return rc;
	if ((*out)[0] != '/')
		return schema_fail(c, n, "%s: '%s' is not an absolute path", what, *out);
	if (strlen(*out) >= POLICY_PATH_MAX)
		return schema_fail(c, n, "%s: path longer than %u bytes", what, POLICY_PATH_MAX);
	if (has_dot_component(*out))
		return schema_fail(c, n, "%s: '%s' has a '.' or '..' component (write the path plainly)",
				   what, *out);
	return 0;
}

int schema_bool(struct schema_ctx *c, const struct ynode *n, const char *what, bool *out)
{
	int rc = schema_expect(c, n, YNODE_SCALAR, what);

	if (rc < 0)
		return rc;
	if (n->plain && strcmp(n->value, "true") == 0)
		*out = true;
	else if (n->plain && strcmp(n->value, "false") == 0)
		*out = false;
	else
		return schema_fail(c, n, "%s: expected true or false, found '%s'", what, n->value);
	return 0;
}

/* A binary size suffix: K, M, G, T, optionally followed by "iB". */
static int suffix_shift(const char *s, unsigned *shift)
{
	static const char units[] = "KMGT";
	const char *u;

	if (*s == '\0') {
		*shift = 0;
		return 0;
	}
	u = strchr(units, *s);
	if (u == NULL || (s[1] != '\0' && strcmp(s + 1, "iB") != 0))
		return -1;
	*shift = 10 * (unsigned)(u - units + 1);
	return 0;
}

static int parse_number(const char *s, bool allow_suffix, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s != '\0' && (!allow_suffix || suffix_shift(s, &shift) < 0))
		return -1;
	if (shift > 0 && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int schema_size(struct schema_ctx *c, const struct ynode *n, const char *what,
		uint64_t min, uint64_t *out)
{
	int rc = schema_expect(c, n, YNODE_SCALAR, what);

	if (rc < 0)
		return rc;
	if (parse_number(n->value, true, out) < 0)
		return schema_fail(c, n, "%s: expected a size in bytes such as 2147483648 or 2G, found '%s'",
				   what, n->value);
	if (*out < min)
		return schema_fail(c, n, "%s: must be at least %llu", what,
				   (unsigned long long)min);
	return 0;
}

int schema_uint(struct schema_ctx *c, const struct ynode *n, const char *what,
		unsigned min, unsigned *out)
{
	uint64_t v;
	int rc = schema_expect(c, n, YNODE_SCALAR, what);

	if (rc < 0)
		return rc;
	if (parse_number(n->value, false, &v) < 0 || v > UINT_MAX)
		return schema_fail(c, n, "%s: expected a whole number, found '%s'", what, n->value);
	if (v < min)
		return schema_fail(c, n, "%s: must be at least %u", what, min);
	*out = (unsigned)v;
	return 0;
}

/* Collect the scalar items of a list into a NULL-terminated array. */
static int string_list(struct schema_ctx *c, const struct ynode *n, const char *what,
		       size_t max, bool paths, const char ***out)
{
	const struct ynode *item;
	const char **v;
	size_t i = 0;
	int rc = schema_expect(c, n, YNODE_SEQUENCE, what);

	if (rc < 0)
		return rc;
	if (n->count == 0)
		return schema_fail(c, n, "%s: the list is empty (list something or leave the key out)",
				   what);
	if (n->count > max)
		return schema_fail(c, n, "%s: more than %zu entries", what, max);
	v = arena_alloc(c->a, (n->count + 1) * sizeof(*v));
	if (v == NULL)
		return pst_fail(c->e, ENOMEM, "out of memory");
	for (item = n->first; item != NULL; item = item->next) {
		rc = paths ? schema_path(c, item, what, &v[i]) : schema_string(c, item, what, &v[i]);
		if (rc < 0)
			return rc;
		i++;
	}
	*out = v;
	return 0;
}

static int cmp_node_value(const void *a, const void *b)
{
	const struct ynode *x = *(const struct ynode *const *)a;
	const struct ynode *y = *(const struct ynode *const *)b;
	int d = strcmp(x->value, y->value);

	if (d != 0)
		return d;
	return x->line != y->line ? (x->line < y->line ? -1 : 1)
				  : (x->col < y->col ? -1 : x->col > y->col);
}

/* The later of two equal items in a list, or NULL when all differ. */
static const struct ynode *find_duplicate(struct schema_ctx *c, const struct ynode *list,
					  int *err)
{
	const struct ynode **sorted;
	const struct ynode *item;
	const struct ynode *dup = NULL;
	size_t i = 0;

	*err = 0;
	sorted = malloc(list->count * sizeof(*sorted));
	if (sorted == NULL) {
		*err = pst_fail(c->e, ENOMEM, "out of memory");
		return NULL;
	}
	for (item = list->first; item != NULL; item = item->next)
		sorted[i++] = item;
	qsort(sorted, list->count, sizeof(*sorted), cmp_node_value);
	for (i = 1; i < list->count && dup == NULL; i++)
		if (strcmp(sorted[i - 1]->value, sorted[i]->value) == 0)
			dup = sorted[i];
	free(sorted);
	return dup;
}

int schema_word_list(struct schema_ctx *c, const struct ynode *n, const char *what, size_t max,
		     bool (*valid)(const char *), const char *kind, const char *const **out)
{
	const struct ynode *item;
	const struct ynode *dup;
	const char **v;
	int rc = string_list(c, n, what, max, false, &v);

	if (rc < 0)
		return rc;
	for (item = n->first; item != NULL; item = item->next)
		if (!valid(item->value))
			return schema_fail(c, item, "%s: '%s' is not %s", what, item->value, kind);
	dup = find_duplicate(c, n, &rc);
	if (rc < 0)
		return rc;
	if (dup != NULL)
		return schema_fail(c, dup, "%s: '%s' is listed twice", what, dup->value);
	*out = v;
	return 0;
}

int schema_user_list(struct schema_ctx *c, const struct ynode *n, const char *what,
		     const char *const **out)
{
	return schema_word_list(c, n, what, POLICY_LIST_MAX, name_is_user, "a valid user name", out);
}

int schema_group(struct schema_ctx *c, const struct ynode *n, const char *what, const char **out)
{
	int rc = schema_string(c, n, what, out);

	if (rc == 0 && !name_is_user(*out))
		return schema_fail(c, n, "%s: '%s' is not a valid group name", what, *out);
	return rc;
}

int schema_path_list(struct schema_ctx *c, const struct ynode *n, const char *what,
		     const char *const **out)
{
	const char **v;
	int rc = string_list(c, n, what, POLICY_LIST_MAX, true, &v);

	if (rc == 0)
		*out = v;
	return rc;
}

int schema_argv(struct schema_ctx *c, const struct ynode *n, const char *what,
		const char *const **out)
{
	const char **v;
	int rc = string_list(c, n, what, SCHEMA_ARGV_MAX, false, &v);

	if (rc < 0)
		return rc;
	if (v[0][0] != '/')
		return schema_fail(c, n->first, "%s: the program '%s' must be an absolute path",
				   what, v[0]);
	rc = schema_path(c, n->first, what, &v[0]);
	if (rc < 0)
		return rc;
	*out = v;
	return 0;
}

void *schema_entries(struct schema_ctx *c, const struct ynode *v, const char *what,
		     const char *noun, size_t max, size_t size, int *rc)
{
	void *out;

	*rc = schema_expect(c, v, YNODE_MAPPING, what);
	if (*rc < 0)
		return NULL;
	if (v->count == 0 || v->count / 2 > max) {
		*rc = schema_fail(c, v, "%s: between 1 and %zu %s", what, max, noun);
		return NULL;
	}
	out = arena_alloc(c->a, (v->count / 2) * size);
	if (out == NULL)
		*rc = pst_fail(c->e, ENOMEM, "out of memory");
	return out;
}
