/*
 * postern-totp's shared helpers: its error line, its audit session, who runs
 * it and the operands of a subcommand. They only print and look up; they
 * must never touch the store.
 */
#include "totp_admin.h"

#include <getopt.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "text.h"

int admin_fail(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

void admin_session(const char *user, struct audit_session *s)
{
	audit_session_init(s, user, NULL);
}

bool admin_user_exists(const char *user, unsigned *uid, unsigned *gid)
{
	struct passwd *pw = getpwnam(user);

	if (pw == NULL)
		return false;
	if (uid != NULL)
		*uid = pw->pw_uid;
	if (gid != NULL)
		*gid = pw->pw_gid;
	return true;
}

void admin_identify(struct admin *a)
{
	struct passwd *pw;

	if (getlogin_r(a->name, sizeof(a->name)) == 0 && name_is_user(a->name))
		return;
	pw = getpwuid(getuid());
	if (pw == NULL || !str_copy(a->name, sizeof(a->name), pw->pw_name))
		snprintf(a->name, sizeof(a->name), "uid%lu", (unsigned long)getuid());
}

/* Options end at "--"; a subcommand without options of its own has none before it. */
static int operands_start(int argc, char **argv)
{
	static const struct option none[] = { { NULL, 0, NULL, 0 } };

	/*
	 * optind 0 makes glibc read the option string afresh: main's "+"
	 * (stop at the subcommand) must not carry over.
	 */
	optind = 0;
	if (getopt_long(argc, argv, "", none, NULL) != -1) {
		admin_fail("%s: see " PROG " --help", argv[0]);
		return -1;
	}
	return optind;
}

const char *admin_operand(int argc, char **argv, const char *what)
{
	int i = operands_start(argc, argv);

	if (i < 0)
		return NULL;
	if (argc - i != 1) {
		admin_fail("%s: expected one %s", argv[0], what);
		return NULL;
	}
	return argv[i];
}

int admin_no_options(int argc, char **argv)
{
	return operands_start(argc, argv) < 0 ? 1 : 0;
}

bool admin_no_operands(int argc, char **argv)
{
	int i = operands_start(argc, argv);

	if (i >= 0 && i != argc)
		admin_fail("%s: takes no arguments", argv[0]);
	return i == argc;
}
