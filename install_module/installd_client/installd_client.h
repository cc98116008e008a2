/*
 * The maintainer's side of postern-installd: what postern-shell runs for
 * install-module, list and delete-own. It runs as the maintainer, opens the
 * user's own uploads itself, and talks to the daemon over its Unix socket.
 */
#ifndef POSTERN_INSTALLD_CLIENT_H
#define POSTERN_INSTALLD_CLIENT_H

#include "audit.h"
#include "policy.h"

/*
 * Run one already-validated command. argv[0] is "install-module", "list" or
 * "delete-own"; argv[1..] its arguments as the shell split them. Output for
 * the maintainer goes to stdout/stderr. Returns the process exit status.
 */
int installd_client_run(const struct policy *policy, const struct audit_session *session,
			int argc, char **argv);

#endif
