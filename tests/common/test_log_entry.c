#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "log_entry.h"

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define INSTALL_TEXT "postern-entry 1\nop install\ntime 2026-12-03T06:40:00Z\nmodule gtk\n" \
	"version 4.14.0\nuploader alice\nsigner -\nforced no\nattic -\n" \
	"file sources/gtk/4.14/gtk-4.14.0.tar.xz " SHA "\n" \
	"file sources/gtk/4.14/gtk-4.14.0.sha256sum " SHA "\n"

static void install_entry(struct log_entry *le)
{
	memset(le, 0, sizeof(*le));
	strcpy(le->op, "install");
	le->when = 1796280000;          /* 2026-12-03T06:40:00Z */
	strcpy(le->module, "gtk");
	strcpy(le->version, "4.14.0");
	strcpy(le->uploader, "alice");
	strcpy(le->signer, "-");
	strcpy(le->forced, "no");
	strcpy(le->attic, "-");
	le->nfiles = 2;
	strcpy(le->files[0].path, "sources/gtk/4.14/gtk-4.14.0.tar.xz");
	strcpy(le->files[0].sha256, SHA);
	strcpy(le->files[1].path, "sources/gtk/4.14/gtk-4.14.0.sha256sum");
	strcpy(le->files[1].sha256, SHA);
}

static void test_round_trip(void **state)
{
	struct log_entry le, back;
	char text[LOG_ENTRY_TEXT_MAX + 1];
	int n;

	(void)state;
	install_entry(&le);
	n = log_entry_format(&le, text, sizeof(text), NULL);
	assert_string_equal(text, INSTALL_TEXT);
	assert_int_equal(log_entry_parse(text, (size_t)n, &back, NULL), 0);
	assert_memory_equal(&back, &le, sizeof(le));

	le.files[1].gone = true;
	strcpy(le.op, "delete");
	n = log_entry_format(&le, text, sizeof(text), NULL);
	assert_non_null(strstr(text, "\ngone sources/gtk/4.14/gtk-4.14.0.sha256sum "));
	assert_int_equal(log_entry_parse(text, (size_t)n, &back, NULL), 0);
	assert_true(back.files[1].gone);
}

static void expect_format_refused(void (*spoil)(struct log_entry *))
{
	struct log_entry le;
	char text[LOG_ENTRY_TEXT_MAX + 1];
	struct pst_err e = {{0}};

	install_entry(&le);
	spoil(&le);
	assert_true(log_entry_format(&le, text, sizeof(text), &e) < 0);
	assert_true(strlen(e.msg) > 0);
}

static void op_unknown(struct log_entry *le) { strcpy(le->op, "rewrite"); }
static void module_space(struct log_entry *le) { strcpy(le->module, "gtk 4"); }
static void version_newline(struct log_entry *le) { strcpy(le->version, "4\nop delete"); }
static void uploader_empty(struct log_entry *le) { le->uploader[0] = '\0'; }
static void forced_maybe(struct log_entry *le) { strcpy(le->forced, "ja"); }
static void path_dotdot(struct log_entry *le) { strcpy(le->files[0].path, "sources/../etc/passwd"); }
static void path_absolute(struct log_entry *le) { strcpy(le->files[0].path, "/etc/passwd"); }
static void path_double_slash(struct log_entry *le) { strcpy(le->files[0].path, "sources//x"); }
static void sha_upper(struct log_entry *le) { le->files[0].sha256[0] = 'A'; }
static void sha_short(struct log_entry *le) { le->files[0].sha256[63] = '\0'; }
static void no_files(struct log_entry *le) { le->nfiles = 0; }

static void test_format_refusals(void **state)
{
	(void)state;
	expect_format_refused(op_unknown);
	expect_format_refused(module_space);
	expect_format_refused(version_newline);
	expect_format_refused(uploader_empty);
	expect_format_refused(forced_maybe);
	expect_format_refused(path_dotdot);
	expect_format_refused(path_absolute);
	expect_format_refused(path_double_slash);
	expect_format_refused(sha_upper);
	expect_format_refused(sha_short);
	expect_format_refused(no_files);
}

static void test_parse_refusals(void **state)
{
	static const char *const bad[] = {
		"",
		"postern-entry 2\n",
		INSTALL_TEXT "trailing junk\n",
		"postern-entry 1\nop install\ntime 2026-12-03T06:40:00Z\nversion 4.14.0\nmodule gtk\n"
		"uploader alice\nsigner -\nforced no\nattic -\nfile sources/a " SHA "\n",
		"postern-entry 1\nop install\ntime 2026-12-3T06:40:00Z\nmodule gtk\nversion 4.14.0\n"
		"uploader alice\nsigner -\nforced no\nattic -\nfile sources/a " SHA "\n",
		"postern-entry 1\nop install\ntime 2026-12-03T06:40:00Z\nmodule gtk\nversion 4.14.0\n"
		"uploader alice\nsigner -\nforced no\nattic -\n",
		"postern-entry 1\nop install\ntime 2026-12-03T06:40:00Z\nmodule gtk\nversion 4.14.0\n"
		"uploader alice\nsigner -\nforced no\nattic -\nfile sources/a " SHA,
		"postern-entry 1\nop install\ntime 2026-12-03T06:40:00Z\nmodule  gtk\nversion 4.14.0\n"
		"uploader alice\nsigner -\nforced no\nattic -\nfile sources/a " SHA "\n",
	};
	struct log_entry le;
	size_t i;

	(void)state;
	assert_int_equal(log_entry_parse(INSTALL_TEXT, strlen(INSTALL_TEXT), &le, NULL), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pst_err e = {{0}};

		assert_true(log_entry_parse(bad[i], strlen(bad[i]), &le, &e) < 0);
		assert_true(strlen(e.msg) > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_format_refusals),
		cmocka_unit_test(test_parse_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
