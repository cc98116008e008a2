/*
 * pam_postern for a user who has an invite and no factor yet
 * (invite_record.h, docs/TOTP.md "Invites").
 *
 * MUST: admit with an invite only once, only while it is unexpired and
 * before max_failures wrong codes, only to a session postern-shell
 * restricts to `enroll` (proof method "invite"); make the new secret here,
 * as root, and keep it in <store>/.pending until a code from it logs the
 * user in, which alone turns it into the user's record and uses the invite
 * up; write every change under the record's lock before answering; under
 * require=security-key accept only a security key, at both logins.
 * MUST NOT: keep the invite code (only its hash is compared), log it or
 * the secret, or admit when any write fails.
 */
#include <errno.h>
#include <pwd.h>
#include <security/pam_modutil.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "enrol_handoff.h"
#include "invite_store.h"
#include "login_proof.h"
#include "pam_login.h"
#include "recovery_codes.h"
#include "sk_store.h"
#include "text.h"
#include "totp_store.h"
#include "totp_uri.h"

#define INVITE_ISSUER "postern"
#define INVITE_SK_COMMENT "invite"

struct invite {
	struct login *l;
	int invfd;                 /* <store>/.invite */
	int fd;                    /* the record, locked */
	struct invite_record rec;
	time_t now;
};

static int invite_refuse(struct invite *iv, const char *reason, const char *detail)
{
	return refuse(iv->l, reason, detail, PAM_AUTH_ERR);
}

static int store_refuse(struct invite *iv, const struct pst_err *e)
{
	return refuse(iv->l, "store_error", e->msg, PAM_AUTHINFO_UNAVAIL);
}

/* The security key among those sshd accepted, if any: its index, or -1. */
static int security_key_used(const struct login *l)
{
	size_t i;

	for (i = 0; i < l->keys.n; i++)
		if (sk_key_type_valid(l->keys.type[i]))
			return (int)i;
	return -1;
}

/* The file postern-shell shows in this session (login_proof.h). */
static int handoff_leave(struct login *l, const struct enrol_handoff *h)
{
	char text[LOGIN_HANDOFF_MAX];
	struct pst_err e = { "" };
	struct passwd *pw = pam_modutil_getpwnam(l->pamh, l->user);
	int len, rc;

	if (pw == NULL)
		return refuse(l, "proof_error", "the user has no account entry", PAM_USER_UNKNOWN);
	len = enrol_handoff_format(h, text, sizeof(text), &e);
	rc = len < 0 ? len : login_handoff_write(l->cfg.logins, getppid(), pw->pw_uid, text,
						  (size_t)len, &e);
	explicit_bzero(text, sizeof(text));
	if (rc < 0)
		return refuse(l, "proof_error", e.msg, PAM_SYSTEM_ERR);
	return PROCEED;
}

/* A fresh secret for the app: SHA1, 6 digits, 30 s, which every app reads. */
static int pending_new(struct login *l, struct totp_record *r)
{
	totp_record_wipe(r);
	r->alg = TOTP_SHA1;
	r->digits = 6;
	r->period = 30;
	r->created = time(NULL);
	r->secret_len = totp_alg_secret_len(r->alg);
	if (getrandom(r->secret, r->secret_len, 0) != (ssize_t)r->secret_len)
		return refuse(l, "system_error", "getrandom failed", PAM_SYSTEM_ERR);
	return PROCEED;
}

static int pending_store(struct invite *iv, const struct totp_record *r)
{
	struct pst_err e = { "" };
	int pfd = pending_store_open(iv->l->storefd, true, &e);
	int rc;

	if (pfd < 0)
		return store_refuse(iv, &e);
	rc = totp_store_write(pfd, iv->l->user, r, &e);
	close(pfd);
	return rc < 0 ? store_refuse(iv, &e) : PROCEED;
}

