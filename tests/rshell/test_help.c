/* What `help` tells a maintainer, a release-team member and a newcomer. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "help.h"

static const char policy_text[] =
	"paths:\n"
	"  incoming: /srv/postern/incoming\n"
	"release_team:\n"
	"  users: [alice]\n"
	"modules:\n"
	"  gtk:\n"
	"    maintainers: [bob, carol]\n"
	"  glib:\n"
	"    maintainers: [bob]\n"
	"  gnome-common:\n"
	"    open: true\n";

static char *help_for(const char *user)
{
	struct pst_err e = { "" };
	struct policy *p = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	assert_int_equal(policy_parse(policy_text, strlen(policy_text), "test.yaml", &p, &e), 0);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	shell_help_print(out, user, p);
	fclose(out);
	policy_free(p);
	return text;
}

static void contains(const char *text, const char *needle)
{
	if (text == NULL || strstr(text, needle) == NULL)
		fail_msg("help lacks \"%s\":\n%s", needle, text ? text : "(no output)");
}

static void test_maintainer(void **state)
{
	char *text = help_for("bob");

	(void)state;
	contains(text, "install-module [--dry-run] [--force] FILE...");
	contains(text, "(FILE.asc, FILE.sig or MODULE-VERSION.tar.sign\n");
	contains(text, "Uploads go to /srv/postern/incoming/bob/");
	if (strstr(text, "You maintain: gtk, glib.") == NULL && strstr(text, "You maintain: glib, gtk.") == NULL)
		fail_msg("modules missing:\n%s", text);
	contains(text, "1 module is open to every uploader");
	free(text);
}

static void test_release_team(void **state)
{
	char *text = help_for("alice");

	(void)state;
	contains(text, "You are in the release team: you may release any module.");
	free(text);
}

static void test_newcomer(void **state)
{
	char *text = help_for("dave");

	(void)state;
	contains(text, "1 module is open to every uploader");
	if (strstr(text, "You maintain") != NULL)
		fail_msg("dave maintains nothing:\n%s", text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maintainer),
		cmocka_unit_test(test_release_team),
		cmocka_unit_test(test_newcomer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
