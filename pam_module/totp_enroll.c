/*
 * postern-totp enroll and recovery-codes: the only places a secret or a
 * recovery code is created and the only time either is shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <liboath/oath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"
#include "totp_admin.h"
#include "totp_qr.h"
#include "totp_store.h"
#include "totp_uri.h"
#include "totp_verify.h"

#define ISSUER_MAX 64
#define VERIFY_ATTEMPTS 3
#define KEYFILE_MAX (64 * 1024)

struct enroll {
	const char *user;
	unsigned uid;
	unsigned gid;
	const char *issuer;
	bool no_verify;
	bool force;
	bool uri_only;
	struct ssh_keys keys;
	struct totp_record rec;
	char codes[RECOVERY_CODES][ONE_TIME_CODE_SIZE];
};

void recovery_codes_print(char codes[][ONE_TIME_CODE_SIZE], size_t n)
{
	size_t i;

	printf("Recovery codes (each works once; they are shown only now, keep them offline):\n");
	for (i = 0; i < n; i++)
		printf("  %s\n", codes[i]);
}

static int load_key_file(struct enroll *en, const char *path)
{
	static const struct sf_rule pubkey_rule = {
		.type = S_IFREG, .uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 0,
		.max_size = KEYFILE_MAX,
	};
	struct pst_err e = { "" };
	char *text = NULL;
	int fd;
	int rc;

	/* O_NONBLOCK: a FIFO planted at path must not hang the tool. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return admin_fail("--bind-key %s: cannot open: %s", path, strerror(errno));
	rc = sf_check_fd(fd, &pubkey_rule, path, NULL, &e);
	if (rc == 0)
		rc = sf_read_all(fd, KEYFILE_MAX, &text, NULL, &e);
	close(fd);
	if (rc == 0) {
		rc = ssh_pubkey_text_keys(text, &en->keys, &e);
		free(text);
	}
	if (rc < 0)
		return admin_fail("--bind-key %s: %s", path, e.msg);
	return 0;
}

/* The issuer ends up in the app's display and the URI label. */
static bool issuer_valid(const char *s)
{
	size_t len = strlen(s);

	return len > 0 && len <= ISSUER_MAX && utf8_valid(s, len) && !str_has_control(s) &&
	       strchr(s, ':') == NULL;
}

static int parse_options(struct enroll *en, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "algorithm", required_argument, NULL, 'a' },
		{ "digits", required_argument, NULL, 'd' },
		{ "issuer", required_argument, NULL, 'i' },
		{ "bind-key", required_argument, NULL, 'k' },
		{ "no-verify", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "format", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/*
	 * optind 0 makes glibc read the option string afresh: main's "+" (stop
	 * at the subcommand) must not carry over, so options may follow USER.
	 */
	optind = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (!totp_alg_parse(optarg, &en->rec.alg))
				return admin_fail("enroll: --algorithm must be SHA1, SHA256 or SHA512");
			break;
		case 'd':
			if (strcmp(optarg, "6") != 0 && strcmp(optarg, "8") != 0)
				return admin_fail("enroll: --digits must be 6 or 8");
			en->rec.digits = optarg[0] == '8' ? 8 : 6;
			break;
		case 'i':
			en->issuer = optarg;
			break;
		case 'k':
			if (load_key_file(en, optarg) != 0)
				return 1;
			break;
		case 'n':
			en->no_verify = true;
			break;
		case 'f':
			en->force = true;
			break;
		case 'F':
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "uri") != 0)
				return admin_fail("enroll: --format must be text or uri");
			en->uri_only = strcmp(optarg, "uri") == 0;
			break;
		default:
			return admin_fail("enroll: see " PROG " --help");
		}
	}
	if (optind != argc - 1)
		return admin_fail("enroll: expected one USER");
	en->user = argv[optind];
	if (!issuer_valid(en->issuer))
		return admin_fail("enroll: --issuer must be 1 to %d bytes of UTF-8 without ':' or control characters",
				  ISSUER_MAX);
	return 0;
}

static int show(struct enroll *en)
{
	char uri[TOTP_URI_MAX];
	int rc;

	if (totp_uri_format(&en->rec, en->issuer, en->user, uri, sizeof(uri)) < 0)
		return admin_fail("enroll: cannot build the otpauth URI");
	if (en->uri_only) {
		printf("%s\n", uri);
		explicit_bzero(uri, sizeof(uri));
		return 0;
	}
	printf("Enrolling %s: %s, %u digits, every %u seconds. Scan this with the app:\n",
	       en->user, totp_alg_name(en->rec.alg), en->rec.digits, en->rec.period);
	rc = qr_show(stdout, uri);
	explicit_bzero(uri, sizeof(uri));
	if (rc < 0)
		return admin_fail("enroll: cannot draw the QR code: %s", strerror(-rc));
	recovery_codes_print(en->codes, en->rec.nrecovery);
	return 0;
}