/* The URI (and the security key, if one was used) for this session's `enroll`. */
static int invite_handoff(struct invite *iv, const struct totp_record *r, int sk)
{
	struct login *l = iv->l;
	struct enrol_handoff h;
	int rc = PROCEED;

	enrol_handoff_wipe(&h);
	if (totp_uri_format(r, INVITE_ISSUER, l->user, h.uri, sizeof(h.uri)) < 0)
		rc = refuse(l, "system_error", "cannot encode the new secret", PAM_SYSTEM_ERR);
	if (rc == PROCEED && sk >= 0) {
		snprintf(h.key_type, sizeof(h.key_type), "%s", l->keys.type[sk]);
		snprintf(h.key_fpr, sizeof(h.key_fpr), "%s", l->keys.fpr[sk]);
	}
	if (rc == PROCEED)
		rc = handoff_leave(l, &h);
	enrol_handoff_wipe(&h);
	return rc;
}

/* A wrong or malformed invite code counts, as a wrong TOTP code does. */
static int invite_wrong(struct invite *iv, const char *reason)
{
	struct pst_err e = { "" };

	iv->rec.failures++;
	if (invite_store_write(iv->invfd, iv->l->user, &iv->rec, &e) < 0)
		return store_refuse(iv, &e);
	return invite_refuse(iv, reason, "not the invite code");
}

/* The invite's code, typed at the prompt: PROCEED when it is the one. */
static int invite_code(struct invite *iv)
{
	char code[CODE_INPUT_MAX + 2];
	char norm[RECOVERY_CODE_LEN + 1];
	enum code_kind kind;
	bool match;
	int rc = ask_code(iv->l, code, sizeof(code));

	if (rc != PROCEED)
		return rc;
	kind = code_input_check(code, 6, norm, sizeof(norm));
	explicit_bzero(code, sizeof(code));
	if (kind != CODE_RECOVERY) {
		explicit_bzero(norm, sizeof(norm));
		return invite_wrong(iv, "bad_input");
	}
	match = one_time_code_matches(norm, iv->rec.hash);
	explicit_bzero(norm, sizeof(norm));
	return match ? PROCEED : invite_wrong(iv, "bad_code");
}

/* First login: the invite code admits once, to `enroll`, with a new pending secret. */
static int invite_admit(struct invite *iv)
{
	struct login *l = iv->l;
	struct pst_err e = { "" };
	int sk = security_key_used(l);
	int rc;

	if (l->sk_required && sk < 0)
		return invite_refuse(iv, "security_key_required",
				     "security keys are required: the invite login must use one");
	rc = invite_code(iv);
	if (rc == PROCEED)
		rc = pending_new(l, &l->rec);
	if (rc == PROCEED)
		rc = pending_store(iv, &l->rec);
	if (rc == PROCEED)
		rc = invite_handoff(iv, &l->rec, sk);
	if (rc == PROCEED)
		rc = proof_leave(l, "invite");
	if (rc != PROCEED)
		return rc;
	iv->rec.admitted = iv->now;
	iv->rec.failures = 0;
	/* security_key_used() found a security-key type: it fits the record. */
	if (sk >= 0 && (!str_copy(iv->rec.key_type, sizeof(iv->rec.key_type), l->keys.type[sk]) ||
			!str_copy(iv->rec.key_fpr, sizeof(iv->rec.key_fpr), l->keys.fpr[sk])))
		return refuse(l, "system_error", "the security key's name does not fit the invite",
			      PAM_SYSTEM_ERR);
	if (invite_store_write(iv->invfd, l->user, &iv->rec, &e) < 0)
		return store_refuse(iv, &e);
	audit_emit(LOG_NOTICE, "invite_login", &l->session, "service", l->service,
		   "key", sk >= 0 ? l->keys.fpr[sk] : l->key, "rhost", l->rhost, NULL);
	return PAM_SUCCESS;
}

