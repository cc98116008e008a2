/*
 * pam_postern: the second factor for sshd logins.
 *
 * MUST: deny unless a code was verified or sshd's publickey step used one of
 * the user's enrolled security keys — every path starts from a failure
 * return and only the branches after a verified and recorded factor return
 * PAM_SUCCESS (pam-u2f's CVE-2025-23013 was an initial PAM_IGNORE);
 * check that sshd's publickey step happened (SSH_AUTH_INFO_0) and, when the
 * record binds keys, that it used one of them, before showing any prompt;
 * decide with totp_verify() under the record's exclusive lock and write the
 * new state before answering; leave the login proof postern-shell asks for
 * (common/login_proof.h) before admitting an ssh login, and refuse the login
 * when it cannot; write one audit record for every answer.
 * MUST NOT: log a code, a secret or a recovery code, even in debug mode;
 * tell the client why it was refused (a locked account looks like a wrong
 * code); return PAM_IGNORE except for a user with no factor at all (no
 * TOTP record, no security key) with nullok.
 */
#include <errno.h>
#include <pwd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "login_proof.h"
#include "pam_cfg.h"
#include "pam_login.h"
#include "sk_store.h"
#include "ssh_key.h"
#include "text.h"
#include "totp_store.h"
#include "totp_verify.h"

/*
 * The line pam_syslog() writes, "pam_postern(SERVICE:auth): RECORD" at
 * LOG_AUTHPRIV (postern-audit reads that prefix), without its two
 * growing heap copies of the record: in sshd's PAM child each fresh heap
 * page is a copy-on-write fault (docs/TOTP.md, "What a login costs").
 */
static void audit_to_syslog(int priority, const char *record, void *arg)
{
	const void *service = NULL;

	if (pam_get_item(arg, PAM_SERVICE, &service) != PAM_SUCCESS || service == NULL)
		service = "?";
	syslog(LOG_AUTHPRIV | priority, "pam_postern(%s:auth): %s", (const char *)service,
	       record);
}

int refuse(struct login *l, const char *reason, const char *detail, int pam_rc)
{
	char failures[16];

	snprintf(failures, sizeof(failures), "%u", l->rec.failures);
	audit_emit(LOG_NOTICE, "login_fail", &l->session, "service", l->service,
		   "reason", reason, "key", l->key, "failures", failures,
		   "rhost", l->rhost, "detail", detail, NULL);
	return pam_rc;
}

static const char *pam_str_item(pam_handle_t *pamh, int item)
{
	const void *v = NULL;

	if (pam_get_item(pamh, item, &v) != PAM_SUCCESS)
		return NULL;
	return v;
}

/* Which keys sshd accepted; none (or garbage) means no key step happened. */
static int key_step(struct login *l)
{
	struct pst_err e = { "" };
	const char *info = pam_getenv(l->pamh, "SSH_AUTH_INFO_0");

	if (l->cfg.no_pubkey_check)
		return PROCEED;
	if (info == NULL)
		return refuse(l, "no_key_step", "SSH_AUTH_INFO_0 is not set", PAM_AUTH_ERR);
	if (ssh_auth_info_keys(info, &l->keys, &e) < 0)
		return refuse(l, "no_key_step", e.msg, PAM_AUTH_ERR);
	if (l->keys.n == 0)
		return refuse(l, "no_key_step", "no publickey method in SSH_AUTH_INFO_0",
			      PAM_AUTH_ERR);
	l->key = l->keys.fpr[0];
	debug_log(l, "sshd accepted %zu key(s), first %s", l->keys.n, l->key);
	return PROCEED;
}

/* A record that binds keys needs one of them to have been used. */
static int key_binding(struct login *l)
{
	size_t i;
	size_t j;

	if (l->rec.nkeys == 0)
		return PROCEED;
	for (i = 0; i < l->keys.n; i++)
		for (j = 0; j < l->rec.nkeys; j++)
			if (strcmp(l->keys.fpr[i], l->rec.keys[j]) == 0) {
				l->key = l->keys.fpr[i];
				return PROCEED;
			}
	return refuse(l, "key_not_bound", "the key sshd accepted is not bound to this enrolment",
		      PAM_AUTH_ERR);
}

