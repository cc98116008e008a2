/*
 * The sections of postern.yaml through the policy API: each one read with
 * its patterns and uploaders, found by name, and which file names it takes
 * (policy_section_accepts: the longest suffix, byte for byte). The schema's
 * errors are in test_policy_schema.c's table with the others.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "policy_text.h"

static const char config[] =
	"sections:\n"
	"  binaries:\n"
	"    files: [\"*.zip\", \"*.flatpak\", \"*.msi\", \"*.dmg\", \"*.AppImage\"]\n"
	"    uploaders: maintainers\n"
	"  releng:\n"
	"    files: [\"*.xz\", \"*.tar.xz\", \"*.iso\"]\n"
	"    uploaders: release_team\n"
	"  teams: {files: ['*.txt'], uploaders: {group: translators}}\n"
	"  misc: {files: ['*.tar.gz'], uploaders: open}\n";

static void test_read(void **state)
{
	struct policy *p = parse_ok(config);
	const struct policy_section *s;

	(void)state;
	assert_int_equal(policy_section_count(p), 4);
	s = policy_section_at(p, 0);
	assert_string_equal(s->name, "binaries");
	assert_int_equal(s->uploaders, POLICY_UPLOADERS_MAINTAINERS);
	assert_null(s->group);
	assert_string_equal(s->files[4], "*.AppImage");
	assert_null(s->files[5]);
	assert_int_equal(s->line, 2);
	assert_int_equal(s->col, 3);
	assert_int_equal(policy_section_at(p, 1)->uploaders, POLICY_UPLOADERS_RELEASE_TEAM);
	s = policy_section_at(p, 2);
	assert_string_equal(s->name, "teams");
	assert_int_equal(s->uploaders, POLICY_UPLOADERS_GROUP);
	assert_string_equal(s->group, "translators");
	assert_int_equal(policy_section_at(p, 3)->uploaders, POLICY_UPLOADERS_OPEN);
	assert_null(policy_section_at(p, 4));
	assert_ptr_equal(policy_settings(p)->sections, policy_section_at(p, 0));
	assert_int_equal(policy_settings(p)->nsections, 4);
	policy_free(p);
}

static void test_find(void **state)
{
	struct policy *p = parse_ok(config);

	(void)state;
	assert_ptr_equal(policy_section_find(p, "releng"), policy_section_at(p, 1));
	assert_ptr_equal(policy_section_find(p, "misc"), policy_section_at(p, 3));
	assert_null(policy_section_find(p, "sources"));     /* built in, not declared */
	assert_null(policy_section_find(p, "Releng"));
	assert_null(policy_section_find(p, "relen"));
	assert_null(policy_section_find(p, ""));
	assert_null(policy_section_find(p, NULL));
	assert_null(policy_section_find(NULL, "releng"));
	assert_int_equal(policy_section_count(NULL), 0);
	policy_free(p);

	p = parse_ok("");
	assert_int_equal(policy_section_count(p), 0);
	assert_null(policy_section_at(p, 0));
	assert_null(policy_section_find(p, "binaries"));
	policy_free(p);
}

static void test_accepts(void **state)
{
	struct policy *p = parse_ok(config);
	const struct policy_section *bin = policy_section_find(p, "binaries");
	const struct policy_section *rel = policy_section_find(p, "releng");

	(void)state;
	assert_string_equal(policy_section_accepts(bin, "gtk-4.14.0-win64.zip"), "*.zip");
	assert_string_equal(policy_section_accepts(bin, "gimp-2.10.38.AppImage"), "*.AppImage");
	assert_string_equal(policy_section_accepts(bin, "a.zip"), "*.zip");
	/* Byte for byte: case matters, the dot is part of the suffix. */
	assert_null(policy_section_accepts(bin, "gtk-4.14.0.ZIP"));
	assert_null(policy_section_accepts(bin, "gimp-2.10.38.appimage"));
	assert_null(policy_section_accepts(bin, "gtk-4.14.0zip"));
	assert_null(policy_section_accepts(bin, "gtk-4.14.0.zip.asc"));
	assert_null(policy_section_accepts(bin, "gtk-4.14.0.tar.xz"));
	/* Something must come before the suffix; a name is never a path. */
	assert_null(policy_section_accepts(bin, ".zip"));
	assert_null(policy_section_accepts(bin, "zip"));
	assert_null(policy_section_accepts(bin, ""));
	assert_null(policy_section_accepts(bin, "../gtk.zip"));
	assert_null(policy_section_accepts(bin, "gtk/gtk-4.14.0.zip"));
	assert_null(policy_section_accepts(bin, NULL));
	assert_null(policy_section_accepts(NULL, "gtk.zip"));
	/* The longest suffix wins, whatever the order of the list. */
	assert_string_equal(policy_section_accepts(rel, "gnome-47.tar.xz"), "*.tar.xz");
	assert_string_equal(policy_section_accepts(rel, "gnome-47.xz"), "*.xz");
	assert_string_equal(policy_section_accepts(rel, ".tar.xz"), "*.xz");
	assert_string_equal(policy_section_accepts(rel, "gnome-os-47.iso"), "*.iso");
	policy_free(p);
}

/* Text of n sections, each with its own name and k patterns. */
static char *many(size_t n, size_t k)
{
	size_t size = 64 + n * (64 + k * 16), len, i, j;
	char *t = malloc(size);

	assert_non_null(t);
	len = (size_t)snprintf(t, size, "sections:\n");
	for (i = 0; i < n; i++) {
		len += (size_t)snprintf(t + len, size - len, "  s%zu:\n    uploaders: open\n    files: [",
					i);
		for (j = 0; j < k; j++)
			len += (size_t)snprintf(t + len, size - len, "%s'*.e%zu'", j ? ", " : "", j);
		len += (size_t)snprintf(t + len, size - len, "]\n");
	}
	return t;
}

static void test_limits(void **state)
{
	char *t = many(POLICY_SECTIONS_MAX, POLICY_SECTION_FILES_MAX);
	struct policy *p = parse_ok(t);

	(void)state;
	assert_int_equal(policy_section_count(p), POLICY_SECTIONS_MAX);
	assert_string_equal(policy_section_accepts(policy_section_find(p, "s31"), "x.e63"), "*.e63");
	policy_free(p);
	free(t);
	t = many(POLICY_SECTIONS_MAX + 1, 1);
	parse_fails("33 sections", t, "p.yaml:2:3: sections: between 1 and 32 sections");
	free(t);
	t = many(1, POLICY_SECTION_FILES_MAX + 1);
	parse_fails("65 patterns", t, "p.yaml:4:12: sections.s0.files: more than 64 entries");
	free(t);
	/* Names and suffixes at their longest. */
	p = parse_ok("sections:\n  abcdefghijabcdefghijabcdefghij-_:\n"
		     "    files: ['*.abcdefghij.bcdefghij-cdefghij_12']\n    uploaders: open\n");
	assert_non_null(policy_section_find(p, "abcdefghijabcdefghijabcdefghij-_"));
	policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
