/*
 * Design note. Like doas's permit(): a fixed table of rules, an exact,
 * case-sensitive match on the command name (never a path, never a prefix),
 * and no match means refusal. Each rule checks its own arguments; the
 * release commands only get plain names here, the daemon decides the rest.
 */
#include "dispatch.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rsync_args.h"
#include "text.h"

#define INSTALL_USAGE "install-module [--dry-run] [--force] FILE..."

typedef int args_check_fn(size_t argc, char *const argv[], struct pst_err *e);

struct command_rule {
	const char *name;
	enum shell_command command;
	args_check_fn *check;
};

int shell_file_name_check(const char *cmd, const char *name, struct pst_err *e)
{
	if (name[0] == '\0')
		return pst_fail(e, EINVAL, "%s: an empty file name is refused", cmd);
	if (name[0] == '-')
		return pst_fail(e, EINVAL, "%s: '%s': file names may not start with '-'", cmd, name);
	if (strchr(name, '/') != NULL)
		return pst_fail(e, EINVAL,
				"%s: '%s': give the plain name of a file in your incoming directory, without '/'",
				cmd, name);
	if (name[0] == '.')
		return pst_fail(e, EINVAL, "%s: '%s': file names may not start with '.'", cmd, name);
	if (strlen(name) > INCOMING_NAME_MAX)
		return pst_fail(e, EINVAL, "%s: file name longer than %d bytes", cmd, INCOMING_NAME_MAX);
	return 0;
}

/* The options postern-installd knows (docs/RELEASES.md); --force is for
 * the release team, which the daemon decides. */
static bool install_option(const char *word, bool *dry_run, bool *force)
{
	bool *seen = strcmp(word, "--dry-run") == 0 ? dry_run :
		     strcmp(word, "--force") == 0 ? force : NULL;

	if (seen == NULL || *seen)
		return false;
	*seen = true;
	return true;
}

static int install_check(size_t argc, char *const argv[], struct pst_err *e)
{
	bool dry_run = false;
	bool force = false;
	size_t i = 1;
	int rc;

	while (i < argc && install_option(argv[i], &dry_run, &force))
		i++;
	if (i == argc)
		return pst_fail(e, EINVAL, "install-module: no file given (usage: " INSTALL_USAGE ")");
	for (; i < argc; i++) {
		rc = shell_file_name_check("install-module", argv[i], e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int list_check(size_t argc, char *const argv[], struct pst_err *e)
{
	if (argc > 2)
		return pst_fail(e, EINVAL, "list: too many arguments (usage: list [MODULE])");
	if (argc == 2 && !name_is_module(argv[1]))
		return pst_fail(e, EINVAL,
				"list: '%s': not a module name (letters, digits and . _ + -, starting with a letter or digit)",
				argv[1]);
	return 0;
}

/*
 * delete-own [--] NAME: NAME may be any entry rsync can leave in incoming,
 * so after "--" it may start with '-' or '.'; it stays one plain name.
 */
static int delete_check(size_t argc, char *const argv[], struct pst_err *e)
{
	bool dashdash = argc == 3 && strcmp(argv[1], "--") == 0;
	const char *name = dashdash ? argv[2] : argv[1];

	if (argc != 2 && !dashdash)
		return pst_fail(e, EINVAL, "delete-own: give exactly one file (usage: delete-own [--] FILE)");
	if (name[0] == '-' && !dashdash)
		return pst_fail(e, EINVAL, "delete-own: '%s': file names may not start with '-' "
				"unless after '--' (delete-own -- %s)", name, name);
	if (name[0] == '\0' || strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return pst_fail(e, EINVAL, "delete-own: '%s': give the plain name of an entry in your "
				"incoming directory, without '/'", name);
	if (strlen(name) > INCOMING_NAME_MAX)
		return pst_fail(e, EINVAL, "delete-own: file name longer than %d bytes", INCOMING_NAME_MAX);
	return 0;
}

/* help and enroll take no arguments. */
static int no_arguments(size_t argc, char *const argv[], struct pst_err *e)
{
	if (argc != 1)
		return pst_fail(e, EINVAL, "%s: takes no arguments", argv[0]);
	return 0;
}

static const struct command_rule rules[] = {
	{ "rsync", SHELL_RSYNC, rsync_args_check },
	{ "install-module", SHELL_INSTALL_MODULE, install_check },
	{ "list", SHELL_LIST, list_check },
	{ "delete-own", SHELL_DELETE_OWN, delete_check },
	{ "enroll", SHELL_ENROLL, no_arguments },
	{ "help", SHELL_HELP, no_arguments },
};

static enum shell_command refuse_unknown(struct shell_decision *d)
{
	const char *cmd = d->words.word[0];

	if (strchr(cmd, '/') != NULL)
		pst_fail(&d->why, EPERM,
			 "'%s': not an allowed command (commands are named without a path; allowed: "
			 SHELL_ALLOWED_LIST ")", cmd);
	else
		pst_fail(&d->why, EPERM, "'%s': not an allowed command (allowed: " SHELL_ALLOWED_LIST ")",
			 cmd);
	return SHELL_REFUSED;
}

enum shell_command shell_dispatch(const char *command, size_t len, struct shell_decision *d)
{
	size_t i;

	d->command = SHELL_REFUSED;
	d->name = NULL;
	d->why.msg[0] = '\0';
	if (shell_tokenize(command, len, &d->words, &d->why) < 0)
		return SHELL_REFUSED;
	if (d->words.n == 0) {
		pst_fail(&d->why, EINVAL, "no command given (allowed: " SHELL_ALLOWED_LIST ")");
		return SHELL_REFUSED;
	}
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (strcmp(d->words.word[0], rules[i].name) != 0)
			continue;
		d->name = rules[i].name;
		if (rules[i].check(d->words.n, d->words.word, &d->why) < 0)
			return SHELL_REFUSED;
		d->command = rules[i].command;
		return d->command;
	}
	return refuse_unknown(d);
}