int ask_code(struct login *l, char *code, size_t codelen)
{
	const struct pam_message msg = { .msg_style = PAM_PROMPT_ECHO_OFF, .msg = PROMPT };
	const struct pam_message *msgs[1] = { &msg };
	const struct pam_conv *conv = NULL;
	struct pam_response *resp = NULL;
	int rc;

	rc = pam_get_item(l->pamh, PAM_CONV, (const void **)&conv);
	if (rc != PAM_SUCCESS || conv == NULL || conv->conv == NULL)
		return refuse(l, "conversation", "no conversation function", PAM_CONV_ERR);
	rc = conv->conv(1, msgs, &resp, conv->appdata_ptr);
	if (rc != PAM_SUCCESS || resp == NULL || resp[0].resp == NULL) {
		/* A broken application may fail and still hand back an answer:
		 * it may be a code, so wipe it like any other. */
		if (resp != NULL && resp[0].resp != NULL) {
			explicit_bzero(resp[0].resp, strlen(resp[0].resp));
			free(resp[0].resp);
		}
		free(resp);
		return refuse(l, "conversation", "the client gave no answer", PAM_CONV_ERR);
	}
	/* Over-long input is cut one byte past the limit, so the check sees it. */
	strncpy(code, resp[0].resp, codelen - 1);
	code[codelen - 1] = '\0';
	explicit_bzero(resp[0].resp, strlen(resp[0].resp));
	free(resp[0].resp);
	free(resp);
	return PROCEED;
}

