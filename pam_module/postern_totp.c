/*
 * postern-totp: the administrator's tool for the TOTP store.
 *
 * Runs only as root (the store is root's). Every change takes the record's
 * lock, replaces it atomically, keeps any replaced or revoked record in
 * <store>/.attic/, and writes one audit record. Nothing it prints or logs
 * shows a stored secret again after enrolment.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "build_config.h"
#include "safefile.h"
#include "text.h"
#include "totp_admin.h"
#include "totp_config.h"
#include "totp_store.h"

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-C CONFIG] [-S STORE] COMMAND [ARGS]\n"
	      "  enroll [--algorithm SHA1|SHA256|SHA512] [--digits 6|8] [--issuer NAME]\n"
	      "         [--bind-key PUBKEY_FILE]... [--no-verify] [--force] [--format text|uri] USER\n"
	      "  status USER          enrolment, keys, invite, failures, lockout (never the secret)\n"
	      "  status --all [--group NAME]  every member of uploaders (or NAME): factors, invites\n"
	      "  list                 every enrolled user\n"
	      "  unlock USER          clear failures and lockout\n"
	      "  revoke USER          move the record to the store's .attic\n"
	      "  recovery-codes USER  replace the recovery codes\n"
	      "  import-oath USERSFILE  convert pam_oath HOTP/T30 and HOTP/T60 users\n"
	      "  enroll-key [--comment WORD] USER 'sk-ssh-ed25519@openssh.com AAAA... [comment]'\n"
	      "                       a security key as a factor of its own (no code with it)\n"
	      "  revoke-key USER FINGERPRINT  remove one security key (the record is kept)\n"
	      "  require USER security-key|any  whether a code is enough for USER\n"
	      "  invite [--expires 7d] USER  a one-time code to log in once and enrol (shown once)\n"
	      "  invite --all-uploaders [--group NAME] [--expires 7d]\n"
	      "                       an invite for every member without a factor: USER CODE EXPIRES\n"
	      "  revoke-invite USER   the invite no longer works (it is kept in the attic)\n", f);
}

static void print_time(const char *label, int64_t t, const char *none)
{
	char buf[32];
	struct tm tm;
	time_t tt = (time_t)t;

	if (t == 0 || gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		printf("%s: %s\n", label, none);
	else
		printf("%s: %s\n", label, buf);
}

/* The USER operand's record, read under its lock; NULL after printing why not. */
static const char *lock_record(struct admin *a, int argc, char **argv, int *fd,
			       struct totp_record *r)
{
	const char *user = admin_operand(argc, argv, "USER");
	struct pst_err e = { "" };
	int rc;

	if (user == NULL)
		return NULL;
	if (!name_is_user(user)) {
		admin_fail("'%s' is not a valid user name", user);
		return NULL;
	}
	rc = totp_store_read(a->storefd, user, true, fd, r, &e);
	if (rc == -ENOENT)
		admin_fail("%s: not enrolled (enroll with: " PROG " enroll %s)", user, user);
	else if (rc < 0)
		admin_fail("%s/%s: unusable record: %s", a->store_path, user, e.msg);
	return rc < 0 ? NULL : user;
}

/* status USER, or status --all [--group NAME]: options before or after, GNU style. */
static const char *status_options(int argc, char **argv, bool *all, const char **group)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "group", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'a')
			*all = true;
		else if (c == 'g')
			*group = optarg;
		else {
			admin_fail("status: see " PROG " --help");
			return NULL;
		}
	}
	if (*all == (argc - optind == 1) || argc - optind > 1) {
		admin_fail("status: give one USER, or --all");
		return NULL;
	}
	return *all ? "" : argv[optind];
}

static int user_status(struct admin *a, const char *user)
{
	return sk_status_print(a, user) | invite_status_print(a, user);
}

static int cmd_status(struct admin *a, int argc, char **argv)
{
	const char *group = "uploaders";
	bool all = false;
	const char *user = status_options(argc, argv, &all, &group);
	struct totp_record r;
	struct pst_err e = { "" };
	size_t k;
	int rc;

	if (user == NULL)
		return 1;
	if (all)
		return status_all(a, group);
	if (!name_is_user(user))
		return admin_fail("'%s' is not a valid user name", user);
	rc = totp_store_read(a->storefd, user, false, NULL, &r, &e);
	printf("user: %s\n", user);
	if (rc == -ENOENT) {
		printf("enrolled: no\n");
		return user_status(a, user);
	}
	if (rc < 0)
		return admin_fail("%s/%s: unusable record: %s", a->store_path, user, e.msg);
	printf("enrolled: yes\nalgorithm: %s\ndigits: %u\nperiod: %u\n", totp_alg_name(r.alg),
	       r.digits, r.period);
	print_time("created", r.created, "unknown");
	printf("bound keys: %zu\n", r.nkeys);
	for (k = 0; k < r.nkeys; k++)
		printf("  %s\n", r.keys[k]);
	printf("recovery codes left: %zu\n", r.nrecovery);
	print_time("last success", r.last_success, "never");
	printf("failures: %u\n", r.failures);
	print_time("locked until", r.locked_until > time(NULL) ? r.locked_until : 0, "not locked");
	totp_record_wipe(&r);
	return user_status(a, user);
}

