/*
 * The two schemas the loader (policy.c) applies to a parsed YAML tree:
 * postern.yaml and the generated DOAP module file (docs/POLICY.md).
 */
#ifndef POSTERN_POLICY_SCHEMA_H
#define POSTERN_POLICY_SCHEMA_H

#include "schema_util.h"

/* postern.yaml: fill settings (already holding the defaults) and the
 * explicit module entries. */
int schema_config(struct schema_ctx *c, const struct ynode *root,
		  struct policy_settings *s, struct module_list *mods);

/* The generated DOAP module file: only "modules" with maintainers and source. */
int schema_doap_modules(struct schema_ctx *c, const struct ynode *root,
			struct module_list *mods);

#endif