/* The invite and the pending secret, both done with, to the attic. */
static int invite_retire(struct invite *iv)
{
	struct pst_err e = { "" };
	int pfd = pending_store_open(iv->l->storefd, false, &e);
	int rc = 0;

	if (pfd >= 0) {
		rc = invite_store_retire(iv->l->storefd, pfd, "pending", iv->l->user, "used", NULL,
					 0, &e);
		close(pfd);
		if (rc == -ENOENT)
			rc = 0;
	}
	if (rc == 0)
		rc = invite_store_retire(iv->l->storefd, iv->invfd, "invite", iv->l->user, "used",
					 NULL, 0, &e);
	return rc < 0 ? store_refuse(iv, &e) : PROCEED;
}

static void enrolled_record(struct invite *iv, const char *factor, const char *key)
{
	audit_emit(LOG_NOTICE, "invite_enrolled", &iv->l->session, "service", iv->l->service,
		   "factor", factor, "key", key, "rhost", iv->l->rhost, NULL);
}

/* The key into the user's record, made or (when left empty by revoke-key) filled. */
static int sk_register(struct invite *iv, int skfd)
{
	struct login *l = iv->l;
	struct pst_err e = { "" };
	char owner[256];
	struct sk_record sk;
	struct sk_key *k;
	int fd = -1, rc;

	if (sk_store_key_owner(skfd, iv->rec.key_fpr, l->user, owner, sizeof(owner)))
		return invite_refuse(iv, "security_key_taken",
				     "the security key is another user's enrolled key");
	rc = sk_store_read(skfd, l->user, &fd, &sk, &e);
	if (rc < 0 && rc != -ENOENT)
		return store_refuse(iv, &e);
	if (rc == -ENOENT)
		memset(&sk, 0, sizeof(sk));
	if (sk.nkeys == SK_KEYS_MAX) {
		close(fd);
		return invite_refuse(iv, "store_error", "the security-key record is full");
	}
	k = &sk.keys[sk.nkeys++];
	snprintf(k->type, sizeof(k->type), "%s", iv->rec.key_type);
	snprintf(k->fpr, sizeof(k->fpr), "%s", iv->rec.key_fpr);
	snprintf(k->comment, sizeof(k->comment), INVITE_SK_COMMENT);
	k->created = k->last_used = iv->now;
	rc = fd >= 0 ? sk_store_write(skfd, l->user, &sk, &e) : sk_store_create(skfd, l->user, &sk, &e);
	if (fd >= 0)
		close(fd);
	return rc < 0 ? store_refuse(iv, &e) : PROCEED;
}

/* Second login with the security key the invite login used: it becomes the factor. */
static int confirm_security_key(struct invite *iv)
{
	struct login *l = iv->l;
	struct pst_err e = { "" };
	int skfd, rc;

	skfd = sk_store_open(l->storefd, true, &e);
	if (skfd < 0)
		return store_refuse(iv, &e);
	rc = sk_register(iv, skfd);
	close(skfd);
	if (rc == PROCEED)
		rc = invite_retire(iv);
	if (rc == PROCEED)
		rc = proof_leave(l, "security-key");
	if (rc != PROCEED)
		return rc;
	enrolled_record(iv, "security-key", iv->rec.key_fpr);
	audit_emit(LOG_INFO, "login_ok", &l->session, "service", l->service,
		   "method", "security-key", "key", iv->rec.key_fpr, "rhost", l->rhost, NULL);
	return PAM_SUCCESS;
}

/* The accepted pending record, with new recovery codes, becomes the user's. */
static int confirm_promote(struct invite *iv)
{
	struct login *l = iv->l;
	struct enrol_handoff h;
	struct pst_err e = { "" };
	int rc = PROCEED;

	enrol_handoff_wipe(&h);
	if (recovery_codes_new(&l->rec, h.codes, RECOVERY_CODES, &e) < 0)
		rc = refuse(l, "system_error", e.msg, PAM_SYSTEM_ERR);
	h.ncodes = l->rec.nrecovery;
	if (rc == PROCEED && totp_store_create(l->storefd, l->user, &l->rec, &e) < 0)
		rc = store_refuse(iv, &e);
	if (rc == PROCEED)
		rc = invite_retire(iv);
	if (rc == PROCEED)
		rc = handoff_leave(l, &h);
	enrol_handoff_wipe(&h);
	return rc;
}

