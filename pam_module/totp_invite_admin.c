/*
 * postern-totp's invite commands: invite, revoke-invite, and the invite part
 * of status (and status --all). An invite lets a maintainer enrol without
 * an admin at their side: they log in with their ssh key and the invite
 * code, and that session may only run `enroll` (docs/TOTP.md, "Invites").
 * The code is printed once here and kept only as a yescrypt hash.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "invite_store.h"
#include "sk_store.h"
#include "text.h"
#include "totp_admin.h"
#include "totp_store.h"
#include "totp_verify.h"

#define DAY (24 * 3600)
#define EXPIRES_DEFAULT (7 * DAY)
#define EXPIRES_MAX (90 * DAY)
#define UPLOADERS_DEFAULT "uploaders"

struct invite_opts {
	long long lifetime;           /* seconds */
	bool all_uploaders;
	const char *group;
};

/* "7d", "36h", "90m": the invite's lifetime, 1 minute to 90 days. */
static bool lifetime_parse(const char *s, long long *out)
{
	char *end;
	long long n;

	if (s[0] < '1' || s[0] > '9')
		return false;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || end[0] == '\0' || end[1] != '\0' || n > EXPIRES_MAX / 60)
		return false;
	if (end[0] == 'd')
		n *= DAY;
	else if (end[0] == 'h')
		n *= 3600;
	else if (end[0] == 'm')
		n *= 60;
	else
		return false;
	*out = n;
	return n <= EXPIRES_MAX;
}

static void format_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "%lld", (long long)t);
}

static int parse_invite_options(struct invite_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expires", required_argument, NULL, 'e' },
		{ "all-uploaders", no_argument, NULL, 'a' },
		{ "group", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->lifetime = EXPIRES_DEFAULT;
	o->group = NULL;
	optind = 0;   /* afresh: options may follow the operand */
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'e' && !lifetime_parse(optarg, &o->lifetime))
			return admin_fail("invite: --expires '%s': give a number and d, h or m "
					  "(7d, 36h), at most 90d", optarg);
		else if (c == 'a')
			o->all_uploaders = true;
		else if (c == 'g')
			o->group = optarg;
		else if (c != 'e')
			return admin_fail("invite: see " PROG " --help");
	}
	if (!o->all_uploaders && o->group != NULL)
		return admin_fail("invite: --group NAME goes with --all-uploaders");
	if (o->group == NULL)
		o->group = UPLOADERS_DEFAULT;
	if (o->all_uploaders != (argc - optind == 0) || argc - optind > 1)
		return admin_fail("invite: give one USER, or --all-uploaders and no USER");
	return 0;
}

/* What the user has: a TOTP record, security keys. -1 after printing why it cannot tell. */
static int factors_of(struct admin *a, const char *user, bool *totp, size_t *keys)
{
	struct totp_record r;
	struct sk_record sk;
	struct pst_err e = { "" };
	int skfd, rc;

	rc = totp_store_read(a->storefd, user, false, NULL, &r, &e);
	totp_record_wipe(&r);
	if (rc < 0 && rc != -ENOENT) {
		admin_fail("%s/%s: unusable record: %s", a->store_path, user, e.msg);
		return -1;
	}
	*totp = rc == 0;
	*keys = 0;
	skfd = sk_store_open(a->storefd, false, &e);
	if (skfd == -ENOENT)
		return 0;
	rc = skfd < 0 ? skfd : sk_store_read(skfd, user, NULL, &sk, &e);
	if (skfd >= 0)
		close(skfd);
	if (rc < 0 && rc != -ENOENT) {
		admin_fail("%s/%s/%s: unusable record: %s", a->store_path, SK_DIR, user, e.msg);
		return -1;
	}
	*keys = rc == 0 ? sk.nkeys : 0;
	return 0;
}

/* user's invite, if any: 1 with r filled, 0 when none, -1 after printing why not. */
static int invite_of(struct admin *a, int invfd, const char *user, struct invite_record *r)
{
	struct pst_err e = { "" };
	int rc = invfd < 0 ? -ENOENT : invite_store_read(invfd, user, NULL, r, &e);

	if (rc == -ENOENT)
		return 0;
	if (rc < 0) {
		admin_fail("%s/%s/%s: unusable invite: %s", a->store_path, INVITE_DIR, user, e.msg);
		return -1;
	}
	return 1;
}

static const char *invite_state(const struct invite_record *r, time_t now)
{
	if (now >= r->expires)
		return "expired";
	return r->admitted != 0 ? "admitted" : "pending";
}

