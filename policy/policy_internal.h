/*
 * What a loaded policy is inside, shared by the loader (policy.c), the
 * schema checks (policy_schema.c) and the decision (policy_decide.c).
 * Data only: the functions are declared by the file that defines them.
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

#endif
