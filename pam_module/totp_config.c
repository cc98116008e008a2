/*
 * Where postern-totp finds its store and the incoming tree: the -C policy,
 * else the installed one, else the compiled-in state directory. It only
 * reads the policy; it must never create or change anything.
 */
#include "totp_config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "audit.h"
#include "build_config.h"
#include "policy.h"
#include "text.h"

static int from_policy(const char *path, struct totp_config *out, struct pst_err *e)
{
	const struct policy_settings *ps;
	struct policy *p = NULL;
	int rc;

	rc = policy_load(path, &p, e);
	if (rc < 0) {
		struct audit_session s;

		audit_session_init(&s, NULL, NULL);
		audit_emit(LOG_NOTICE, "policy_error", &s, "file", path, "error", e->msg, NULL);
		return rc;
	}
	ps = policy_settings(p);
	rc = 0;
	out->audit_on_failure = ps->audit_on_failure;
	if (ps->state != NULL &&
	    snprintf(out->store, sizeof(out->store), "%s/totp", ps->state) >= (int)sizeof(out->store))
		rc = pst_fail(e, ENAMETOOLONG, "%s: paths.state is too long", path);
	if (ps->incoming != NULL) {
		if (!str_copy(out->incoming_buf, sizeof(out->incoming_buf), ps->incoming))
			rc = pst_fail(e, ENAMETOOLONG, "%s: paths.incoming is too long", path);
		out->incoming = out->incoming_buf;
	}
	policy_free(p);
	return rc;
}

int totp_config_load(const char *config, const char *store_override, struct totp_config *out,
		     struct pst_err *e)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->store, sizeof(out->store), "%s/totp", POSTERN_STATEDIR);
	if (config != NULL)
		rc = from_policy(config, out, e);
	else if (access(POSTERN_CONFIG_FILE, F_OK) == 0)
		rc = from_policy(POSTERN_CONFIG_FILE, out, e);
	if (rc == 0 && store_override != NULL &&
	    !str_copy(out->store, sizeof(out->store), store_override))
		rc = pst_fail(e, ENAMETOOLONG, "-S: path too long");
	if (rc == 0 && out->store[0] != '/')
		rc = pst_fail(e, EINVAL, "%s: the store must be an absolute path", out->store);
	return rc;
}
