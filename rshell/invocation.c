/*
 * Finds the command in the source the invocation mode trusts (invocation.h). It
 * must never take a command from another source.
 */
#include "invocation.h"

#include <errno.h>
#include <string.h>

int shell_invocation_parse(int argc, const char *const argv[], const char *ssh_original_command,
			   struct shell_invocation *inv, struct pst_err *e)
{
	inv->mode = SHELL_MODE_LOGIN;
	inv->command = NULL;
	if (argc == 3 && strcmp(argv[1], "-c") == 0) {
		inv->command = argv[2];
		return 0;
	}
	if (argc == 1 && argv[0] != NULL && argv[0][0] == '-')
		return 0;    /* sshd's interactive login: "-postern-shell" */
	if (argc == 1 && argv[0] != NULL) {
		inv->mode = SHELL_MODE_FORCED;
		inv->command = ssh_original_command;
		return 0;
	}
	return pst_fail(e, EINVAL,
			"unexpected arguments: postern-shell is started by sshd, as a login shell "
			"(postern-shell -c COMMAND) or through ForceCommand (no arguments)");
}

const char *shell_mode_name(enum shell_mode mode)
{
	return mode == SHELL_MODE_FORCED ? "forced" : "login_shell";
}
