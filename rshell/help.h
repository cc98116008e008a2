/* What a maintainer sees for `help` and for an interactive login. */
#ifndef POSTERN_RSHELL_HELP_H
#define POSTERN_RSHELL_HELP_H

#include <stdio.h>

/* incoming may be NULL when the policy names none. */
void shell_help_print(FILE *out, const char *user, const char *incoming);

#endif
