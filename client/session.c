/*
 * One logged-in libssh session: connect, check the host key, log in with
 * the key and the code. Both the one-command mode and --release start here,
 * so a release logs in exactly as a single command does.
 *
 * It MUST NOT read ~/.ssh/config or any option the command line did not give.
 */
#include <errno.h>

#include "client.h"

static int session_configure(ssh_session s, const struct client_opts *o, struct pst_err *e)
{
	/* Only what the command line says: no ~/.ssh/config surprises. */
	int no = 0;

	if (ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_HOST, o->host) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_USER, o->user) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &o->verbosity) < 0)
		return pst_fail(e, EINVAL, "%s: %s", o->host, ssh_get_error(s));
	if (o->port != 0 && ssh_options_set(s, SSH_OPTIONS_PORT, &o->port) < 0)
		return pst_fail(e, EINVAL, "port %u: %s", o->port, ssh_get_error(s));
	if (o->known_hosts != NULL &&
	    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, o->known_hosts) < 0)
		return pst_fail(e, EINVAL, "%s: %s", o->known_hosts, ssh_get_error(s));
	return 0;
}

int session_login(const struct client_opts *o, ssh_session *out, struct pst_err *e)
{
	ssh_session s = ssh_new();
	int rc;

	if (s == NULL)
		return pst_fail(e, ENOMEM, "cannot create an ssh session");
	rc = session_configure(s, o, e);
	if (rc == 0 && ssh_connect(s) != SSH_OK)
		rc = pst_fail(e, ECONNREFUSED, "%s: cannot connect: %s", o->host, ssh_get_error(s));
	if (rc == 0)
		rc = hostkey_verify(s, o, e);
	if (rc == 0)
		rc = auth_login(s, o, e);
	if (rc < 0) {
		session_end(s);
		return rc;
	}
	*out = s;
	return 0;
}

void session_end(ssh_session s)
{
	ssh_disconnect(s);
	ssh_free(s);
}