/* The record only counts once the app has shown it can make codes. */
static int verify_app(struct enroll *en)
{
	const struct totp_policy policy = { .window = 1, .max_failures = 1000, .lockout = 1 };
	struct totp_outcome out;
	char norm[RECOVERY_CODE_LEN + 1];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int attempt;
	enum totp_verdict v = TOTP_REJECT_BAD_CODE;

	for (attempt = 0; attempt < VERIFY_ATTEMPTS && v != TOTP_ACCEPT_CODE; attempt++) {
		fputs("Code shown by the app: ", stderr);
		fflush(stdout);
		n = getline(&line, &cap, stdin);
		if (n <= 0) {
			fputc('\n', stderr);
			break;
		}
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		/* A recovery code would pass totp_verify and use itself up. */
		if (code_input_check(line, en->rec.digits, norm, sizeof(norm)) == CODE_TOTP)
			v = totp_verify(&en->rec, line, time(NULL), &policy, &out);
		else
			v = TOTP_REJECT_BAD_INPUT;
		explicit_bzero(norm, sizeof(norm));
		explicit_bzero(line, cap);
		if (v != TOTP_ACCEPT_CODE)
			fputs("That code does not match.\n", stderr);
	}
	free(line);
	en->rec.failures = 0;
	en->rec.last_success = 0;
	if (v != TOTP_ACCEPT_CODE)
		return admin_fail("enroll: %s: no matching code from the app; nothing was written (check the device clock, then enroll again)",
				  en->user);
	return 0;
}

/* <incoming>/<user>/: the user's own upload dir, 0700, made once. */
int admin_incoming_dir(struct admin *a, const char *cmd, const char *user, unsigned uid,
		       unsigned gid)
{
	static const struct sf_rule parent_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	struct sf_rule own_rule = {
		.type = S_IFDIR, .uid = uid, .gid = SF_ANY_GID, .forbid = 077, .max_size = 0,
	};
	struct pst_err e = { "" };
	bool made;
	int pfd;
	int fd;

	if (a->incoming == NULL)
		return 0;
	pfd = sf_open_dir_path(a->incoming, &parent_rule, SF_TRUSTED_PATH, &e);
	if (pfd < 0)
		return admin_fail("%s: incoming: %s", cmd, e.msg);
	made = mkdirat(pfd, user, 0700) == 0;
	if (!made && errno != EEXIST) {
		close(pfd);
		return admin_fail("%s: %s/%s: cannot create: %s", cmd, a->incoming, user, strerror(errno));
	}
	fd = sf_openat(pfd, user, O_RDONLY | O_DIRECTORY, made ? NULL : &own_rule, NULL, &e);
	close(pfd);
	if (fd < 0)
		return admin_fail("%s: %s/%s: %s", cmd, a->incoming, user, e.msg);
	if (made && (fchown(fd, uid, gid) != 0 || fchmod(fd, 0700) != 0)) {
		close(fd);
		return admin_fail("%s: %s/%s: cannot give it to %s: %s", cmd, a->incoming, user,
				  user, strerror(errno));
	}
	close(fd);
	return 0;
}

static int store_record(struct admin *a, struct enroll *en, bool *replaced)
{
	struct pst_err e = { "" };
	char kept[256] = "";
	int fd;
	int rc;

	fd = totp_store_lock(a->storefd, en->user, &e);
	if (fd < 0 && fd != -ENOENT)
		return admin_fail("enroll: %s/%s: %s", a->store_path, en->user, e.msg);
	*replaced = fd >= 0;
	if (fd >= 0 && !en->force) {
		close(fd);
		return admin_fail("enroll: %s: already enrolled (use --force to replace; the old record is kept)",
				  en->user);
	}
	rc = 0;
	if (fd >= 0)
		rc = totp_store_set_aside(a->storefd, en->user, "replaced", false, kept, sizeof(kept), &e);
	/* No record to lock: another enrolment may be creating one right now. */
	if (rc == 0)
		rc = fd >= 0 ? totp_store_write(a->storefd, en->user, &en->rec, &e)
			     : totp_store_create(a->storefd, en->user, &en->rec, &e);
	if (fd >= 0)
		close(fd);
	if (rc == -EEXIST)
		return admin_fail("enroll: %s: already enrolled (use --force to replace; the old record is kept)",
				  en->user);
	if (rc < 0)
		return admin_fail("enroll: %s: %s", en->user, e.msg);
	if (*replaced)
		fprintf(stderr, PROG ": %s: the previous record is kept in %s/%s\n", en->user,
			a->store_path, kept);
	return 0;
}

