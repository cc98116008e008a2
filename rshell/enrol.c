/*
 * `enroll` (enrol.h). It prints what root left for this login, read from a
 * file in a root-owned directory that must be this user's and no one
 * else's; it never writes anything.
 */
#include "enrol.h"

#include <errno.h>
#include <string.h>

#include "enrol_handoff.h"
#include "totp_qr.h"

#define PROG "postern-shell"

bool enrol_session_is_invite(const struct login_proof *proof)
{
	return strcmp(proof->method, "invite") == 0;
}

static void show_secret(FILE *out, const struct enrol_handoff *h, const char *user)
{
	fprintf(out, "Welcome, %s. Add this account to your authenticator app: scan the QR code\n"
		"(6 digits, every 30 seconds)\n", user);
	if (qr_show(out, h->uri) < 0)
		fprintf(out, "(no QR code could be drawn: type the URI into the app)\n");
	if (h->key_type[0] != '\0')
		fprintf(out, "\nYou logged in with the security key %s (%s).\n"
			"To make it your second factor instead of the app, just log in again with it:\n"
			"  ssh HOST enroll\n"
			"That login completes the enrolment; no code will be asked for.\n",
			h->key_fpr, h->key_type);
	fprintf(out, "\nTo finish, log in again and type a code from the app at \"Verification code:\":\n"
		"  ssh HOST enroll\n"
		"That login completes the enrolment, uses up your invite and shows your recovery\n"
		"codes. Until then this account can only enrol.\n");
}

static void show_codes(FILE *out, const struct enrol_handoff *h)
{
	size_t i;

	fprintf(out, "Enrolment complete: from now on, log in with your ssh key and a code from the app.\n"
		"Recovery codes (each works once instead of a code; shown only now, keep them offline):\n");
	for (i = 0; i < h->ncodes; i++)
		fprintf(out, "  %s\n", h->codes[i]);
}

/* The handoff's content to out; false (nothing printed) when there is none or it is unreadable. */
static bool handoff_show(FILE *out, const char *logins, const struct login_proof *proof,
			 uid_t uid, const char *user, int *rc_out, struct pst_err *e)
{
	char buf[LOGIN_HANDOFF_MAX + 1];
	struct enrol_handoff h;
	size_t len = 0;

	*rc_out = login_handoff_read(logins, proof, uid, buf, sizeof(buf), &len, e);
	if (*rc_out == 0 && enrol_handoff_parse(buf, len, &h, e) < 0)
		*rc_out = -EINVAL;
	explicit_bzero(buf, sizeof(buf));
	if (*rc_out < 0)
		return false;
	if (h.uri[0] != '\0')
		show_secret(out, &h, user);
	else
		show_codes(out, &h);
	enrol_handoff_wipe(&h);
	return true;
}

void enrol_notice(FILE *out, const char *logins, const struct login_proof *proof, uid_t uid,
		  const char *user)
{
	struct pst_err e = { "" };
	int rc;

	handoff_show(out, logins, proof, uid, user, &rc, &e);
}

int enrol_run(FILE *out, const char *logins, const struct login_proof *proof, uid_t uid,
	      const char *user)
{
	struct pst_err e = { "" };
	int rc;

	if (handoff_show(out, logins, proof, uid, user, &rc, &e))
		return 0;
	if (rc == -ENOENT && !enrol_session_is_invite(proof)) {
		fprintf(out, "You are enrolled: this login passed the second factor (%s).\n"
			"To change your factor, ask an administrator.\n", proof->method);
		return 0;
	}
	fprintf(stderr, PROG ": enroll: what the login left for this session cannot be read "
		"(%s); log in again, and if it persists tell an administrator\n", e.msg);
	return 1;
}