static int cmd_list(struct admin *a, int argc, char **argv)
{
	struct totp_record r;
	struct pst_err e = { "" };
	struct dirent *de;
	DIR *d;
	int failed = 0;

	if (!admin_no_operands(argc, argv))
		return 1;
	d = fdopendir(dup(a->storefd));
	if (d == NULL)
		return admin_fail("%s: cannot list: %s", a->store_path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (!name_is_user(de->d_name))
			continue;
		if (totp_store_read(a->storefd, de->d_name, false, NULL, &r, &e) < 0) {
			printf("%s unusable\n", de->d_name);
			failed = admin_fail("%s/%s: %s", a->store_path, de->d_name, e.msg);
			continue;
		}
		printf("%s %s %u keys=%zu %s\n", de->d_name, totp_alg_name(r.alg), r.digits,
		       r.nkeys, r.locked_until > time(NULL) ? "locked" : "active");
	}
	totp_record_wipe(&r);
	closedir(d);
	return failed;
}

static int cmd_unlock(struct admin *a, int argc, char **argv)
{
	struct totp_record r;
	int fd = -1;
	const char *user = lock_record(a, argc, argv, &fd, &r);
	struct audit_session s;
	struct pst_err e = { "" };
	int rc;

	if (user == NULL)
		return 1;
	r.failures = 0;
	r.locked_until = 0;
	rc = totp_store_write(a->storefd, user, &r, &e);
	close(fd);
	totp_record_wipe(&r);
	if (rc < 0)
		return admin_fail("%s: unlock failed, record unchanged: %s", user, e.msg);
	admin_session(user, &s);
	audit_emit(LOG_INFO, "totp_unlock", &s, "admin", a->name, NULL);
	printf("%s: unlocked\n", user);
	return 0;
}

static int cmd_revoke(struct admin *a, int argc, char **argv)
{
	struct totp_record r;
	int fd = -1;
	const char *user = lock_record(a, argc, argv, &fd, &r);
	struct audit_session s;
	struct pst_err e = { "" };
	char kept[256];
	int rc;

	if (user == NULL)
		return 1;
	totp_record_wipe(&r);
	rc = totp_store_set_aside(a->storefd, user, "revoked", true, kept, sizeof(kept), &e);
	close(fd);
	if (rc < 0)
		return admin_fail("%s: revoke failed, still enrolled: %s", user, e.msg);
	admin_session(user, &s);
	audit_emit(LOG_NOTICE, "totp_revoke", &s, "admin", a->name, "kept", kept, NULL);
	printf("%s: revoked; the record is kept in %s/%s\n", user, a->store_path, kept);
	return 0;
}

struct command {
	const char *name;
	int (*run)(struct admin *a, int argc, char **argv);
	bool create_store;
	enum audit_operation op;
};

static const struct command commands[] = {
	{ "enroll", cmd_enroll, true, AUDIT_OP_CHANGE },
	{ "status", cmd_status, false, AUDIT_OP_READ },
	{ "list", cmd_list, false, AUDIT_OP_READ },
	{ "unlock", cmd_unlock, false, AUDIT_OP_CHANGE },
	{ "revoke", cmd_revoke, false, AUDIT_OP_CHANGE },
	{ "recovery-codes", cmd_recovery_codes, false, AUDIT_OP_CHANGE },
	{ "import-oath", cmd_import_oath, true, AUDIT_OP_CHANGE },
	{ "enroll-key", cmd_enroll_key, true, AUDIT_OP_CHANGE },
	{ "revoke-key", cmd_revoke_key, false, AUDIT_OP_CHANGE },
	{ "require", cmd_require, true, AUDIT_OP_CHANGE },
	{ "invite", cmd_invite, true, AUDIT_OP_CHANGE },
	{ "revoke-invite", cmd_revoke_invite, false, AUDIT_OP_CHANGE },
};

static int run_command(struct admin *a, const struct command *c, int argc, char **argv)
{
	struct pst_err e = { "" };
	int rc;

	a->storefd = c->create_store ? totp_store_open_create(a->store_path, &e)
				     : totp_store_open(a->store_path, &e);
	if (a->storefd < 0)
		return admin_fail("%s: cannot use the TOTP store: %s", a->store_path, e.msg);
	rc = c->run(a, argc, argv);
	close(a->storefd);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "store", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct totp_config cfg;
	struct admin a = { .storefd = -1 };
	struct pst_err e;
	const char *config = NULL;
	const char *store = NULL;
	size_t i;
	int c;

	openlog(PROG, LOG_PID, LOG_AUTHPRIV);
	while ((c = getopt_long(argc, argv, "+C:S:h", opts, NULL)) != -1) {
		if (c == 'C')
			config = optarg;
		else if (c == 'S')
			store = optarg;
		else if (c == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (geteuid() != 0 || getuid() != 0)
		return admin_fail("must be run as root (the TOTP store belongs to root)");
	if (totp_config_load(config, store, &cfg, &e) < 0)
		return admin_fail("%s", e.msg);
	a.store_path = cfg.store;
	a.incoming = cfg.incoming;
	admin_identify(&a);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) != 0)
			continue;
		if (audit_delivery_check(PROG, commands[i].op, cfg.audit_on_failure, &e) < 0)
			return admin_fail("%s: %s", commands[i].name, e.msg);
		return run_command(&a, &commands[i], argc - optind, argv + optind);
	}
	admin_fail("unknown command '%s'", argv[optind]);
	usage(stderr);
	return 2;
}
