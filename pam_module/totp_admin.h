/* What every postern-totp subcommand is given. */
#ifndef POSTERN_TOTP_ADMIN_H
#define POSTERN_TOTP_ADMIN_H

#include <stdbool.h>
#include <stddef.h>

#include "audit.h"
#include "errmsg.h"
#include "recovery_codes.h"
#include "ssh_key.h"
#include "totp_record.h"

#define PROG "postern-totp"

struct admin {
	const char *store_path;
	int storefd;
	const char *incoming;       /* paths.incoming, or NULL */
	char name[64];              /* who runs the tool, for the audit records */
};

int cmd_enroll(struct admin *a, int argc, char **argv);
int cmd_recovery_codes(struct admin *a, int argc, char **argv);
int cmd_import_oath(struct admin *a, int argc, char **argv);
int cmd_enroll_key(struct admin *a, int argc, char **argv);
int cmd_revoke_key(struct admin *a, int argc, char **argv);
int cmd_require(struct admin *a, int argc, char **argv);
int cmd_invite(struct admin *a, int argc, char **argv);
int cmd_revoke_invite(struct admin *a, int argc, char **argv);

/*
 * After an admin gave user a factor by hand (enroll, enroll-key,
 * import-oath): their open invite, if any, goes to the attic, so that it
 * cannot work again should that factor be revoked before it expires.
 */
void invite_supersede(struct admin *a, const char *user);

/* The invite lines of status USER; 1 after printing why not. */
int invite_status_print(struct admin *a, const char *user);

/* status --all: every member of group, which factors each has, and invites. */
int status_all(struct admin *a, const char *group);

/* The security-key lines of status USER; 1 after printing why not. */
int sk_status_print(struct admin *a, const char *user);

/* Who runs the tool (login name, else the uid's name), into a->name. */
void admin_identify(struct admin *a);

/*
 * The operand of a subcommand that has no options (argv[0] is its name):
 * exactly one, what names it in the error. "--" ends options, GNU style, so
 * an operand may start with '-'. NULL after printing the error.
 */
const char *admin_operand(int argc, char **argv, const char *what);

/* For a subcommand without options: 0 with optind at its first operand, or 1
 * after printing the error. */
int admin_no_options(int argc, char **argv);

/* The same for a subcommand without operands: false after printing the error. */
bool admin_no_operands(int argc, char **argv);

/* A session for records about user, with from=local. */
void admin_session(const char *user, struct audit_session *s);

/* Print "postern-totp: <msg>" to stderr; returns 1 (the exit status). */
int admin_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The user's upload directory <paths.incoming>/<user>, theirs and 0700, made
 * when missing (nothing when the config has no paths.incoming); cmd names
 * the subcommand in errors. 0, or 1 after printing why not.
 */
int admin_incoming_dir(struct admin *a, const char *cmd, const char *user, unsigned uid,
		       unsigned gid);

/* getpwnam with a message; false when the user has no account. */
bool admin_user_exists(const char *user, unsigned *uid, unsigned *gid);

/* Print the codes as the one and only time anyone sees them. */
void recovery_codes_print(char codes[][ONE_TIME_CODE_SIZE], size_t n);

#endif
