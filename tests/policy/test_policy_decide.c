/*
 * The decision table: maintainer (from DOAP and from postern.yaml), release
 * team by list, open module, non-maintainer, unknown module, explicit entry
 * overriding DOAP, and the fail-closed answers. Release team by Unix group
 * needs a real group and is tested in test_policy_group.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "policy.h"

static const char config[] =
	"release_team:\n"
	"  users: [alice]\n"
	"  group: ptpol-no-such-group\n"
	"modules:\n"
	"  gtk:\n"
	"    maintainers: [matthiasc, otte]\n"
	"  gnome-common:\n"
	"    open: true\n"
	"  gnome-shell:\n"
	"    version_dir: major\n";

static const char generated[] =
	"modules:\n"
	"  gtk:\n"
	"    source: gtk.doap\n"
	"    maintainers: [ebassi, matthiasc]\n"
	"  gnome-shell:\n"
	"    source: gnome-shell.doap\n"
	"    maintainers: [fmuellner]\n"
	"  glib:\n"
	"    source: glib.doap\n"
	"    maintainers: [pwithnall]\n";

static int setup(void **state)
{
	struct policy *p = NULL;
	struct pst_err e;

	if (policy_parse_merged(config, strlen(config), "postern.yaml", generated,
				strlen(generated), "doap-modules.yaml", &p, &e) != 0) {
		print_error("%s\n", e.msg);
		return -1;
	}
	*state = p;
	return 0;
}

/* The same policy in the two steps postern-shell takes: every table below
 * runs against both, so deferring the module list changes no decision. */
static int setup_deferred(void **state)
{
	struct policy *p = NULL;
	struct pst_err e;

	if (policy_parse_deferred(config, strlen(config), "postern.yaml", &p, &e) != 0 ||
	    policy_modules_loaded(p) ||
	    policy_merge_modules_text(p, generated, strlen(generated), "doap-modules.yaml",
				      &e) != 0 ||
	    !policy_modules_loaded(p)) {
		print_error("%s\n", e.msg);
		policy_free(p);
		return -1;
	}
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	policy_free(*state);
	return 0;
}

struct row {
	const char *user;
	enum policy_action action;
	const char *module;
	enum policy_basis basis;
	const char *why;
};

static void check_row(const struct policy *p, const struct row *r)
{
	char why[512];

	assert_int_equal(policy_may(p, r->user, r->action, r->module, why, sizeof(why)), r->basis);
	assert_string_equal(why, r->why);
}