static int new_record(struct enroll *en)
{
	struct pst_err e = { "" };
	size_t i;

	en->rec.period = 30;
	en->rec.created = time(NULL);
	en->rec.secret_len = totp_alg_secret_len(en->rec.alg);
	if (getrandom(en->rec.secret, en->rec.secret_len, 0) != (ssize_t)en->rec.secret_len)
		return admin_fail("enroll: getrandom failed: %s", strerror(errno));
	for (i = 0; i < en->keys.n; i++)
		memcpy(en->rec.keys[i], en->keys.fpr[i], TOTP_FPR_MAX);
	en->rec.nkeys = en->keys.n;
	/* --format uri is for scripts: no codes nobody would see. */
	if (!en->uri_only && recovery_codes_new(&en->rec, en->codes, RECOVERY_CODES, &e) < 0)
		return admin_fail("enroll: %s", e.msg);
	return 0;
}

static int enroll_user(struct admin *a, struct enroll *en)
{
	struct audit_session s;
	char nkeys[8];
	bool replaced = false;

	if (!name_is_user(en->user))
		return admin_fail("enroll: '%s' is not a valid user name", en->user);
	if (!admin_user_exists(en->user, &en->uid, &en->gid))
		return admin_fail("enroll: %s: no such user (create the account first)", en->user);
	if (!en->force && faccessat(a->storefd, en->user, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return admin_fail("enroll: %s: already enrolled (use --force to replace; the old record is kept)",
				  en->user);
	if (new_record(en) != 0 || show(en) != 0)
		return 1;
	fflush(stdout);
	if (!en->no_verify && verify_app(en) != 0)
		return 1;
	if (admin_incoming_dir(a, "enroll", en->user, en->uid, en->gid) != 0)
		return 1;
	if (store_record(a, en, &replaced) != 0)
		return 1;
	snprintf(nkeys, sizeof(nkeys), "%zu", en->rec.nkeys);
	admin_session(en->user, &s);
	audit_emit(LOG_INFO, "totp_enroll", &s, "admin", a->name, "algorithm",
		   totp_alg_name(en->rec.alg), "digits", en->rec.digits == 8 ? "8" : "6",
		   "keys", nkeys, "replaced", replaced ? "yes" : "no", "source", "enroll", NULL);
	if (!en->uri_only)
		printf("%s: enrolled\n", en->user);
	invite_supersede(a, en->user);
	return 0;
}

int cmd_enroll(struct admin *a, int argc, char **argv)
{
	struct enroll *en = calloc(1, sizeof(*en));
	int rc;

	if (en == NULL)
		return admin_fail("out of memory");
	totp_record_wipe(&en->rec);
	en->issuer = "postern";
	rc = parse_options(en, argc, argv);
	if (rc == 0)
		rc = enroll_user(a, en);
	totp_record_wipe(&en->rec);
	explicit_bzero(en, sizeof(*en));
	free(en);
	return rc;
}

int cmd_recovery_codes(struct admin *a, int argc, char **argv)
{
	char codes[RECOVERY_CODES][ONE_TIME_CODE_SIZE];
	struct audit_session s;
	struct totp_record r;
	struct pst_err e = { "" };
	const char *user = admin_operand(argc, argv, "valid USER");
	int fd = -1;
	int rc;

	if (user == NULL)
		return 1;
	if (!name_is_user(user))
		return admin_fail("recovery-codes: expected one valid USER");
	rc = totp_store_read(a->storefd, user, true, &fd, &r, &e);
	if (rc == -ENOENT)
		return admin_fail("recovery-codes: %s: not enrolled", user);
	if (rc < 0)
		return admin_fail("recovery-codes: %s/%s: %s", a->store_path, user, e.msg);
	rc = recovery_codes_new(&r, codes, RECOVERY_CODES, &e);
	if (rc == 0)
		rc = totp_store_write(a->storefd, user, &r, &e);
	close(fd);
	totp_record_wipe(&r);
	if (rc < 0)
		return admin_fail("recovery-codes: %s: old codes kept: %s", user, e.msg);
	recovery_codes_print(codes, RECOVERY_CODES);
	explicit_bzero(codes, sizeof(codes));
	admin_session(user, &s);
	audit_emit(LOG_INFO, "totp_recovery_reset", &s, "admin", a->name, "count", "10", NULL);
	return 0;
}