static void lockout_record(struct login *l)
{
	char until[32];
	char failures[16];
	struct tm tm;
	time_t t = (time_t)l->rec.locked_until;

	if (gmtime_r(&t, &tm) == NULL || strftime(until, sizeof(until), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(until, sizeof(until), "%lld", (long long)t);
	snprintf(failures, sizeof(failures), "%u", l->rec.failures);
	audit_emit(LOG_NOTICE, "lockout", &l->session, "service", l->service,
		   "failures", failures, "until", until, "rhost", l->rhost, NULL);
}

/*
 * The proof for postern-shell. sshd runs PAM in a child of the connection's
 * monitor, which later starts the session: our parent is the process the
 * shell will find as its grandparent. Without SSH_CONNECTION this is no ssh
 * login and no shell will ask; the shell refuses sessions without a proof.
 */
int proof_leave(struct login *l, const char *method)
{
	const char *connection = pam_getenv(l->pamh, "SSH_CONNECTION");
	struct pst_err e = { "" };
	struct login_proof proof;
	struct passwd *pw;

	if (connection == NULL)
		return PROCEED;
	pw = pam_modutil_getpwnam(l->pamh, l->user);
	if (pw == NULL)
		return refuse(l, "proof_error", "the user has no account entry", PAM_USER_UNKNOWN);
	if (login_proof_fill(&proof, pw->pw_uid, l->user, connection, getppid(),
			     l->cfg.proof_lifetime, method, &e) < 0 ||
	    login_proof_write(l->cfg.logins, &proof, &e) < 0)
		return refuse(l, "proof_error", e.msg, PAM_SYSTEM_ERR);
	debug_log(l, "login proof %s/%ld written, valid %u s", l->cfg.logins, (long)proof.monitor,
		  l->cfg.proof_lifetime);
	return PROCEED;
}

/* The key sshd accepted is one of the user's security keys: admitted. */
static int sk_accepted(struct login *l, const struct sk_key *k)
{
	int rc = proof_leave(l, "security-key");

	if (rc != PROCEED)
		return rc;
	audit_emit(LOG_INFO, "login_ok", &l->session, "service", l->service,
		   "method", "security-key", "key", k->fpr, "rhost", l->rhost, NULL);
	return PAM_SUCCESS;
}

/* Which of the keys sshd accepted is an enrolled security key, or NULL. */
static struct sk_key *sk_used(struct login *l, struct sk_record *sk)
{
	struct sk_key *k;
	size_t i;

	for (i = 0; i < l->keys.n; i++) {
		k = sk_record_find(sk, l->keys.fpr[i]);
		if (k != NULL)
			return k;
	}
	return NULL;
}

/*
 * The security-key factor, before any prompt: sshd has verified the key's
 * signature, and with verify-required its PIN or fingerprint too (PAM cannot
 * see those flags; docs/TOTP.md says why sshd must demand them). Its
 * last use is recorded under the record's lock before the login goes on.
 */
static int security_key(struct login *l)
{
	struct pst_err e = { "" };
	struct sk_record sk;
	struct sk_key *k;
	int skfd, fd = -1, rc;

	skfd = sk_store_open(l->storefd, false, &e);
	if (skfd < 0 && skfd != -ENOENT)
		return refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	rc = skfd < 0 ? -ENOENT : sk_store_read(skfd, l->user, &fd, &sk, &e);
	if (rc < 0 && rc != -ENOENT) {
		close(skfd);
		return refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	}
	l->has_sk = rc == 0 && sk.nkeys > 0;
	k = rc == 0 ? sk_used(l, &sk) : NULL;
	if (k != NULL) {
		k->last_used = time(NULL);
		rc = sk_store_write(skfd, l->user, &sk, &e);
	}
	if (fd >= 0)
		close(fd);
	if (skfd >= 0)
		close(skfd);
	if (k != NULL)
		return rc < 0 ? refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL)
			      : sk_accepted(l, k);
	/* Without a key the user may still be invited to register one
	 * (pam_invite.c): enrolled_user() refuses every other way in. */
	l->sk_required = (l->cfg.require_sk || (rc == 0 && sk.require)) && !l->has_sk;
	if ((l->cfg.require_sk || (rc == 0 && sk.require)) && l->has_sk)
		return refuse(l, "security_key_required",
			      "the key sshd accepted is not one of the user's security keys",
			      PAM_AUTH_ERR);
	return PROCEED;
}

static int accepted(struct login *l, enum totp_verdict v, const struct totp_outcome *o)
{
	const char *method = v == TOTP_ACCEPT_CODE ? "totp" : "recovery";
	char step[24];
	int rc;

	rc = proof_leave(l, method);
	if (rc != PROCEED)
		return rc;
	snprintf(step, sizeof(step), "%llu", (unsigned long long)o->step);
	audit_emit(LOG_INFO, "login_ok", &l->session, "service", l->service,
		   "method", method, "key", l->key,
		   "step", v == TOTP_ACCEPT_CODE ? step : NULL, "rhost", l->rhost, NULL);
	return PAM_SUCCESS;
}

int verdict_answer(struct login *l, enum totp_verdict v, const struct totp_outcome *o)
{
	if (o->lockout_started)
		lockout_record(l);
	switch (v) {
	case TOTP_ACCEPT_CODE:
	case TOTP_ACCEPT_RECOVERY:
		return accepted(l, v, o);
	case TOTP_REJECT_BAD_INPUT:
		return refuse(l, "bad_input", "not a code of the enrolled length nor a recovery code",
			      PAM_AUTH_ERR);
	case TOTP_REJECT_BAD_CODE:
		return refuse(l, "bad_code", NULL, PAM_AUTH_ERR);
	case TOTP_REJECT_REPLAY:
		return refuse(l, "replay", "time step already used", PAM_AUTH_ERR);
	case TOTP_REJECT_LOCKED:
		return refuse(l, "locked", NULL, PAM_AUTH_ERR);
	case TOTP_ERROR:
		break;
	}
	return refuse(l, "system_error", "TOTP or hash computation failed", PAM_SYSTEM_ERR);
}

/* Read, decide and write back under the record's lock: no two logins interleave. */
static int verify_locked(struct login *l, const char *code)
{
	const struct totp_policy policy = {
		.window = l->cfg.window, .max_failures = l->cfg.max_failures,
		.lockout = l->cfg.lockout,
	};
	struct totp_outcome outcome;
	struct pst_err e = { "" };
	enum totp_verdict v;
	int fd = -1;
	int rc;

	rc = totp_store_read(l->storefd, l->user, true, &fd, &l->rec, &e);
	if (rc < 0)
		return refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	rc = key_binding(l);
	if (rc != PROCEED) {
		close(fd);
		return rc;
	}
	v = totp_verify(&l->rec, code, time(NULL), &policy, &outcome);
	debug_log(l, "verdict %d, failures now %u", (int)v, l->rec.failures);
	rc = totp_store_write(l->storefd, l->user, &l->rec, &e);
	close(fd);
	if (rc < 0)
		return refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	return verdict_answer(l, v, &outcome);
}

static int open_store(struct login *l)
{
	struct pst_err e = { "" };

	l->storefd = totp_store_open(l->cfg.store, &e);
	if (l->storefd < 0)
		return refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	return PROCEED;
}

static int enrolled_user(struct login *l)
{
	struct pst_err e = { "" };
	int rc;

	rc = totp_store_read(l->storefd, l->user, false, NULL, &l->rec, &e);
	if (rc == 0 && l->sk_required)
		return refuse(l, "security_key_required",
			      "the key sshd accepted is not one of the user's security keys",
			      PAM_AUTH_ERR);
	if (rc == -ENOENT && l->has_sk)
		return refuse(l, "security_key_required",
			      "no TOTP enrolment, and the key sshd accepted is not one of the "
			      "user's security keys", PAM_AUTH_ERR);
	if (rc == -ENOENT) {
		int step = invite_step(l);

		if (step != PROCEED)
			return step;
	}
	if (rc == -ENOENT && l->sk_required)
		return refuse(l, "security_key_required",
			      "no security key enrolled and no invite to register one", PAM_AUTH_ERR);
	if (rc == -ENOENT && l->cfg.nullok) {
		audit_emit(LOG_INFO, "login_skip", &l->session, "service", l->service,
			   "reason", "not_enrolled", "rhost", l->rhost, NULL);
		return PAM_IGNORE;
	}
	if (rc == -ENOENT)
		return refuse(l, "not_enrolled", NULL, PAM_AUTH_ERR);
	if (rc < 0)
		return refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	return key_binding(l);
}

static int identify(struct login *l, int argc, const char **argv)
{
	int bad = pam_cfg_init(&l->cfg, argc, argv);

	l->service = pam_str_item(l->pamh, PAM_SERVICE);
	l->rhost = pam_str_item(l->pamh, PAM_RHOST);
	if (pam_get_user(l->pamh, &l->user, NULL) != PAM_SUCCESS || l->user == NULL)
		l->user = NULL;
	audit_session_init(&l->session, l->user, pam_getenv(l->pamh, "SSH_CONNECTION"));
	if (bad >= 0) {
		pam_syslog(l->pamh, LOG_ERR, "unknown or invalid option '%s' (see docs/TOTP.md)",
			   argv[bad] ? argv[bad] : "(null)");
		return refuse(l, "config", "unknown or invalid module option", PAM_SERVICE_ERR);
	}
	if (l->user == NULL || !name_is_user(l->user))
		return refuse(l, "bad_input", "no user or an invalid user name", PAM_USER_UNKNOWN);
	debug_log(l, "store=%s logins=%s proof_lifetime=%u window=%u max_failures=%u lockout=%u nullok=%d no_pubkey_check=%d require_sk=%d",
		  l->cfg.store, l->cfg.logins, l->cfg.proof_lifetime, l->cfg.window,
		  l->cfg.max_failures, l->cfg.lockout, l->cfg.nullok, l->cfg.no_pubkey_check,
		  l->cfg.require_sk);
	return PROCEED;
}

static int authenticate(struct login *l, int argc, const char **argv)
{
	char code[CODE_INPUT_MAX + 2];
	int rc;

	rc = identify(l, argc, argv);
	if (rc == PROCEED)
		rc = key_step(l);
	if (rc == PROCEED)
		rc = open_store(l);
	if (rc == PROCEED)
		rc = security_key(l);
	if (rc == PROCEED)
		rc = enrolled_user(l);
	if (rc == PROCEED)
		rc = ask_code(l, code, sizeof(code));
	if (rc == PROCEED) {
		rc = verify_locked(l, code);
		explicit_bzero(code, sizeof(code));
	}
	return rc == PROCEED ? PAM_AUTH_ERR : rc;   /* fail safe */
}

__attribute__((visibility("default")))
int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	/*
	 * On the stack, not calloc()ed: sshd runs this in a fork of its monitor,
	 * where a 4 KiB calloc() walks the parent's free chunks and takes a
	 * copy-on-write fault on each page it writes (docs/TOTP.md, "What a
	 * login costs").
	 */
	struct login l = { .pamh = pamh, .storefd = -1 };
	int rc;

	(void)flags;
	audit_set_writer(audit_to_syslog, pamh);
	rc = authenticate(&l, argc, argv);
	audit_set_writer(NULL, NULL);
	if (l.storefd >= 0)
		close(l.storefd);
	totp_record_wipe(&l.rec);
	return rc;
}

__attribute__((visibility("default")))
int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}