/* Second login with a code from the pending secret. */
static int confirm_code(struct invite *iv)
{
	const struct totp_policy policy = {
		.window = iv->l->cfg.window, .max_failures = iv->l->cfg.max_failures,
		.lockout = iv->l->cfg.lockout,
	};
	struct login *l = iv->l;
	char code[CODE_INPUT_MAX + 2];
	struct totp_outcome outcome;
	struct pst_err e = { "" };
	enum totp_verdict v;
	int pfd, fd = -1, rc;

	pfd = pending_store_open(l->storefd, false, &e);
	rc = pfd < 0 ? pfd : totp_store_read(pfd, l->user, true, &fd, &l->rec, &e);
	if (rc < 0) {
		if (pfd >= 0)
			close(pfd);
		return store_refuse(iv, &e);
	}
	rc = ask_code(l, code, sizeof(code));
	if (rc == PROCEED) {
		v = totp_verify(&l->rec, code, iv->now, &policy, &outcome);
		explicit_bzero(code, sizeof(code));
		rc = totp_store_write(pfd, l->user, &l->rec, &e) < 0 ? store_refuse(iv, &e) : PROCEED;
	}
	close(fd);
	close(pfd);
	if (rc != PROCEED)
		return rc;
	if (v == TOTP_ACCEPT_CODE)
		rc = confirm_promote(iv);
	if (rc != PROCEED)
		return rc;
	if (v == TOTP_ACCEPT_CODE)
		enrolled_record(iv, "totp", l->key);
	return verdict_answer(l, v, &outcome);
}

/* Second login: the invite was used; the new factor completes the enrolment. */
static int invite_confirm(struct invite *iv)
{
	size_t i;

	for (i = 0; i < iv->l->keys.n; i++)
		if (iv->rec.key_fpr[0] != '\0' && strcmp(iv->l->keys.fpr[i], iv->rec.key_fpr) == 0)
			return confirm_security_key(iv);
	if (iv->l->sk_required)
		return invite_refuse(iv, "security_key_required",
				     "security keys are required: log in with the key used for the invite");
	return confirm_code(iv);
}

static int invite_decide(struct invite *iv)
{
	if (iv->now >= iv->rec.expires)
		return invite_refuse(iv, "invite_expired", "the invite has expired: ask an admin for a new one");
	if (iv->rec.admitted != 0)
		return invite_confirm(iv);
	if (iv->rec.failures >= iv->l->cfg.max_failures)
		return invite_refuse(iv, "invite_locked", "too many wrong invite codes: ask an admin for a new invite");
	return invite_admit(iv);
}

int invite_step(struct login *l)
{
	struct invite iv = { .l = l, .fd = -1, .now = time(NULL) };
	struct pst_err e = { "" };
	int rc;

	iv.invfd = invite_store_open(l->storefd, false, &e);
	if (iv.invfd == -ENOENT)
		return PROCEED;
	if (iv.invfd < 0)
		return refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	rc = invite_store_read(iv.invfd, l->user, &iv.fd, &iv.rec, &e);
	if (rc == 0)
		rc = invite_decide(&iv);
	else if (rc == -ENOENT)
		rc = PROCEED;
	else
		rc = refuse(l, "store_error", e.msg, PAM_AUTHINFO_UNAVAIL);
	if (iv.fd >= 0)
		close(iv.fd);
	close(iv.invfd);
	explicit_bzero(&iv.rec, sizeof(iv.rec));
	return rc;
}
