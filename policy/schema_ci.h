/*
 * The CI part of postern.yaml (docs/POLICY.md, "ci"): the ci mapping of the
 * settings (listen, issuers) and a module's ci list, read like every other
 * key, with FILE:LINE:COL errors; then the check that every module's ci
 * entry names an issuer the ci mapping declares.
 */
#ifndef POSTERN_POLICY_SCHEMA_CI_H
#define POSTERN_POLICY_SCHEMA_CI_H

#include "schema_util.h"

#define POLICY_CI_ISSUERS_MAX 16
#define POLICY_CI_BINDINGS_MAX 16
#define POLICY_CI_PROJECT_MAX 255

int schema_ci(struct schema_ctx *c, const struct ynode *v, struct policy_settings *s);

/* modules.M.ci: a list of {issuer: NAME, project: PATH}. */
int schema_module_ci(struct schema_ctx *c, const struct ynode *v, struct policy_module *m);

/* Every binding of mods names one of s's issuers; else FILE:LINE:COL. */
int schema_ci_bindings_check(struct schema_ctx *c, const struct policy_settings *s,
			     const struct module_list *mods);

#endif
