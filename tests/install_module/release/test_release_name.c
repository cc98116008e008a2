/* Release file names, versions, their order and their directory in the tree. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "release_name.h"
#include "release_news.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *file, *module, *version;
	enum release_compression c;
} good_names[] = {
	{ "gtk-4.14.0.tar.xz", "gtk", "4.14.0", RELEASE_XZ },
	{ "glib-2.80.0.tar.gz", "glib", "2.80.0", RELEASE_GZ },
	{ "libxml2-2.12.5.tar.bz2", "libxml2", "2.12.5", RELEASE_BZ2 },
	{ "mutter-46.0.tar.zst", "mutter", "46.0", RELEASE_ZST },
	{ "gnome-shell-45.alpha.tar.xz", "gnome-shell", "45.alpha", RELEASE_XZ },
	{ "gnome-shell-45.beta.tar.xz", "gnome-shell", "45.beta", RELEASE_XZ },
	{ "gnome-shell-45.rc.tar.xz", "gnome-shell", "45.rc", RELEASE_XZ },
	{ "gtk-4-demo-1.0.tar.xz", "gtk-4-demo", "1.0", RELEASE_XZ },
	{ "at-spi2-core-2.52.0.tar.xz", "at-spi2-core", "2.52.0", RELEASE_XZ },
	{ "gtk+-3.24.41.tar.xz", "gtk+", "3.24.41", RELEASE_XZ },
	{ "foo-1-2.tar.xz", "foo-1", "2", RELEASE_XZ },
	{ "py.gobject-3.alpha.1.tar.xz", "py.gobject", "3.alpha.1", RELEASE_XZ },
	{ "x-0.tar.gz", "x", "0", RELEASE_GZ },
};

static void test_good_names(void **state)
{
	struct release_name r;
	struct pst_err e;
	char back[RELEASE_FILE_MAX + 1];
	size_t i;

	(void)state;
	for (i = 0; i < N(good_names); i++) {
		memset(&e, 0, sizeof(e));
		if (release_name_parse(good_names[i].file, &r, &e) != 0)
			fail_msg("%s: %s", good_names[i].file, e.msg);
		assert_string_equal(r.module, good_names[i].module);
		assert_string_equal(r.version, good_names[i].version);
		assert_int_equal(r.compression, good_names[i].c);
		assert_true(release_file_name(&r, back, sizeof(back)));
		assert_string_equal(back, good_names[i].file);
	}
}

static const struct {
	const char *file, *why;
} bad_names[] = {
	{ "gtk-4.14.0.tar", "must be <module>-<version>.tar.xz" },
	{ "gtk-4.14.0.tar.lz", "must be <module>-<version>.tar.xz" },
	{ "gtk-4.14.0.zip", "must be <module>-<version>.tar.xz" },
	{ "gtk-4.14.0.TAR.XZ", "must be <module>-<version>.tar.xz" },
	{ ".tar.xz", "must be <module>-<version>.tar.xz" },
	{ "gtk.tar.xz", "no '-' between module and version" },
	{ "-1.0.tar.xz", "no '-' between module and version" },
	{ "gtk-.tar.xz", "the version is missing" },
	{ "gtk-1.2-beta.tar.xz", "version beta must start with a number" },
	{ "gtk-4.14.0-rc1.tar.xz", "'rc1' is neither a number" },
	{ "gtk-v1.0.tar.xz", "'v1' is neither a number" },
	{ "gtk-1..2.tar.xz", "has an empty part" },
	{ "gtk-.1.tar.xz", "has an empty part" },
	{ "gtk-1.2..tar.xz", "ends with a dot" },
	{ "gtk-alpha.tar.xz", "version alpha must start with a number" },
	{ "gtk-45.alpha.beta.tar.xz", "beta must follow a number" },
	{ "gtk-1234567890.tar.xz", "longer than 9 digits" },
	{ "gtk-1.2.3.4.5.6.7.8.9.tar.xz", "more than 8 parts" },
	{ "gtk-45.Alpha.tar.xz", "'Alpha' is neither" },
	{ "gtk-1.2 .tar.xz", "may only contain letters, digits and . _ + -" },
	{ "gtk-1.2\x1b[2J.tar.xz", "may only contain letters, digits and . _ + -" },
	{ "../gtk-1.0.tar.xz", "without a directory" },
	{ "sub/gtk-1.0.tar.xz", "without a directory" },
	{ ".gtk-1.0.tar.xz", "module name '.gtk' is not allowed" },
	{ "gt k-1.0.tar.xz", "may only contain letters" },
	{ "_gtk-1.0.tar.xz", "module name '_gtk' is not allowed" },
	{ "gtk\n-1.0.tar.xz", "may only contain letters" },
	{ "g\xc3\xb6-1.0.tar.xz", "may only contain letters" },
	{ "gtk-1.0_1.tar.xz", "'0_1' is neither a number" },
	{ "gtk-1.02.tar.xz", "the number 02 has a leading zero" },
	{ "gtk-01.2.tar.xz", "the number 01 has a leading zero" },
	{ "gtk-1.2.00.tar.xz", "the number 00 has a leading zero" },
	{ "gtk-45.00.rc.tar.xz", "the number 00 has a leading zero" },
};

static void test_bad_names(void **state)
{
	struct release_name r;
	struct pst_err e;
	size_t i;

	(void)state;
	for (i = 0; i < N(bad_names); i++) {
		memset(&e, 0, sizeof(e));
		if (release_name_parse(bad_names[i].file, &r, &e) != -EINVAL)
			fail_msg("%s: accepted", bad_names[i].file);
		if (strstr(e.msg, bad_names[i].why) == NULL)
			fail_msg("%s: message '%s' lacks '%s'", bad_names[i].file, e.msg,
				 bad_names[i].why);
	}
}

static void test_long_names(void **state)
{
	char name[RELEASE_FILE_MAX + 16], module[NAME_MODULE_MAX + 2];
	struct release_name r;
	struct pst_err e;

	(void)state;
	memset(module, 'm', NAME_MODULE_MAX);
	module[NAME_MODULE_MAX] = '\0';
	snprintf(name, sizeof(name), "%s-123456789.123456789.tar.zst", module);
	assert_int_equal(release_name_parse(name, &r, &e), 0);
	assert_string_equal(r.module, module);

	module[NAME_MODULE_MAX] = 'm';
	module[NAME_MODULE_MAX + 1] = '\0';
	snprintf(name, sizeof(name), "%s-1.tar.xz", module);
	assert_int_equal(release_name_parse(name, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "is not allowed"));

	memset(name, '1', sizeof(name));
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(release_name_parse(name, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "longer than"));
}

/* Each row sorts strictly before the next. */
static const char *const ordered[] = {
	"0", "0.1", "0.9", "0.10", "1.alpha", "1.beta", "1.rc", "1", "1.0", "1.0.1",
	"1.1", "1.9.9", "1.10", "3.9", "3.10", "3.38.alpha", "3.38.0", "40.alpha",
	"40.alpha.1", "40.beta", "40.rc", "40", "40.0", "40.1", "45.rc", "45.0", "45.10",
	"46.alpha", "100", "999999999",
};

