/*
 * Prints `help` and the interactive-login text (help.h). It only prints; it must
 * never list a module the user may not release.
 */
#include "help.h"

#define HELP_MODULES_SHOWN 20

static void print_modules(FILE *out, const char *user, const struct policy *policy)
{
	size_t n = policy_module_count(policy);
	size_t mine = 0;
	size_t open = 0;
	size_t i;

	if (policy_is_release_team(policy, user)) {
		fprintf(out, "You are in the release team: you may release any module.\n");
		return;
	}
	for (i = 0; i < n; i++) {
		const struct policy_module *m = policy_module_at(policy, i);
		enum policy_basis b = policy_may(policy, user, POLICY_INSTALL, m->name, NULL, 0);

		if (b == POLICY_OPEN) {
			open++;
		} else if (b == POLICY_MAINTAINER) {
			if (mine < HELP_MODULES_SHOWN)
				fprintf(out, "%s %s", mine ? "," : "You maintain:", m->name);
			mine++;
		}
	}
	if (mine > HELP_MODULES_SHOWN)
		fprintf(out, " and %zu more", mine - HELP_MODULES_SHOWN);
	if (mine > 0)
		fprintf(out, ".\n");
	if (open > 0)
		fprintf(out, "%zu module%s open to every uploader (flagged as non-maintainer uploads).\n",
			open, open == 1 ? " is" : "s are");
	if (mine == 0 && open == 0)
		fprintf(out, "You maintain no module yet: uploads are possible, installs will be refused.\n");
}

void shell_help_print(FILE *out, const char *user, const struct policy *policy)
{
	const char *incoming = policy_settings(policy)->incoming;

	fprintf(out,
		"This account publishes releases; it has no shell. Allowed commands:\n"
		"  rsync                      upload, run by your rsync client:  rsync FILE HOST:\n"
		"  install-module [--dry-run] [--force] FILE...\n"
		"                             install uploaded release tarballs\n"
		"                             (--force: release team, replace a version)\n"
		"                             (FILE.asc, FILE.sig or MODULE-VERSION.tar.sign\n"
		"                             next to FILE: its OpenPGP signature, sent too)\n"
		"  list [MODULE]              list releases and your pending uploads\n"
		"  delete-own [--] FILE       delete one of your uploads or recent releases\n"
		"  enroll                     your second factor: after an invite login, the\n"
		"                             QR code for your authenticator app\n"
		"  help                       this text\n");
	if (incoming != NULL)
		fprintf(out, "Uploads go to %s/%s/ (names are relative to it).\n", incoming, user);
	print_modules(out, user, policy);
}
