/*
 * Runs the real client library as postern-shell would, for the process
 * tests: installd-client-driver CONFIG COMMAND [ARG...], as the maintainer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>
#include <pwd.h>

#include "audit.h"
#include "installd_client.h"
#include "policy.h"

int main(int argc, char **argv)
{
	struct audit_session s;
	struct policy *p = NULL;
	struct pst_err e;
	struct passwd *pw = getpwuid(getuid());
	int rc;

	if (argc < 3 || pw == NULL) {
		fprintf(stderr, "usage: installd-client-driver CONFIG COMMAND [ARG...]\n");
		return 2;
	}
	openlog("postern-shell", LOG_PID, LOG_AUTHPRIV);
	if (policy_load(argv[1], &p, &e) < 0) {
		fprintf(stderr, "installd-client-driver: %s\n", e.msg);
		return 2;
	}
	audit_session_init(&s, pw->pw_name, getenv("SSH_CONNECTION"));
	rc = installd_client_run(p, &s, argc - 2, argv + 2);
	policy_free(p);
	return rc;
}
