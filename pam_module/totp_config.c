#include "totp_config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "build_config.h"
#include "policy.h"
#include "text.h"
#include "totp_admin.h"

static int from_policy(const char *path, struct totp_config *out)
{
	const struct policy_settings *ps;
	struct policy *p = NULL;
	struct pst_err e = { "" };
	int rc;

	rc = policy_load(path, &p, &e);
	if (rc < 0) {
		struct audit_session s;

		admin_session(NULL, &s);
		audit_emit(LOG_NOTICE, "policy_error", &s, "file", path, "error", e.msg, NULL);
		return admin_fail("%s", e.msg);
	}
	ps = policy_settings(p);
	rc = 0;
	out->audit_on_failure = ps->audit_on_failure;
	if (ps->state != NULL &&
	    snprintf(out->store, sizeof(out->store), "%s/totp", ps->state) >= (int)sizeof(out->store))
		rc = admin_fail("%s: paths.state is too long", path);
	if (ps->incoming != NULL) {
		if (!str_copy(out->incoming_buf, sizeof(out->incoming_buf), ps->incoming))
			rc = admin_fail("%s: paths.incoming is too long", path);
		out->incoming = out->incoming_buf;
	}
	policy_free(p);
	return rc;
}

int totp_config_load(const char *config, const char *store_override, struct totp_config *out)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->store, sizeof(out->store), "%s/totp", POSTERN_STATEDIR);
	if (config != NULL)
		rc = from_policy(config, out);
	else if (access(POSTERN_CONFIG_FILE, F_OK) == 0)
		rc = from_policy(POSTERN_CONFIG_FILE, out);
	if (rc == 0 && store_override != NULL &&
	    !str_copy(out->store, sizeof(out->store), store_override))
		rc = admin_fail("-S: path too long");
	if (rc == 0 && out->store[0] != '/')
		rc = admin_fail("%s: the store must be an absolute path", out->store);
	return rc;
}
