/* What postern-policy check, explain and modules print about a loaded policy. */
#ifndef POSTERN_POLICY_REPORT_H
#define POSTERN_POLICY_REPORT_H

#include <stdio.h>

#include "policy.h"

/* The summary of check; returns the number of warnings printed. */
unsigned report_check(FILE *out, const struct policy *p, const char *path);

/* One decision and its reason; returns the basis. */
enum policy_basis report_explain(FILE *out, const struct policy *p, const char *user,
				 enum policy_action action, const char *module);

/*
 * The same for a CI identity "ci:ISSUER/PROJECT" (is_ci_identity): whether
 * its jobs may release module (policy_ci_may), and from which tags; CI
 * jobs never delete. Returns whether it is allowed.
 */
bool is_ci_identity(const char *who);
bool report_explain_ci(FILE *out, const struct policy *p, const char *who,
		       enum policy_action action, const char *module);

/* Every module user may release, with the reason; returns how many. */
size_t report_modules(FILE *out, const struct policy *p, const char *user);

#endif
