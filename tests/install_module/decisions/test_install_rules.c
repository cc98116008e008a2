/*
 * The install rule table, case by case: every rule refuses once with its
 * exact sentence, the combinations that change a verdict (release team and
 * --force, open modules, signatures, spellings, withdrawn versions) and the
 * order of the rules. No root, no daemon: facts in, verdict out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "install_rules.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* A maintainer's ordinary install that every stage allows. */
static struct install_facts allowed_facts(void)
{
	struct install_facts f = {
		.file = "gtk-4.2.0.tar.xz",
		.module = "gtk",
		.version = "4.2.0",
		.basis = POLICY_MAINTAINER,
		.upload_passed = true,
		.upload_inspected = true,
		.upload_regular = true,
		.upload_uid = 1234,
		.asker_uid = 1234,
		.upload_readable = true,
		.upload_size = 1000,
		.max_compressed = 2000,
		.tar_sign_name = "gtk-4.2.0.tar.sign",
		.sha256 = SHA_A,
	};
	return f;
}

static void bad_name(struct install_facts *f) { f->name_error = "'x.tar.xz': not a release name"; }
static void denied(struct install_facts *f)
{
	f->basis = POLICY_DENY;
	f->policy_reason = "mallory is not a maintainer of gtk";
}
static void denied_and_forced(struct install_facts *f) { denied(f); f->force = true; }
static void forced(struct install_facts *f) { f->force = true; }
static void forced_by_team(struct install_facts *f)
{
	f->force = true;
	f->release_team = true;
	f->basis = POLICY_RELEASE_TEAM;
}
static void open_module(struct install_facts *f) { f->basis = POLICY_OPEN; }
static void bad_dir(struct install_facts *f) { f->dir_error = "version 4.x has no major number"; }
static void forced_bad_dir(struct install_facts *f) { forced(f); bad_dir(f); }
static void no_fd(struct install_facts *f)
{
	f->upload_passed = false;
	f->upload_inspected = false;
}
static void not_inspected(struct install_facts *f) { f->upload_inspected = false; }
static void directory(struct install_facts *f) { f->upload_regular = false; }
static void other_owner(struct install_facts *f) { f->upload_uid = 0; }
static void write_only(struct install_facts *f) { f->upload_readable = false; }
static void too_big(struct install_facts *f) { f->upload_size = 2001; }
static void at_limit(struct install_facts *f) { f->upload_size = 2000; }
static void other_owner_too_big(struct install_facts *f) { other_owner(f); too_big(f); }
static void unsigned_required(struct install_facts *f) { f->signature_required = true; }
static void unsigned_required_no_hint(struct install_facts *f)
{
	f->signature_required = true;
	f->tar_sign_name = NULL;
}
static void signed_required(struct install_facts *f)
{
	f->signature_required = true;
	f->signature_sent = true;
}
static void too_big_unsigned(struct install_facts *f) { too_big(f); unsigned_required(f); }
static void released(struct install_facts *f)
{
	f->released_version = "4.2.0";
	f->released_dir = "4.2";
	f->released_name = "gtk-4.2.0.tar.xz";
}
static void released_respelled(struct install_facts *f)
{
	f->version = "4.2";
	f->released_version = "4.2.0";
	f->released_dir = "4.2";
	f->released_name = "gtk-4.2.0.tar.xz";
}
static void released_forced(struct install_facts *f) { released(f); forced_by_team(f); }
static void withdrawn_other(struct install_facts *f)
{
	f->earlier_file = "gtk-4.2.0.tar.xz";
	f->earlier_sha256 = SHA_B;
}
static void withdrawn_same(struct install_facts *f)
{
	f->earlier_file = "gtk-4.2.0.tar.xz";
	f->earlier_sha256 = SHA_A;
}
static void withdrawn_forced(struct install_facts *f) { withdrawn_other(f); forced_by_team(f); }

struct row {
	const char *what;
	void (*change)(struct install_facts *f);
	enum install_stage stage;
	const char *rule;                 /* NULL: allowed */
	const char *reason;
};

