/*
 * What the steps of one pam_postern login share (pam_postern.c, and
 * pam_invite.c for users who have an invite instead of a factor). Nothing
 * here leaves the module (pam_postern.map).
 */
#ifndef POSTERN_PAM_LOGIN_H
#define POSTERN_PAM_LOGIN_H

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

#include "audit.h"
#include "pam_cfg.h"
#include "ssh_key.h"
#include "totp_record.h"
#include "totp_verify.h"

#define PROMPT "Verification code: "

/*
 * What a step returns to let the next one run. It is not a PAM code, so a
 * step can never let the login through by returning 0 (PAM_SUCCESS).
 */
#define PROCEED (-1)

/* Compiles to a test of cfg->debug; never pass it a code or a secret. */
#define debug_log(l, fmt, ...) do { \
	if ((l)->cfg.debug) \
		pam_syslog((l)->pamh, LOG_DEBUG, "%s:%d (%s): " fmt, __FILE_NAME__, __LINE__, \
			   __func__, ##__VA_ARGS__); \
} while (0)

struct login {
	pam_handle_t *pamh;
	struct pam_cfg cfg;
	struct audit_session session;
	const char *user;
	const char *service;
	const char *rhost;
	struct ssh_keys keys;          /* keys sshd accepted for this connection */
	const char *key;               /* the one we logged and, if bound, matched */
	struct totp_record rec;
	int storefd;
	bool has_sk;                   /* security keys are enrolled: not "unenrolled" */
	bool sk_required;              /* require=security-key, for a user with no key record */
};

/* Audit a refusal and return pam_rc. */
int refuse(struct login *l, const char *reason, const char *detail, int pam_rc);

/* Leave the login proof postern-shell checks (method: "totp", "invite", ...). */
int proof_leave(struct login *l, const char *method);

/* Ask for a code; PROCEED with it in code, or the refusal. */
int ask_code(struct login *l, char *code, size_t codelen);

/* The answer to totp_verify()'s verdict: proof and login_ok when accepted. */
int verdict_answer(struct login *l, enum totp_verdict v, const struct totp_outcome *o);

/*
 * For a user with neither a TOTP record nor a security key: the invite
 * login, or the login that completes an invited enrolment (pam_invite.c).
 * PROCEED when the user has no invite.
 */
int invite_step(struct login *l);

#endif