static void test_decision_table(void **state)
{
	static const struct row rows[] = {
		{ "matthiasc", POLICY_INSTALL, "gtk", POLICY_MAINTAINER,
		  "matthiasc is a maintainer of gtk (from postern.yaml)" },
		{ "fmuellner", POLICY_INSTALL, "gnome-shell", POLICY_MAINTAINER,
		  "fmuellner is a maintainer of gnome-shell (from gnome-shell.doap)" },
		{ "pwithnall", POLICY_DELETE, "glib", POLICY_MAINTAINER,
		  "pwithnall is a maintainer of glib (from glib.doap)" },
		{ "alice", POLICY_INSTALL, "gtk", POLICY_RELEASE_TEAM,
		  "alice is in the release team (listed in postern.yaml)" },
		{ "bob", POLICY_INSTALL, "gnome-common", POLICY_OPEN,
		  "gnome-common is open to every uploader (non-maintainer upload)" },
		{ "bob", POLICY_INSTALL, "gtk", POLICY_DENY,
		  "bob may not release gtk: maintainers are matthiasc, otte; "
		  "release team: alice, group ptpol-no-such-group" },
		{ "bob", POLICY_DELETE, "gtk", POLICY_DENY,
		  "bob may not delete releases of gtk: maintainers are matthiasc, otte; "
		  "release team: alice, group ptpol-no-such-group" },
		/* The explicit entry replaced the DOAP list: ebassi is out. */
		{ "ebassi", POLICY_INSTALL, "gtk", POLICY_DENY,
		  "ebassi may not release gtk: maintainers are matthiasc, otte; "
		  "release team: alice, group ptpol-no-such-group" },
		{ "bob", POLICY_INSTALL, "newmod", POLICY_DENY,
		  "bob may not release newmod: it is not a known module, and only the release "
		  "team may create a new module (release team: alice, group ptpol-no-such-group)" },
		{ "alice", POLICY_INSTALL, "newmod", POLICY_RELEASE_TEAM,
		  "alice is in the release team (listed in postern.yaml); newmod is a new "
		  "module, which only the release team may create" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_row(*state, &rows[i]);
}

static void test_override_flags(void **state)
{
	const struct policy_module *gtk = policy_module_find(*state, "gtk");
	const struct policy_module *shell = policy_module_find(*state, "gnome-shell");
	const struct policy_module *glib = policy_module_find(*state, "glib");

	assert_non_null(gtk);
	assert_true(gtk->overrides_doap);
	assert_string_equal(gtk->source, "postern.yaml");
	assert_non_null(shell);
	assert_false(shell->overrides_doap);
	assert_string_equal(shell->version_dir, "major");
	assert_string_equal(shell->maintainers[0], "fmuellner");
	assert_null(shell->maintainers[1]);
	assert_non_null(glib);
	assert_false(glib->overrides_doap);
	assert_null(glib->version_dir);
	assert_int_equal(policy_module_count(*state), 4);
	assert_string_equal(policy_module_at(*state, 0)->name, "glib");
	assert_null(policy_module_at(*state, 4));
	assert_null(policy_module_find(*state, "nope"));
}

static void test_fails_closed(void **state)
{
	char why[128];

	assert_int_equal(policy_may(NULL, "alice", POLICY_INSTALL, "gtk", why, sizeof(why)),
			 POLICY_DENY);
	assert_string_equal(why, "no policy is loaded");
	assert_int_equal(policy_may(*state, "Alice", POLICY_INSTALL, "gtk", why, sizeof(why)),
			 POLICY_DENY);
	assert_int_equal(policy_may(*state, NULL, POLICY_INSTALL, "gtk", why, sizeof(why)),
			 POLICY_DENY);
	assert_int_equal(policy_may(*state, "alice", POLICY_INSTALL, "../gtk", why, sizeof(why)),
			 POLICY_DENY);
	assert_string_equal(why, "alice may not release '../gtk': not a valid module name");
	assert_int_equal(policy_may(*state, "alice", (enum policy_action)7, "gtk", why,
				    sizeof(why)), POLICY_DENY);
	assert_int_equal(policy_may(*state, "alice", POLICY_INSTALL, NULL, why, sizeof(why)),
			 POLICY_DENY);
	/* No buffer for the reason: the decision is the same. */
	assert_int_equal(policy_may(*state, "alice", POLICY_INSTALL, "gtk", NULL, 0),
			 POLICY_RELEASE_TEAM);
}

static void test_reason_is_cut_safely(void **state)
{
	char why[24];

	memset(why, 'x', sizeof(why));
	assert_int_equal(policy_may(*state, "bob", POLICY_INSTALL, "gtk", why, sizeof(why)),
			 POLICY_DENY);
	assert_int_equal(strlen(why), sizeof(why) - 1);
	assert_string_equal(why + sizeof(why) - 4, "...");
}

static void test_release_team_list(void **state)
{
	assert_true(policy_is_release_team(*state, "alice"));
	assert_false(policy_is_release_team(*state, "bob"));
	assert_false(policy_is_release_team(*state, "root"));
	assert_false(policy_is_release_team(*state, NULL));
	assert_false(policy_is_release_team(NULL, "alice"));
}

static void test_no_release_team(void **state)
{
	static const char text[] = "modules:\n  gtk:\n    maintainers: [otte]\n";
	struct policy *p;
	struct pst_err e;
	char why[256];

	(void)state;
	assert_int_equal(policy_parse(text, strlen(text), "p.yaml", &p, &e), 0);
	assert_int_equal(policy_may(p, "bob", POLICY_INSTALL, "gtk", why, sizeof(why)),
			 POLICY_DENY);
	assert_string_equal(why, "bob may not release gtk: maintainers are otte; release team: none");
	assert_int_equal(policy_may(p, "bob", POLICY_INSTALL, "new", why, sizeof(why)),
			 POLICY_DENY);
	policy_free(p);
}

/* Before its module list is merged a policy shows no module and grants nothing. */
static void test_pending_module_list_denies(void **state)
{
	struct policy *p = NULL;
	struct pst_err e;
	char why[256];

	(void)state;
	assert_int_equal(policy_parse_deferred(config, strlen(config), "postern.yaml", &p, &e), 0);
	assert_false(policy_modules_loaded(p));
	assert_int_equal(policy_module_count(p), 0);
	assert_null(policy_module_at(p, 0));
	assert_null(policy_module_find(p, "gtk"));
	assert_int_equal(policy_may(p, "matthiasc", POLICY_INSTALL, "gtk", why, sizeof(why)),
			 POLICY_DENY);
	assert_string_equal(why, "the module list is not loaded");
	assert_int_equal(policy_may(p, "alice", POLICY_INSTALL, "newmod", why, sizeof(why)),
			 POLICY_DENY);
	assert_int_equal(policy_may(p, "bob", POLICY_INSTALL, "gnome-common", NULL, 0),
			 POLICY_DENY);
	/* What an rsync upload needs is there at once. */
	assert_true(policy_is_release_team(p, "alice"));
	assert_false(policy_is_release_team(p, "bob"));
	policy_free(p);
}

/* A merge that fails is final: no module ever shows, a second merge is refused. */
static void test_failed_merge_is_final(void **state)
{
	static const char broken[] = "modules:\n  gtk:\n    maintainers: [ebassi\n";
	static const char orphan[] = "modules:\n  lonely:\n    version_dir: major\n";
	struct policy *p = NULL;
	struct pst_err e;

	(void)state;
	assert_int_equal(policy_parse_deferred(config, strlen(config), "postern.yaml", &p, &e), 0);
	assert_int_not_equal(policy_merge_modules_text(p, broken, strlen(broken),
						       "doap-modules.yaml", &e), 0);
	assert_non_null(strstr(e.msg, "doap-modules.yaml:"));
	assert_false(policy_modules_loaded(p));
	assert_int_equal(policy_module_count(p), 0);
	assert_int_equal(policy_may(p, "matthiasc", POLICY_INSTALL, "gtk", NULL, 0), POLICY_DENY);
	assert_int_not_equal(policy_merge_modules_text(p, generated, strlen(generated),
						       "doap-modules.yaml", &e), 0);
	assert_false(policy_modules_loaded(p));
	policy_free(p);

	/* An entry of postern.yaml that only the DOAP list could complete fails
	 * at the merge, with the message policy_parse gives for it. */
	assert_int_equal(policy_parse_deferred(orphan, strlen(orphan), "postern.yaml", &p, &e), 0);
	assert_int_not_equal(policy_merge_modules_text(p, NULL, 0, NULL, &e), 0);
	assert_non_null(strstr(e.msg, "module lonely: no maintainers and not open"));
	policy_free(p);
	assert_int_not_equal(policy_parse(orphan, strlen(orphan), "postern.yaml", &p, &e), 0);
	assert_non_null(strstr(e.msg, "module lonely: no maintainers and not open"));
}

/* The tables again, on the policy built in two steps (setup_deferred). */
static void deferred_decision_table(void **state) { test_decision_table(state); }
static void deferred_override_flags(void **state) { test_override_flags(state); }
static void deferred_fails_closed(void **state) { test_fails_closed(state); }
static void deferred_reason_is_cut_safely(void **state) { test_reason_is_cut_safely(state); }
static void deferred_release_team_list(void **state) { test_release_team_list(state); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decision_table),
		cmocka_unit_test(test_override_flags),
		cmocka_unit_test(test_fails_closed),
		cmocka_unit_test(test_reason_is_cut_safely),
		cmocka_unit_test(test_release_team_list),
		cmocka_unit_test(test_no_release_team),
		cmocka_unit_test(test_pending_module_list_denies),
		cmocka_unit_test(test_failed_merge_is_final),
		cmocka_unit_test_setup_teardown(deferred_decision_table, setup_deferred, teardown),
		cmocka_unit_test_setup_teardown(deferred_override_flags, setup_deferred, teardown),
		cmocka_unit_test_setup_teardown(deferred_fails_closed, setup_deferred, teardown),
		cmocka_unit_test_setup_teardown(deferred_reason_is_cut_safely, setup_deferred,
						teardown),
		cmocka_unit_test_setup_teardown(deferred_release_team_list, setup_deferred,
						teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
