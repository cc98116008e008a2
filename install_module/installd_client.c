#include "installd_client.h"

#include <stdio.h>

int installd_client_run(const struct policy *policy, const struct audit_session *session,
			int argc, char **argv)
{
	(void)policy;
	(void)session;
	(void)argc;
	fprintf(stderr, "%s: not available yet: the release daemon's client has not landed\n",
		argv[0]);
	return 69;
}