/*
 * The pending secret of the invite being replaced (made if its invite login
 * happened) to the attic too, as revoke-invite does: the new invite login
 * would otherwise write over it. Under the earlier invite's lock.
 */
static int pending_set_aside(struct admin *a, const char *user, struct pst_err *e)
{
	int pfd = pending_store_open(a->storefd, false, e);
	int rc;

	if (pfd == -ENOENT)
		return 0;
	if (pfd < 0)
		return pfd;
	rc = invite_store_retire(a->storefd, pfd, "pending", user, "replaced", NULL, 0, e);
	close(pfd);
	return rc == -ENOENT ? 0 : rc;
}

/* The new invite, hashed, in place of any earlier one (kept in the attic). */
static int invite_write(struct admin *a, int invfd, const char *user, const char *code,
			long long lifetime, bool *replaced, struct invite_record *r)
{
	struct pst_err e = { "" };
	int fd;

	memset(r, 0, sizeof(*r));
	r->created = time(NULL);
	r->expires = r->created + lifetime;
	if (recovery_hash(code, r->hash, sizeof(r->hash)) < 0)
		return admin_fail("invite: %s: yescrypt hashing failed", user);
	fd = totp_store_lock(invfd, user, &e);
	*replaced = fd >= 0;
	if (fd < 0 && fd != -ENOENT)
		return admin_fail("invite: %s: cannot lock the earlier invite: %s", user, e.msg);
	if (*replaced && (totp_store_set_aside_in(a->storefd, invfd, user, "invite-replaced", false,
						  NULL, 0, &e) < 0 ||
			  pending_set_aside(a, user, &e) < 0)) {
		close(fd);
		return admin_fail("invite: %s: earlier invite kept, no new one: %s", user, e.msg);
	}
	if (invite_store_write(invfd, user, r, &e) < 0) {
		if (fd >= 0)
			close(fd);
		return admin_fail("invite: %s: no invite written: %s", user, e.msg);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Issue one invite: 0 and the code printed, 1 after printing why not, 2 skipped. */
static int invite_user(struct admin *a, int invfd, const char *user,
		       const struct invite_opts *o)
{
	char code[ONE_TIME_CODE_SIZE], until[32];
	struct invite_record r;
	struct audit_session s;
	struct pst_err e = { "" };
	bool totp, replaced = false;
	unsigned uid, gid;
	size_t keys;
	int rc;

	if (factors_of(a, user, &totp, &keys) < 0)
		return 1;
	if (totp || keys > 0)
		return o->all_uploaders ? 2
			: admin_fail("invite: %s: has a second factor already (" PROG " status %s); "
				     "an invite is for a first enrolment: revoke the factor first "
				     "to replace it", user, user);
	rc = invite_of(a, invfd, user, &r);
	if (rc < 0)
		return 1;
	if (rc == 1 && o->all_uploaders && strcmp(invite_state(&r, time(NULL)), "expired") != 0)
		return 2;    /* their code may be in the mail already */
	/* Where the first upload goes, as enroll makes it: the invite is all
	 * the admin does for this user. */
	if (!admin_user_exists(user, &uid, &gid) ||
	    admin_incoming_dir(a, "invite", user, uid, gid) != 0)
		return admin_fail("invite: %s: no invite issued", user);
	if (one_time_code_new(code, &e) < 0)
		return admin_fail("invite: %s", e.msg);
	rc = invite_write(a, invfd, user, code, o->lifetime, &replaced, &r);
	if (rc == 0) {
		format_time(r.expires, until, sizeof(until));
		admin_session(user, &s);
		audit_emit(LOG_NOTICE, "invite_issue", &s, "admin", a->name, "expires", until,
			   "replaced", replaced ? "yes" : "no", NULL);
		if (o->all_uploaders)
			printf("%s\t%s\t%s\n", user, code, until);
		else
			printf("%s: invite code %s (shown only now), valid until %s%s.\n"
			       "They log in with their ssh key, type the code at \"Verification code:\", "
			       "and the session shows what to do (ssh HOST enroll).\n", user, code,
			       until, replaced ? "; the earlier invite no longer works" : "");
	}
	explicit_bzero(code, sizeof(code));
	return rc;
}

/* Listed in members (a copy of the group's list), or the group is the primary one. */
static bool in_group(const struct passwd *pw, gid_t gid, char *const *members)
{
	if (pw->pw_gid == gid)
		return true;
	for (; *members != NULL; members++)
		if (strcmp(*members, pw->pw_name) == 0)
			return true;
	return false;
}

static void members_free(char **members)
{
	size_t i;

	for (i = 0; members != NULL && members[i] != NULL; i++)
		free(members[i]);
	free(members);
}

/* The group's member list, copied: getpwent may reuse getgrnam's buffers. */
static char **members_copy(const struct group *gr)
{
	char **members;
	size_t n = 0, i;

	while (gr->gr_mem[n] != NULL)
		n++;
	members = calloc(n + 1, sizeof(*members));
	for (i = 0; members != NULL && i < n; i++) {
		members[i] = strdup(gr->gr_mem[i]);
		if (members[i] == NULL) {
			members_free(members);
			return NULL;
		}
	}
	return members;
}

/*
 * Whether the account can log in at all: not a system account with the
 * shell nologin or false, such as postern-ci, which postinst puts in
 * uploaders to reach the daemon's socket. Such a member is nobody to invite
 * and not a maintainer without a second factor.
 */
static bool account_logs_in(const struct passwd *pw)
{
	const char *shell = strrchr(pw->pw_shell, '/');

	shell = shell != NULL ? shell + 1 : pw->pw_shell;
	return strcmp(shell, "nologin") != 0 && strcmp(shell, "false") != 0;
}

/* Every account of the group, primary or listed, that can log in, in passwd order: fn on each. */
static int each_member(const char *group, int (*fn)(const char *user, void *arg), void *arg)
{
	struct group *gr = getgrnam(group);
	struct passwd *pw;
	char **members;
	gid_t gid;
	int failed = 0;

	if (gr == NULL)
		return admin_fail("no group '%s' (give the maintainers' group with --group NAME)", group);
	gid = gr->gr_gid;
	members = members_copy(gr);
	if (members == NULL)
		return admin_fail("out of memory");
	setpwent();
	while ((pw = getpwent()) != NULL)
		if (name_is_user(pw->pw_name) && in_group(pw, gid, members) &&
		    account_logs_in(pw) && fn(pw->pw_name, arg) == 1)
			failed = 1;
	endpwent();
	members_free(members);
	return failed;
}

struct all_uploaders {
	struct admin *a;
	int invfd;
	const struct invite_opts *o;
	unsigned issued, skipped;
};

static int invite_member(const char *user, void *arg)
{
	struct all_uploaders *u = arg;
	int rc = invite_user(u->a, u->invfd, user, u->o);

	if (rc == 0)
		u->issued++;
	else if (rc == 2)
		u->skipped++;
	return rc;
}

int cmd_invite(struct admin *a, int argc, char **argv)
{
	struct invite_opts o = { 0 };
	struct pst_err e = { "" };
	struct all_uploaders u;
	const char *user;
	int invfd, rc;

	if (parse_invite_options(&o, argc, argv) != 0)
		return 1;
	user = o.all_uploaders ? NULL : argv[optind];
	if (user != NULL && !name_is_user(user))
		return admin_fail("'%s' is not a valid user name", user);
	if (user != NULL && !admin_user_exists(user, NULL, NULL))
		return admin_fail("invite: %s: no such account (create the user first)", user);
	invfd = invite_store_open(a->storefd, true, &e);
	if (invfd < 0)
		return admin_fail("%s/%s: cannot use: %s", a->store_path, INVITE_DIR, e.msg);
	if (user != NULL) {
		rc = invite_user(a, invfd, user, &o);
		close(invfd);
		return rc;
	}
	u = (struct all_uploaders){ a, invfd, &o, 0, 0 };
	rc = each_member(o.group, invite_member, &u);
	close(invfd);
	fprintf(stderr, PROG ": %u invite%s issued; %u members of %s skipped (a factor already, "
		"or an invite still open: " PROG " status --all)\n", u.issued, u.issued == 1 ? "" : "s",
		u.skipped, o.group);
	return rc;
}

int cmd_revoke_invite(struct admin *a, int argc, char **argv)
{
	const char *user = admin_operand(argc, argv, "USER");
	struct pst_err e = { "" };
	struct audit_session s;
	char kept[256];
	int invfd, fd, pfd, rc;

	if (user == NULL)
		return 1;
	if (!name_is_user(user))
		return admin_fail("'%s' is not a valid user name", user);
	invfd = invite_store_open(a->storefd, false, &e);
	fd = invfd < 0 ? invfd : totp_store_lock(invfd, user, &e);
	if (fd == -ENOENT) {
		if (invfd >= 0)
			close(invfd);
		return admin_fail("revoke-invite: %s: has no invite", user);
	}
	rc = fd < 0 ? fd : invite_store_retire(a->storefd, invfd, "invite", user, "revoked", kept,
					       sizeof(kept), &e);
	if (fd >= 0)
		close(fd);
	pfd = rc < 0 ? -1 : pending_store_open(a->storefd, false, &e);
	if (pfd >= 0) {
		invite_store_retire(a->storefd, pfd, "pending", user, "revoked", NULL, 0, &e);
		close(pfd);
	}
	if (invfd >= 0)
		close(invfd);
	if (rc < 0)
		return admin_fail("revoke-invite: %s: the invite still works: %s", user, e.msg);
	admin_session(user, &s);
	audit_emit(LOG_NOTICE, "invite_revoke", &s, "admin", a->name, "kept", kept, NULL);
	printf("%s: invite revoked; it is kept in %s/%s\n", user, a->store_path, kept);
	return 0;
}

int invite_status_print(struct admin *a, const char *user)
{
	struct pst_err e = { "" };
	struct invite_record r;
	char when[32];
	int invfd = invite_store_open(a->storefd, false, &e);
	int rc;

	if (invfd < 0 && invfd != -ENOENT)
		return admin_fail("%s/%s: cannot use: %s", a->store_path, INVITE_DIR, e.msg);
	rc = invite_of(a, invfd, user, &r);
	if (invfd >= 0)
		close(invfd);
	if (rc <= 0) {
		if (rc == 0)
			printf("invite: none\n");
		return rc < 0 ? 1 : 0;
	}
	format_time(r.expires, when, sizeof(when));
	printf("invite: %s (expires %s", invite_state(&r, time(NULL)), when);
	if (r.admitted != 0) {
		format_time(r.admitted, when, sizeof(when));
		printf("; invite login %s, enrolment not completed yet", when);
	}
	printf(")\nwrong invite codes: %u\n", r.failures);
	return 0;
}

struct status_all {
	struct admin *a;
	int invfd;
	unsigned total, without;
};

static int status_member(const char *user, void *arg)
{
	struct status_all *st = arg;
	struct invite_record r;
	bool totp;
	size_t keys;
	int inv;

	if (factors_of(st->a, user, &totp, &keys) < 0)
		return 1;
	inv = invite_of(st->a, st->invfd, user, &r);
	if (inv < 0)
		return 1;
	st->total++;
	if (!totp && keys == 0)
		st->without++;
	printf("%-24s %-4s %-7zu %s\n", user, totp ? "yes" : "no", keys,
	       inv == 1 ? invite_state(&r, time(NULL)) : (totp || keys ? "-" : "none"));
	return 0;
}

int status_all(struct admin *a, const char *group)
{
	struct status_all st = { a, -1, 0, 0 };
	struct pst_err e = { "" };
	int rc;

	st.invfd = invite_store_open(a->storefd, false, &e);
	if (st.invfd < 0 && st.invfd != -ENOENT)
		return admin_fail("%s/%s: cannot use: %s", a->store_path, INVITE_DIR, e.msg);
	printf("%-24s %-4s %-7s %s\n", "USER", "TOTP", "SK-KEYS", "INVITE");
	rc = each_member(group, status_member, &st);
	if (st.invfd >= 0)
		close(st.invfd);
	printf("%u members of %s, %u without a second factor\n", st.total, group, st.without);
	return rc;
}

void invite_supersede(struct admin *a, const char *user)
{
	struct pst_err e = { "" };
	struct audit_session s;
	char kept[256];
	int invfd = invite_store_open(a->storefd, false, &e);
	int fd = invfd < 0 ? invfd : totp_store_lock(invfd, user, &e);
	int pfd, rc;

	if (fd == -ENOENT) {
		if (invfd >= 0)
			close(invfd);
		return;
	}
	rc = fd < 0 ? fd : invite_store_retire(a->storefd, invfd, "invite", user, "superseded",
					       kept, sizeof(kept), &e);
	if (fd >= 0)
		close(fd);
	pfd = rc < 0 ? -1 : pending_store_open(a->storefd, false, &e);
	if (pfd >= 0) {
		invite_store_retire(a->storefd, pfd, "pending", user, "superseded", NULL, 0, &e);
		close(pfd);
	}
	if (invfd >= 0)
		close(invfd);
	if (rc < 0) {
		admin_fail("%s: has a factor now, but the open invite could not be moved aside (%s): "
			   PROG " revoke-invite %s", user, e.msg, user);
		return;
	}
	admin_session(user, &s);
	audit_emit(LOG_NOTICE, "invite_revoke", &s, "admin", a->name, "kept", kept, NULL);
	fprintf(stderr, PROG ": %s: the open invite no longer works (kept in %s/%s)\n", user,
		a->store_path, kept);
}