static void test_order(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < N(ordered); i++) {
		assert_int_equal(release_version_check(ordered[i], NULL), 0);
		for (j = 0; j < N(ordered); j++) {
			int c = release_version_compare(ordered[i], ordered[j]);
			int want = i < j ? -1 : i > j;

			if ((c < 0 ? -1 : c > 0) != want)
				fail_msg("compare(%s, %s) = %d, want %d", ordered[i], ordered[j], c,
					 want);
		}
	}
}

static int cmp_strings(const void *a, const void *b)
{
	return release_version_compare(*(const char *const *)a, *(const char *const *)b);
}

static void test_order_is_total(void **state)
{
	const char *v[] = { "1.02", "1.2", "junk", "1.2", "1.alpha", "", "1.002" };
	const char *want[] = { "", "junk", "1.alpha", "1.002", "1.02", "1.2", "1.2" };
	size_t i;

	(void)state;
	/* Numerically equal versions still order by text; invalid ones sort first. */
	assert_true(release_version_compare("1.02", "1.2") != 0);
	assert_int_equal(release_version_compare("1.2", "1.2"), 0);
	qsort(v, N(v), sizeof(v[0]), cmp_strings);
	for (i = 0; i < N(v); i++)
		assert_string_equal(v[i], want[i]);
}

