/*
 * What a loaded policy is inside, shared by the loader (policy.c), the
 * schema checks (policy_schema.c) and the decision (policy_decide.c).
 * Nothing outside policy/ sees this: the rest of postern gets const
 * pointers through policy.h and cannot change a loaded policy.
 */
#ifndef POSTERN_POLICY_INTERNAL_H
#define POSTERN_POLICY_INTERNAL_H

#include "arena.h"
#include "policy.h"
#include "yaml_tree.h"

/* Size caps: GNOME has about 1,000 modules; these leave ample room. */
#define POLICY_FILE_MAX (4u * 1024 * 1024)
#define POLICY_MODULES_MAX 100000
#define POLICY_LIST_MAX 1000
#define POLICY_PATH_MAX 1024

/* One module entry while loading, before the final sorted array exists. */
struct module_entry {
	struct policy_module m;
	bool has_maintainers;        /* "maintainers" given in this file */
	bool has_open;               /* "open" given in this file */
	unsigned long line, col;     /* of the module's name */
	const char *file;            /* file it came from, for messages */
};

struct module_list {
	struct module_entry *v;
	size_t n, cap;
};

struct policy {
	struct arena arena;
	struct policy_settings settings;
	struct policy_module *modules;    /* sorted by name */
	size_t nmodules;
	const char *config_name;          /* basename of the config file */
	struct module_list conf;          /* postern.yaml's entries, until merged */
	bool modules_loaded;              /* modules/nmodules are the merged list */
	bool modules_failed;              /* a merge failed: never decide on modules */
};

/* Context of one file's schema walk. */
struct schema_ctx {
	struct arena *a;
	const char *name;                 /* file name used in messages */
	const char *source;               /* basename, for policy_module.source */
	struct pst_err *e;
};

/* postern.yaml: fill settings and explicit module entries. */
int schema_config(struct schema_ctx *c, const struct ynode *root,
		  struct policy_settings *s, struct module_list *mods);

/* The generated DOAP module file: only "modules" with maintainers and source. */
int schema_doap_modules(struct schema_ctx *c, const struct ynode *root,
			struct module_list *mods);

/* Shared by both schemas. */
int schema_fail(struct schema_ctx *c, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int schema_user_list(struct schema_ctx *c, const struct ynode *n, const char *what,
		     const char *const **out);
int module_list_add(struct module_list *l, struct schema_ctx *c, const struct ynode *key,
		    struct module_entry **out);

void policy_settings_defaults(struct policy_settings *s);

#endif
