/*
 * Where the command comes from. sshd starts a login shell as
 * "postern-shell -c COMMAND" (or argv[0] "-postern-shell" and nothing else
 * for an interactive login); with "ForceCommand postern-shell" it runs the
 * user's shell, which runs "postern-shell" with no arguments, and the
 * client's command is in SSH_ORIGINAL_COMMAND. docs/SHELL.md says why each
 * mode trusts only its own source.
 */
#ifndef POSTERN_RSHELL_INVOCATION_H
#define POSTERN_RSHELL_INVOCATION_H

#include "errmsg.h"

enum shell_mode {
	SHELL_MODE_LOGIN,    /* the account's login shell: only -c counts */
	SHELL_MODE_FORCED,   /* ForceCommand: only SSH_ORIGINAL_COMMAND counts */
};

struct shell_invocation {
	enum shell_mode mode;
	const char *command;   /* NULL: no command, an interactive login */
};

/*
 * Decide the mode from argv alone and pick the command from that mode's
 * source. ssh_original_command is the environment's SSH_ORIGINAL_COMMAND
 * (NULL when unset); it is ignored unless the mode is SHELL_MODE_FORCED.
 * Any other argv form is refused with -EINVAL.
 */
int shell_invocation_parse(int argc, const char *const argv[], const char *ssh_original_command,
			   struct shell_invocation *inv, struct pst_err *e);

/* "login_shell" or "forced", as in the audit records. */
const char *shell_mode_name(enum shell_mode mode);

#endif