/* One version spelled twice is one version: refused when new, recognised when old. */
static void test_version_aliases(void **state)
{
	struct release_name r;
	struct pst_err e;

	(void)state;
	assert_int_equal(release_version_check("1.02", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "leading zero"));
	assert_int_equal(release_version_check("10.0.100", NULL), 0);
	assert_int_equal(release_version_check("0.0", NULL), 0);
	assert_int_equal(release_version_check_released("1.02", NULL), 0);
	assert_int_equal(release_version_check_released("1..2", NULL), -EINVAL);
	assert_int_equal(release_name_parse_released("gtk-01.002.tar.xz", &r, &e), 0);
	assert_string_equal(r.version, "01.002");
	assert_int_equal(release_name_parse_released("gtk-1.beta.beta.tar.xz", &r, NULL), -EINVAL);

	assert_true(release_version_same("1.02", "1.2"));
	assert_true(release_version_same("01.2.0", "1.02.00"));
	assert_true(release_version_same("45.rc", "45.rc"));
	assert_true(release_version_same("1.2", "1.2"));
	assert_false(release_version_same("1.2", "1.2.0"));
	assert_false(release_version_same("1", "1.0"));
	assert_false(release_version_same("1.20", "1.2"));
	assert_false(release_version_same("45.rc", "45.beta"));
	assert_false(release_version_same("junk", "junk"));
	assert_false(release_version_same("1.2", "1.2-x"));
}

static const struct {
	const char *version, *override, *dir;
} dirs[] = {
	{ "4.14.0", NULL, "4.14" },
	{ "3.38.alpha", NULL, "3.38" },
	{ "2.80.0", NULL, "2.80" },
	{ "39.1", NULL, "39.1" },
	{ "40.alpha", NULL, "40" },
	{ "45.0", NULL, "45" },
	{ "45", NULL, "45" },
	{ "46.rc", NULL, "46" },
	{ "4.14.0", "major", "4" },
	{ "1", "major", "1" },
	{ "45.1", "major.minor", "45.1" },
	{ "123456789.123456789", "major.minor", "123456789.123456789" },
};

static void test_dirs(void **state)
{
	char out[RELEASE_DIR_MAX];
	struct pst_err e;
	size_t i;

	(void)state;
	for (i = 0; i < N(dirs); i++) {
		if (release_version_dir(dirs[i].version, dirs[i].override, out, sizeof(out), &e))
			fail_msg("%s: %s", dirs[i].version, e.msg);
		assert_string_equal(out, dirs[i].dir);
	}
}

static void test_dir_refusals(void **state)
{
	char out[RELEASE_DIR_MAX], small[4];
	struct pst_err e;

	(void)state;
	assert_int_equal(release_version_dir("3", NULL, out, sizeof(out), &e), -EINVAL);
	assert_non_null(strstr(e.msg, "version_dir: major"));
	assert_string_equal(out, "");
	assert_int_equal(release_version_dir("3.alpha", NULL, out, sizeof(out), &e), -EINVAL);
	assert_non_null(strstr(e.msg, "no minor number"));
	assert_int_equal(release_version_dir("45.beta", "major.minor", out, sizeof(out), &e),
			 -EINVAL);
	assert_int_equal(release_version_dir("4.1", "minor", out, sizeof(out), &e), -EINVAL);
	assert_non_null(strstr(e.msg, "version_dir 'minor' is not known"));
	assert_int_equal(release_version_dir("4.x", NULL, out, sizeof(out), &e), -EINVAL);
	assert_int_equal(release_version_check("4.1\n", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "may only contain digits, dots"));
	assert_int_equal(release_version_dir("4.1", NULL, small, sizeof(small), &e), -EINVAL);
}

static void test_compression_names(void **state)
{
	(void)state;
	assert_string_equal(release_compression_suffix(RELEASE_XZ), "tar.xz");
	assert_string_equal(release_compression_suffix(RELEASE_ZST), "tar.zst");
	assert_string_equal(release_compression_name(RELEASE_GZ), "gzip");
	assert_string_equal(release_compression_name(RELEASE_BZ2), "bzip2");
}

/* Every control character but newline and tab becomes one '?': C0, DEL and C1 (as UTF-8). */
static void test_news_controls(void **state)
{
	static const char news[] = "1.0\tok\n\x1b[2J x\x7f y\xc2\x9b" "2J z\xc2\x85" "caf\xc3\xa9\xc2\xa0\n";
	char out[RELEASE_NEWS_MAX + 1], again[RELEASE_NEWS_MAX + 1];

	(void)state;
	release_news_excerpt(news, strlen(news), out);
	assert_string_equal(out, "1.0\tok\n?[2J x? y?2J z?caf\xc3\xa9\xc2\xa0\n");
	release_news_excerpt(out, strlen(out), again);
	assert_string_equal(again, out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_names),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_order_is_total),
		cmocka_unit_test(test_version_aliases),
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_dir_refusals),
		cmocka_unit_test(test_compression_names),
		cmocka_unit_test(test_news_controls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
