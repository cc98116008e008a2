/*
 * postern-totp's security-key commands: enroll-key, revoke-key, require, and
 * the keys part of status. A security key (OpenSSH's sk-* key types, a FIDO2
 * device) used as the publickey step is a second factor of its own:
 * pam_postern admits it without a code (docs/TOTP.md, "Security keys").
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "sk_store.h"
#include "text.h"
#include "totp_admin.h"

#define KEY_TEXT_MAX 16384

/* "TYPE BASE64 [COMMENT]" as ssh-keygen writes a .pub file, into k. */
static int parse_key_text(const char *text, const char *comment, struct sk_key *k)
{
	char buf[KEY_TEXT_MAX], *type, *b64, *rest, *save = NULL;
	struct pst_err e = { "" };

	if (!str_copy(buf, sizeof(buf), text))
		return admin_fail("enroll-key: the key is too long to be a public key");
	buf[strcspn(buf, "\n")] = '\0';
	type = strtok_r(buf, " \t", &save);
	b64 = strtok_r(NULL, " \t", &save);
	rest = strtok_r(NULL, "", &save);
	if (type == NULL || b64 == NULL)
		return admin_fail("enroll-key: expected the public key as 'TYPE BASE64 [COMMENT]' "
				  "(the .pub file ssh-keygen wrote)");
	if (!sk_key_type_valid(type))
		return admin_fail("enroll-key: '%.40s' is not a security key: only "
				  "sk-ssh-ed25519@openssh.com and sk-ecdsa-sha2-nistp256@openssh.com "
				  "keys are a factor of their own (made by ssh-keygen -t ed25519-sk "
				  "-O verify-required); a plain key is the first factor only", type);
	if (ssh_key_fingerprint(type, b64, k->fpr, &e) < 0)
		return admin_fail("enroll-key: %s", e.msg);
	memcpy(k->type, type, strlen(type) + 1);
	if (comment == NULL && rest != NULL)
		comment = rest + strspn(rest, " \t");
	if (comment != NULL && comment[0] != '\0' && !sk_comment_valid(comment))
		return admin_fail("enroll-key: the comment '%.64s' is not one word of letters, "
				  "digits and ._@+:=- (at most %d): give one with --comment WORD",
				  comment, SK_COMMENT_MAX);
	if (comment != NULL)
		str_copy(k->comment, sizeof(k->comment), comment);
	k->created = time(NULL);
	return 0;
}

/* The user's record under its lock, or an empty one to create: *fd -1 then. */
static int sk_open_user(struct admin *a, const char *user, bool create, int *skfd, int *fd,
			struct sk_record *r)
{
	struct pst_err e = { "" };
	int rc;

	*fd = -1;
	*skfd = sk_store_open(a->storefd, create, &e);
	if (*skfd == -ENOENT)
		return admin_fail("%s: has no security key (enroll one with: " PROG
				  " enroll-key %s 'KEY')", user, user);
	if (*skfd < 0)
		return admin_fail("%s/%s: cannot use: %s", a->store_path, SK_DIR, e.msg);
	rc = sk_store_read(*skfd, user, fd, r, &e);
	if (rc == -ENOENT && create)
		return 0;
	if (rc == -ENOENT)
		admin_fail("%s: has no security key (enroll one with: " PROG " enroll-key %s 'KEY')",
			   user, user);
	else if (rc < 0)
		admin_fail("%s/%s/%s: unusable record: %s", a->store_path, SK_DIR, user, e.msg);
	if (rc < 0) {
		close(*skfd);
		return 1;
	}
	return 0;
}

/* Write r back (or create it when fd is -1) and close both fds. */
static int sk_save(int skfd, int fd, const char *user, const struct sk_record *r,
		   const char *what)
{
	struct pst_err e = { "" };
	int rc = fd >= 0 ? sk_store_write(skfd, user, r, &e) : sk_store_create(skfd, user, r, &e);

	if (fd >= 0)
		close(fd);
	close(skfd);
	if (rc < 0)
		return admin_fail("%s: %s failed, keys unchanged: %s", user, what, e.msg);
	return 0;
}

static const char *user_operand(const char *cmd, int argc, char **argv, int want)
{
	if (argc - optind != want) {
		admin_fail("%s: expected %s", cmd, want == 2 ? "USER and one more operand" : "USER");
		return NULL;
	}
	if (!name_is_user(argv[optind])) {
		admin_fail("'%s' is not a valid user name", argv[optind]);
		return NULL;
	}
	return argv[optind];
}

static bool account_exists(const char *user)
{
	if (admin_user_exists(user, NULL, NULL))
		return true;
	admin_fail("%s: no such account (create the user first)", user);
	return false;
}

static int add_key(struct sk_record *r, const struct sk_key *k, const char *user)
{
	if (sk_record_find(r, k->fpr) != NULL)
		return admin_fail("%s: the security key %s is enrolled already", user, k->fpr);
	if (r->nkeys == SK_KEYS_MAX)
		return admin_fail("%s: has %d security keys already, the most a user may have: "
				  "revoke one first (" PROG " revoke-key %s FINGERPRINT)",
				  user, SK_KEYS_MAX, user);
	r->keys[r->nkeys++] = *k;
	return 0;
}

