/*
 * The generated module list: what import-doap builds from DOAP files and
 * from the previous generated file, compares and writes out.
 */
#ifndef POSTERN_POLICY_DOAP_GEN_H
#define POSTERN_POLICY_DOAP_GEN_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"

struct gen_module {
	char *name;
	char *source;          /* "<module>.doap" */
	char **users;          /* n user ids, in DOAP order, no duplicates */
	size_t n;
};

struct gen_list {
	struct gen_module *v;
	size_t n, cap;
};

/* Append a module; users are copied. Returns 0 or -ENOMEM. */
int gen_add(struct gen_list *l, const char *name, const char *source,
	    const char *const *users, size_t n);
void gen_sort(struct gen_list *l);
const struct gen_module *gen_find(const struct gen_list *l, const char *name);
bool gen_has_user(const struct gen_module *m, const char *user);
void gen_free(struct gen_list *l);

/* The YAML text of the generated file (malloc'd) for a sorted list. */
int gen_render(const struct gen_list *l, char **out, size_t *len, struct pst_err *e);

/*
 * Read the previous generated file (root-owned, like the policy's files).
 * A file that does not exist gives *exists = false and an empty list.
 */
int gen_load_previous(const char *path, struct gen_list *l, bool *exists, struct pst_err *e);

/* Where gen_from_sources puts each module it read. */
struct gen_lists {
	struct gen_list read;       /* modules with usable maintainers */
	struct gen_list failed;     /* DOAP file malformed or refused */
	struct gen_list unusable;   /* no maintainer with a usable user id */
};

/*
 * Parse every <module>.doap under the given paths into out, each file in a
 * confined child (doap_confined.h). A file that is malformed is reported on
 * stderr and left out, its module added to failed; a file without one
 * usable user id is reported as a warning, its module added to unusable. A
 * path that cannot be opened is fatal (-errno).
 */
struct doap_parser;
int gen_from_sources(const char *const *paths, size_t npaths, const struct doap_parser *parser,
		     struct gen_lists *out, struct pst_err *e);
void gen_lists_free(struct gen_lists *l);

#endif
