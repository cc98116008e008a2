/*
 * The delete-own rule table, case by case: each rule refuses once with its
 * exact sentence; the installer, the window (and how it is spelled), a
 * window of 0 and the release team. No root, no daemon.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "delete_rules.h"

#define NOW 1800000000
#define ALTERNATIVES "publish a new version instead; the release team can replace this one with install-module --force, and a server administrator can withdraw it by hand"

/* The installer deleting within the day: allowed at every stage. */
static struct delete_facts allowed_facts(void)
{
	struct delete_facts f = {
		.file = "gtk-4.2.0.tar.xz",
		.module = "gtk",
		.basis = POLICY_MAINTAINER,
		.module_has_dir = true,
		.file_in_tree = true,
		.asker = "otte",
		.installer = "otte",
		.installed_when = NOW - 3600,
		.now = NOW,
		.delete_window = 86400,
	};
	return f;
}

static void bad_name(struct delete_facts *f) { f->name_error = "'gtk.tar.xz': no version"; }
static void denied(struct delete_facts *f)
{
	f->basis = POLICY_DENY;
	f->policy_reason = "mallory is not a maintainer of gtk";
}
static void no_module_dir(struct delete_facts *f) { f->module_has_dir = false; }
static void not_in_tree(struct delete_facts *f) { f->file_in_tree = false; }
static void other_installer(struct delete_facts *f) { f->installer = "ebassi"; }
static void no_installer(struct delete_facts *f) { f->installer = NULL; }
static void team_other_installer(struct delete_facts *f)
{
	f->installer = "ebassi";
	f->release_team = true;
}
static void window_off(struct delete_facts *f) { f->delete_window = 0; }
static void team_window_off(struct delete_facts *f) { window_off(f); f->release_team = true; }
static void day_late(struct delete_facts *f) { f->installed_when = NOW - 90000; }
static void minutes_late(struct delete_facts *f)
{
	f->delete_window = 3540;
	f->installed_when = NOW - 3600;
}
static void seconds_late(struct delete_facts *f)
{
	f->delete_window = 30;
	f->installed_when = NOW - 45;
}
/* One of a unit is said in the singular. */
static void one_unit_late(struct delete_facts *f)
{
	f->delete_window = 60;
	f->installed_when = NOW - 61;
}
static void at_window(struct delete_facts *f) { f->installed_when = NOW - 86400; }
static void team_late(struct delete_facts *f) { day_late(f); f->release_team = true; }
/* The clock set back behind the install: the window would look open again. */
static void clock_behind_install(struct delete_facts *f) { f->installed_when = NOW + 7200; }
/* Set back behind a request the daemon saw after the window shut, but not behind the install. */
static void clock_behind_seen(struct delete_facts *f) { f->clock_seen = NOW + 90000; }
static void clock_seen_earlier(struct delete_facts *f) { f->clock_seen = NOW - 10; }
static void team_clock_behind(struct delete_facts *f) { clock_behind_seen(f); f->release_team = true; }

struct row {
	const char *what;
	void (*change)(struct delete_facts *f);
	enum delete_stage stage;
	const char *rule;
	const char *reason;
};

