/* What a maintainer sees for `help` and for an interactive login. */
#ifndef POSTERN_RSHELL_HELP_H
#define POSTERN_RSHELL_HELP_H

#include <stdio.h>

#include "policy.h"

/* The commands, the user's incoming directory and what the policy lets
 * them release. */
void shell_help_print(FILE *out, const char *user, const struct policy *policy);

#endif