static const struct row rows[] = {
	{ "a maintainer's request", NULL, INSTALL_STAGE_REQUEST, NULL, NULL },
	{ "a maintainer's upload", NULL, INSTALL_STAGE_UPLOAD, NULL, NULL },
	{ "a new version", NULL, INSTALL_STAGE_TREE, NULL, NULL },
	{ "never installed before", NULL, INSTALL_STAGE_LEDGER, NULL, NULL },
	{ "no release name", bad_name, INSTALL_STAGE_REQUEST, "release_name",
	  "'x.tar.xz': not a release name" },
	{ "the policy denies", denied, INSTALL_STAGE_REQUEST, "policy_allows",
	  "mallory is not a maintainer of gtk" },
	{ "denied comes before --force", denied_and_forced, INSTALL_STAGE_REQUEST, "policy_allows",
	  "mallory is not a maintainer of gtk" },
	{ "open module", open_module, INSTALL_STAGE_REQUEST, NULL, NULL },
	{ "--force by a maintainer", forced, INSTALL_STAGE_REQUEST, "force_is_release_team",
	  "--force is reserved to the release team" },
	{ "--force by the release team", forced_by_team, INSTALL_STAGE_REQUEST, NULL, NULL },
	{ "no version directory", bad_dir, INSTALL_STAGE_REQUEST, "version_dir",
	  "version 4.x has no major number" },
	{ "--force refused before the directory", forced_bad_dir, INSTALL_STAGE_REQUEST,
	  "force_is_release_team", "--force is reserved to the release team" },
	{ "no fd passed", no_fd, INSTALL_STAGE_UPLOAD, "upload_passed",
	  "no file was passed with the request" },
	{ "fstat or fcntl failed", not_inspected, INSTALL_STAGE_UPLOAD, "upload_inspected",
	  "the passed file cannot be inspected" },
	{ "not a regular file", directory, INSTALL_STAGE_UPLOAD, "upload_regular",
	  "the upload is not a regular file (upload the tarball itself)" },
	{ "another user's file", other_owner, INSTALL_STAGE_UPLOAD, "upload_owner",
	  "the upload is owned by uid 0, not by you (uid 1234): only your own uploads can be installed" },
	{ "opened write-only or O_PATH", write_only, INSTALL_STAGE_UPLOAD, "upload_readable",
	  "the passed file was not opened for reading" },
	{ "over the size limit", too_big, INSTALL_STAGE_UPLOAD, "upload_size",
	  "the upload is 2001 bytes, more than the limit of 2000" },
	{ "at the size limit", at_limit, INSTALL_STAGE_UPLOAD, NULL, NULL },
	{ "owner comes before size", other_owner_too_big, INSTALL_STAGE_UPLOAD, "upload_owner",
	  "the upload is owned by uid 0, not by you (uid 1234): only your own uploads can be installed" },
	{ "signature required, none sent", unsigned_required, INSTALL_STAGE_UPLOAD,
	  "signature_present",
	  "module gtk requires an OpenPGP signature: put gtk-4.2.0.tar.xz.asc (gpg --armor --detach-sign gtk-4.2.0.tar.xz) or gtk-4.2.0.tar.sign next to it and run install-module again" },
	{ "signature required, no .tar.sign name", unsigned_required_no_hint, INSTALL_STAGE_UPLOAD,
	  "signature_present",
	  "module gtk requires an OpenPGP signature: put gtk-4.2.0.tar.xz.asc (gpg --armor --detach-sign gtk-4.2.0.tar.xz) or <module>-<version>.tar.sign next to it and run install-module again" },
	{ "signature required and sent", signed_required, INSTALL_STAGE_UPLOAD, NULL, NULL },
	{ "size comes before the signature", too_big_unsigned, INSTALL_STAGE_UPLOAD, "upload_size",
	  "the upload is 2001 bytes, more than the limit of 2000" },
	{ "already released", released, INSTALL_STAGE_TREE, "not_already_released",
	  "version 4.2.0 of gtk is already released as 4.2/gtk-4.2.0.tar.xz (use a new version number)" },
	{ "already released, spelled differently", released_respelled, INSTALL_STAGE_TREE,
	  "not_already_released",
	  "version 4.2 of gtk is already released as 4.2/gtk-4.2.0.tar.xz, the same version spelled differently (use a new version number)" },
	{ "already released, --force by the release team", released_forced, INSTALL_STAGE_TREE,
	  NULL, NULL },
	{ "withdrawn, other bytes", withdrawn_other, INSTALL_STAGE_LEDGER, "withdrawn_same_bytes",
	  "version 4.2.0 of gtk was released before as gtk-4.2.0.tar.xz (sha256 " SHA_B ") and withdrawn; mirrors may still have it, so it may come back only with the same bytes: upload that file again, or use a new version number (the release team can override this with --force)" },
	{ "withdrawn, the same bytes", withdrawn_same, INSTALL_STAGE_LEDGER, NULL, NULL },
	{ "withdrawn, --force by the release team", withdrawn_forced, INSTALL_STAGE_LEDGER, NULL,
	  NULL },
};

static void run_row(const struct row *r)
{
	struct install_facts f = allowed_facts();
	struct decision d;
	bool ok;

	if (r->change)
		r->change(&f);
	memset(&d, 0x55, sizeof(d));
	ok = install_rules_check(r->stage, &f, &d);
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

/* Every rule of the table refuses in some row above. */
static void test_every_rule_refuses_somewhere(void **state)
{
	static const char *const names[] = {
		"release_name", "policy_allows", "force_is_release_team", "version_dir",
		"upload_passed", "upload_inspected", "upload_regular", "upload_owner",
		"upload_readable", "upload_size", "signature_present", "not_already_released",
		"withdrawn_same_bytes",
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

/* A rule belongs to one stage: facts of a later stage do not refuse early. */
static void test_stages_are_separate(void **state)
{
	struct install_facts f = allowed_facts();
	struct decision d;

	(void)state;
	released(&f);
	withdrawn_other(&f);
	too_big(&f);
	assert_true(install_rules_check(INSTALL_STAGE_REQUEST, &f, &d));
	assert_false(install_rules_check(INSTALL_STAGE_UPLOAD, &f, &d));
	assert_string_equal(d.rule, "upload_size");
}

/* A hostile long name cannot overflow the sentence: it is cut, NUL-terminated. */
static void test_long_reason_is_cut(void **state)
{
	static char name[4 * DECISION_REASON_MAX];
	struct install_facts f = allowed_facts();
	struct decision d;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	f.file = name;
	f.signature_required = true;
	assert_false(install_rules_check(INSTALL_STAGE_UPLOAD, &f, &d));
	assert_int_equal(strlen(d.reason), DECISION_REASON_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_every_rule_refuses_somewhere),
		cmocka_unit_test(test_stages_are_separate),
		cmocka_unit_test(test_long_reason_is_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
