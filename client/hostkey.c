/*
 * Host key check through libssh's known_hosts API, the same file format
 * OpenSSH uses ("[host]:port" for a port other than 22).
 *
 * A known, matching key passes. A changed key, or a key of another type
 * than the one on record, is always refused: that is what an attacker in
 * the middle looks like, and no option turns it off. An unknown key is
 * remembered after the user says yes on the terminal, or without asking
 * with --accept-new (trust on first use, for scripts and tests).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "client.h"

static int fingerprint(ssh_session s, char **fp, const char **type, struct pst_err *e)
{
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;

	if (ssh_get_server_publickey(s, &key) != SSH_OK)
		return pst_fail(e, EPROTO, "the server sent no host key: %s", ssh_get_error(s));
	*type = ssh_key_type_to_char(ssh_key_type(key));
	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) != 0) {
		ssh_key_free(key);
		return pst_fail(e, EPROTO, "cannot hash the server's host key");
	}
	*fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	return *fp != NULL ? 0 : pst_fail(e, ENOMEM, "cannot format the host key fingerprint");
}

static int ask_first_use(const struct client_opts *o, const char *type, const char *fp,
			 struct pst_err *e)
{
	char prompt[512], answer[16];
	int rc;

	snprintf(prompt, sizeof(prompt),
		 "The authenticity of host '%s' (port %u) can't be established.\n"
		 "%s key fingerprint is %s.\n"
		 "Compare it with the one your admins published. Remember this key (yes/no)? ",
		 o->host, o->port != 0 ? o->port : 22, type != NULL ? type : "unknown", fp);
	rc = tty_ask(prompt, true, answer, sizeof(answer), e);
	if (rc < 0) {
		pst_err_prefix(e, "%s: unknown host key %s (check it, then use --accept-new)",
			       o->host, fp);
		return rc;
	}
	if (strcasecmp(answer, "yes") != 0)
		return pst_fail(e, EPERM, "%s: host key %s not accepted", o->host, fp);
	return 0;
}

static int remember(ssh_session s, const struct client_opts *o, const char *fp,
		    struct pst_err *e)
{
	if (ssh_session_update_known_hosts(s) != SSH_OK)
		return pst_fail(e, EIO, "%s: cannot record host key %s in known_hosts: %s",
				o->host, fp, ssh_get_error(s));
	fprintf(stderr, "postern-client: %s: host key %s added to known_hosts\n", o->host, fp);
	return 0;
}

int hostkey_verify(ssh_session s, const struct client_opts *o, struct pst_err *e)
{
	const char *type = NULL;
	char *fp = NULL;
	int rc = fingerprint(s, &fp, &type, e);

	if (rc < 0)
		return rc;
	switch (ssh_session_is_known_server(s)) {
	case SSH_KNOWN_HOSTS_OK:
		rc = 0;
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
		rc = pst_fail(e, EPERM,
			      "%s: HOST KEY CHANGED, now %s %s: someone may be intercepting the "
			      "connection; if your admins announced a new key, remove the old line "
			      "from known_hosts", o->host, type, fp);
		break;
	case SSH_KNOWN_HOSTS_OTHER:
		rc = pst_fail(e, EPERM,
			      "%s: the server offers a %s key but known_hosts holds another type "
			      "for it: possible attack; check with your admins", o->host, type);
		break;
	case SSH_KNOWN_HOSTS_NOT_FOUND:
	case SSH_KNOWN_HOSTS_UNKNOWN:
		rc = o->accept_new ? 0 : ask_first_use(o, type, fp, e);
		if (rc == 0)
			rc = remember(s, o, fp, e);
		break;
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		rc = pst_fail(e, EIO, "%s: cannot check the host key: %s", o->host, ssh_get_error(s));
		break;
	}
	ssh_string_free_char(fp);
	return rc;
}
