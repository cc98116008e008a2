/*
 * postern-totp import-oath: move pam_oath users (usersfile lines
 * "HOTP/T30[/D] USER PASSWORD HEXSECRET ...") into the store, one record
 * each. Lines it cannot convert faithfully are reported, never guessed at.
 */
#include <errno.h>
#include <fcntl.h>
#include <liboath/oath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"
#include "totp_admin.h"
#include "totp_store.h"

#define USERSFILE_MAX (16 * 1024 * 1024)
#define FIELDS_MAX 6

struct import_line {
	const char *file;
	unsigned no;
	char *field[FIELDS_MAX];
	size_t nfields;
};

static void split_fields(char *line, struct import_line *l)
{
	char *save = NULL;
	char *tok;

	l->nfields = 0;
	for (tok = strtok_r(line, " \t\r", &save); tok != NULL && l->nfields < FIELDS_MAX;
	     tok = strtok_r(NULL, " \t\r", &save))
		l->field[l->nfields++] = tok;
}

/* "HOTP/T30", "HOTP/T60/8": the period and digits, or a reason to skip. */
static const char *parse_type(const char *type, unsigned *period, unsigned *digits)
{
	if (strcmp(type, "HOTP") == 0 || strncmp(type, "HOTP/E", 6) == 0)
		return "event-based HOTP cannot become TOTP (only HOTP/T30 and HOTP/T60 lines)";
	if (strncmp(type, "HOTP/T30", 8) == 0)
		*period = 30;
	else if (strncmp(type, "HOTP/T60", 8) == 0)
		*period = 60;
	else
		return "unsupported type (only HOTP/T30 and HOTP/T60 lines)";
	if (type[8] == '\0' || strcmp(type + 8, "/6") == 0)
		*digits = 6;
	else if (strcmp(type + 8, "/8") == 0)
		*digits = 8;
	else
		return "unsupported digit count (postern codes have 6 or 8 digits)";
	return NULL;
}

static const char *line_to_record(struct import_line *l, struct totp_record *r)
{
	size_t len = TOTP_SECRET_MAX;
	const char *why;

	if (l->nfields < 4)
		return "expected TYPE USER PASSWORD SECRET";
	why = parse_type(l->field[0], &r->period, &r->digits);
	if (why != NULL)
		return why;
	if (!name_is_user(l->field[1]))
		return "not a valid user name";
	if (strcmp(l->field[2], "-") != 0 && strcmp(l->field[2], "+") != 0)
		return "has a password/PIN field; postern codes have none (remove it first)";
	if (strlen(l->field[3]) > 2 * TOTP_SECRET_MAX ||
	    oath_hex2bin(l->field[3], (char *)r->secret, &len) != OATH_OK)
		return "secret is not hexadecimal or is too long";
	if (len < TOTP_SECRET_MIN)
		return "secret is shorter than 80 bits";
	r->secret_len = len;
	r->alg = TOTP_SHA1;
	r->created = time(NULL);
	return NULL;
}

static const char *import_one(struct admin *a, struct import_line *l, struct pst_err *e)
{
	struct audit_session s;
	struct totp_record r;
	const char *why;
	int rc;

	totp_record_wipe(&r);
	why = line_to_record(l, &r);
	if (why == NULL && !admin_user_exists(l->field[1], NULL, NULL))
		why = "no such user (create the account first)";
	if (why == NULL && faccessat(a->storefd, l->field[1], F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		why = "already enrolled (revoke first to replace)";
	if (why == NULL) {
		rc = totp_store_create(a->storefd, l->field[1], &r, e);
		if (rc == -EEXIST)
			why = "already enrolled (revoke first to replace)";
		else if (rc < 0)
			why = e->msg;
	}
	if (why == NULL) {
		admin_session(l->field[1], &s);
		audit_emit(LOG_INFO, "totp_enroll", &s, "admin", a->name, "algorithm", "SHA1",
			   "digits", r.digits == 8 ? "8" : "6", "keys", "0", "replaced", "no",
			   "source", "import-oath", NULL);
		printf("%s:%u: %s: imported (SHA1, %u digits, every %u seconds, no recovery codes)\n",
		       l->file, l->no, l->field[1], r.digits, r.period);
		invite_supersede(a, l->field[1]);
	}
	totp_record_wipe(&r);
	return why;
}

static int import_text(struct admin *a, const char *file, char *text)
{
	struct import_line l = { .file = file, .no = 0 };
	struct pst_err e = { "" };
	char *next;
	char *line;
	const char *why;
	unsigned skipped = 0;
	unsigned imported = 0;

	for (line = text; line != NULL; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		l.no++;
		split_fields(line, &l);
		if (l.nfields == 0 || l.field[0][0] == '#')
			continue;
		why = import_one(a, &l, &e);
		if (why != NULL) {
			fprintf(stderr, PROG ": %s:%u: skipped: %s\n", file, l.no, why);
			skipped++;
		} else {
			imported++;
		}
		explicit_bzero(line, strlen(line));
	}
	if (skipped > 0)
		return admin_fail("import-oath: %s: %u user(s) imported, %u line(s) skipped (see above)",
				  file, imported, skipped);
	printf("%s: %u user(s) imported\n", file, imported);
	return 0;
}

/* The line walk stops at a NUL: refuse the file rather than skip its rest unreported. */
static int refuse_nul(const char *file, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	const char *p;
	unsigned no = 1;

	if (nul == NULL)
		return 0;
	for (p = text; p < nul; p++)
		no += *p == '\n';
	return admin_fail("import-oath: %s:%u: a NUL byte; nothing imported (is this a pam_oath users file?)",
			  file, no);
}

int cmd_import_oath(struct admin *a, int argc, char **argv)
{
	static const struct sf_rule file_rule = {
		.type = S_IFREG, .uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 0,
		.max_size = USERSFILE_MAX,
	};
	struct pst_err e = { "" };
	char *text = NULL;
	size_t len = 0;
	const char *path = admin_operand(argc, argv, "USERSFILE");
	int fd;
	int rc;

	if (path == NULL)
		return 1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return admin_fail("import-oath: %s: cannot open: %s", path, strerror(errno));
	rc = sf_check_fd(fd, &file_rule, path, NULL, &e);
	if (rc == 0)
		rc = sf_read_all(fd, USERSFILE_MAX, &text, &len, &e);
	close(fd);
	if (rc < 0)
		return admin_fail("import-oath: %s: %s", path, e.msg);
	rc = refuse_nul(path, text, len);
	if (rc == 0)
		rc = import_text(a, path, text);
	explicit_bzero(text, len);
	free(text);
	return rc;
}