static const struct row rows[] = {
	{ "the installer's request", NULL, DELETE_STAGE_REQUEST, NULL, NULL },
	{ "a module with releases", NULL, DELETE_STAGE_MODULE, NULL, NULL },
	{ "a released file", NULL, DELETE_STAGE_TREE, NULL, NULL },
	{ "the installer, within the window", NULL, DELETE_STAGE_LEDGER, NULL, NULL },
	{ "no release name", bad_name, DELETE_STAGE_REQUEST, "release_name",
	  "'gtk.tar.xz': no version" },
	{ "the policy denies", denied, DELETE_STAGE_REQUEST, "policy_allows",
	  "mallory is not a maintainer of gtk" },
	{ "no module directory", no_module_dir, DELETE_STAGE_MODULE, "module_has_releases",
	  "gtk has no releases (nothing to delete)" },
	{ "not in the tree", not_in_tree, DELETE_STAGE_TREE, "file_released",
	  "gtk-4.2.0.tar.xz is neither in your incoming directory nor released (check the name with list)" },
	{ "installed by another maintainer", other_installer, DELETE_STAGE_LEDGER,
	  "installed_by_asker",
	  "gtk-4.2.0.tar.xz was not installed by you, but by ebassi, and only the user who installed a release may delete it (" ALTERNATIVES ")" },
	{ "no install in the ledger", no_installer, DELETE_STAGE_LEDGER, "installed_by_asker",
	  "gtk-4.2.0.tar.xz was not installed by you, and only the user who installed a release may delete it (" ALTERNATIVES ")" },
	{ "the release team, another's release", team_other_installer, DELETE_STAGE_LEDGER,
	  "installed_by_asker",
	  "gtk-4.2.0.tar.xz was not installed by you, but by ebassi, and only the user who installed a release may delete it (" ALTERNATIVES ")" },
	{ "delete_window: 0", window_off, DELETE_STAGE_LEDGER, "deletes_enabled",
	  "gtk-4.2.0.tar.xz: deleting released files is disabled on this server (delete_window: 0) (" ALTERNATIVES ")" },
	{ "delete_window: 0, the release team too", team_window_off, DELETE_STAGE_LEDGER,
	  "deletes_enabled",
	  "gtk-4.2.0.tar.xz: deleting released files is disabled on this server (delete_window: 0) (" ALTERNATIVES ")" },
	{ "a day late", day_late, DELETE_STAGE_LEDGER, "within_delete_window",
	  "gtk-4.2.0.tar.xz was installed 25 hours ago; you may delete your own releases only within 24 hours of installing them (" ALTERNATIVES ")" },
	{ "a minute late", minutes_late, DELETE_STAGE_LEDGER, "within_delete_window",
	  "gtk-4.2.0.tar.xz was installed 1 hour ago; you may delete your own releases only within 59 minutes of installing them (" ALTERNATIVES ")" },
	{ "seconds late", seconds_late, DELETE_STAGE_LEDGER, "within_delete_window",
	  "gtk-4.2.0.tar.xz was installed 45 seconds ago; you may delete your own releases only within 30 seconds of installing them (" ALTERNATIVES ")" },
	{ "a second late, a minute's window", one_unit_late, DELETE_STAGE_LEDGER, "within_delete_window",
	  "gtk-4.2.0.tar.xz was installed 1 minute ago; you may delete your own releases only within 1 minute of installing them (" ALTERNATIVES ")" },
	{ "exactly at the window", at_window, DELETE_STAGE_LEDGER, NULL, NULL },
	{ "the clock behind the install", clock_behind_install, DELETE_STAGE_LEDGER, "clock_not_behind",
	  "the server's clock is 2 hours behind a time it has already seen (this release's install): it was set back, so the delete window cannot be judged; deletes are refused until the clock is right again (an administrator who finds the later time was the wrong one removes <state>/history/clock) (" ALTERNATIVES ")" },
	{ "the clock behind an earlier request", clock_behind_seen, DELETE_STAGE_LEDGER, "clock_not_behind",
	  "the server's clock is 25 hours behind a time it has already seen (an earlier request): it was set back, so the delete window cannot be judged; deletes are refused until the clock is right again (an administrator who finds the later time was the wrong one removes <state>/history/clock) (" ALTERNATIVES ")" },
	{ "a request seen earlier", clock_seen_earlier, DELETE_STAGE_LEDGER, NULL, NULL },
	{ "the release team, the clock behind", team_clock_behind, DELETE_STAGE_LEDGER, NULL, NULL },
	{ "the release team, late", team_late, DELETE_STAGE_LEDGER, NULL, NULL },
};

static void run_row(const struct row *r)
{
	struct delete_facts f = allowed_facts();
	struct decision d;
	bool ok;

	if (r->change)
		r->change(&f);
	memset(&d, 0x55, sizeof(d));
	ok = delete_rules_check(r->stage, &f, &d);
	print_message("# %s\n", r->what);
	if (r->rule == NULL) {
		assert_true(ok);
		assert_null(d.rule);
		assert_string_equal(d.reason, "");
		return;
	}
	assert_false(ok);
	assert_non_null(d.rule);
	assert_string_equal(d.rule, r->rule);
	assert_string_equal(d.reason, r->reason);
}

static void test_rows(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run_row(&rows[i]);
}

static void test_every_rule_refuses_somewhere(void **state)
{
	static const char *const names[] = {
		"release_name", "policy_allows", "module_has_releases", "file_released",
		"installed_by_asker", "deletes_enabled", "within_delete_window",
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
			if (rows[k].rule && strcmp(rows[k].rule, names[i]) == 0)
				break;
		if (k == sizeof(rows) / sizeof(rows[0]))
			fail_msg("rule %s refuses in no row", names[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_every_rule_refuses_somewhere),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