int cmd_enroll_key(struct admin *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "comment", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *comment = NULL, *user;
	char owner[256];
	struct audit_session s;
	struct sk_record r;
	struct sk_key k;
	int c, skfd, fd, rc;

	optind = 0;   /* afresh: options may follow the operands */
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'c')
			return admin_fail("enroll-key: see " PROG " --help");
		comment = optarg;
	}
	user = user_operand("enroll-key", argc, argv, 2);
	if (user == NULL || !account_exists(user))
		return 1;
	memset(&k, 0, sizeof(k));
	if (parse_key_text(argv[optind + 1], comment, &k) != 0 ||
	    sk_open_user(a, user, true, &skfd, &fd, &r) != 0)
		return 1;
	if (sk_store_key_owner(skfd, k.fpr, user, owner, sizeof(owner)))
		rc = admin_fail("enroll-key: %s: the security key %s is %s's already: a key is one "
				"person's device; revoke it there first (" PROG " revoke-key %s %s)",
				user, k.fpr, owner, owner, k.fpr);
	else
		rc = add_key(&r, &k, user);
	if (rc != 0) {
		if (fd >= 0)
			close(fd);
		close(skfd);
		return 1;
	}
	if (sk_save(skfd, fd, user, &r, "enroll-key") != 0)
		return 1;
	admin_session(user, &s);
	audit_emit(LOG_NOTICE, "sk_enroll", &s, "admin", a->name, "key", k.fpr, "type", k.type,
		   NULL);
	printf("%s: security key %s (%s%s%s) enrolled: a login with it needs no code.\n"
	       "sshd must demand its PIN or fingerprint: PubkeyAuthOptions verify-required "
	       "(docs/TOTP.md, \"Security keys\").\n", user, k.fpr, k.type,
	       k.comment[0] ? ", " : "", k.comment);
	invite_supersede(a, user);
	return 0;
}

int cmd_revoke_key(struct admin *a, int argc, char **argv)
{
	struct pst_err e = { "" };
	const char *user, *fpr;
	struct audit_session s;
	struct sk_record r;
	struct sk_key *k;
	char kept[256];
	int skfd, fd;

	if (admin_no_options(argc, argv) != 0)
		return 1;
	user = user_operand("revoke-key", argc, argv, 2);
	if (user == NULL || sk_open_user(a, user, false, &skfd, &fd, &r) != 0)
		return 1;
	fpr = argv[optind + 1];
	k = sk_record_find(&r, fpr);
	if (k == NULL || sk_store_keep(a->storefd, skfd, user, "revoke-key", kept, sizeof(kept),
				       &e) < 0) {
		close(fd);
		close(skfd);
		return k == NULL ? admin_fail("%s: no security key %s (" PROG " status %s lists them)",
					      user, fpr, user)
				 : admin_fail("%s: revoke-key failed, keys unchanged: %s", user, e.msg);
	}
	memmove(k, k + 1, (size_t)(&r.keys[r.nkeys] - (k + 1)) * sizeof(*k));
	r.nkeys--;
	if (sk_save(skfd, fd, user, &r, "revoke-key") != 0)
		return 1;
	admin_session(user, &s);
	audit_emit(LOG_NOTICE, "sk_revoke", &s, "admin", a->name, "key", fpr, "kept", kept, NULL);
	printf("%s: security key %s revoked; the record before is kept in %s/%s\n", user, fpr,
	       a->store_path, kept);
	return 0;
}

int cmd_require(struct admin *a, int argc, char **argv)
{
	const char *user, *what;
	struct audit_session s;
	struct sk_record r;
	int skfd, fd;

	if (admin_no_options(argc, argv) != 0)
		return 1;
	user = user_operand("require", argc, argv, 2);
	if (user == NULL)
		return 1;
	what = argv[optind + 1];
	if (strcmp(what, "security-key") != 0 && strcmp(what, "any") != 0)
		return admin_fail("require: expected security-key (a code is not enough) or any "
				  "(a code or a security key)");
	if (!account_exists(user) || sk_open_user(a, user, true, &skfd, &fd, &r) != 0)
		return 1;
	r.require = strcmp(what, "security-key") == 0;
	if (sk_save(skfd, fd, user, &r, "require") != 0)
		return 1;
	admin_session(user, &s);
	audit_emit(LOG_NOTICE, "sk_require", &s, "admin", a->name, "require", what, NULL);
	printf("%s: %s\n", user, r.require ? "a security key is required, a code is not enough"
					    : "a code or a security key");
	return 0;
}

static void print_when(int64_t t, const char *none)
{
	char buf[32];
	struct tm tm;
	time_t tt = (time_t)t;

	if (t == 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		fputs(none, stdout);
	else
		fputs(buf, stdout);
}

int sk_status_print(struct admin *a, const char *user)
{
	struct pst_err e = { "" };
	struct sk_record r;
	int skfd = sk_store_open(a->storefd, false, &e), rc = -ENOENT;
	size_t i;

	if (skfd >= 0) {
		rc = sk_store_read(skfd, user, NULL, &r, &e);
		close(skfd);
	} else if (skfd != -ENOENT) {
		return admin_fail("%s/%s: cannot use: %s", a->store_path, SK_DIR, e.msg);
	}
	if (rc < 0 && rc != -ENOENT)
		return admin_fail("%s/%s/%s: unusable record: %s", a->store_path, SK_DIR, user, e.msg);
	if (rc == -ENOENT)
		memset(&r, 0, sizeof(r));
	printf("security keys: %zu\n", r.nkeys);
	for (i = 0; i < r.nkeys; i++) {
		printf("  %s %s %s enrolled ", r.keys[i].type, r.keys[i].fpr,
		       r.keys[i].comment[0] ? r.keys[i].comment : "-");
		print_when(r.keys[i].created, "unknown");
		fputs(" last used ", stdout);
		print_when(r.keys[i].last_used, "never");
		putchar('\n');
	}
	printf("requires a security key: %s\n", r.require ? "yes" : "no");
	return 0;
}
