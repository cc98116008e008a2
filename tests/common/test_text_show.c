/*
 * The one test of what may be shown raw (common/text_show.h): each kind of
 * character a terminal or a reader could be fooled by, and the safe copy in
 * both forms, cut between characters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "text_show.h"

static const struct {
	const char *what;
	const char *s;
	size_t len;                  /* text_printable_len of the first character */
} chars[] = {
	{ "ASCII letter", "a", 1 },
	{ "space", " ", 1 },
	{ "e acute", "\xc3\xa9", 2 },
	{ "no-break space", "\xc2\xa0", 2 },
	{ "euro sign", "\xe2\x82\xac", 3 },
	{ "emoji", "\xf0\x9f\x93\xa6", 4 },
	{ "NUL", "", 0 },
	{ "TAB", "\t", 0 },
	{ "LF", "\n", 0 },
	{ "CR", "\r", 0 },
	{ "ESC", "\x1b", 0 },
	{ "DEL", "\x7f", 0 },
	{ "C1 NEL as UTF-8", "\xc2\x85", 0 },
	{ "C1 CSI as UTF-8", "\xc2\x9b", 0 },
	{ "stray CSI byte", "\x9b", 0 },
	{ "stray continuation byte", "\xbf", 0 },
	{ "overlong slash", "\xc0\xaf", 0 },
	{ "surrogate", "\xed\xa0\x80", 0 },
	{ "cut sequence", "\xe2\x82", 0 },
	{ "line separator", "\xe2\x80\xa8", 0 },
	{ "paragraph separator", "\xe2\x80\xa9", 0 },
	{ "right-to-left override", "\xe2\x80\xae", 0 },
	{ "right-to-left isolate", "\xe2\x81\xa7", 0 },
	{ "zero-width space", "\xe2\x80\x8b", 0 },
	{ "byte order mark", "\xef\xbb\xbf", 0 },
	/* Format characters (Cf) that are not default-ignorable. */
	{ "Arabic number sign", "\xd8\x80", 0 },
	{ "Arabic end of ayah", "\xdb\x9d", 0 },
	{ "Syriac abbreviation mark", "\xdc\x8f", 0 },
	{ "interlinear annotation anchor", "\xef\xbf\xb9", 0 },
	{ "Kaithi number sign", "\xf0\x91\x82\xbd", 0 },
};

static void test_each_character(void **state)
{
	size_t i, n, bytes;

	(void)state;
	for (i = 0; i < sizeof(chars) / sizeof(chars[0]); i++) {
		bytes = chars[i].s[0] != '\0' ? strlen(chars[i].s) : 1;   /* NUL is one byte */
		n = text_printable_len((const unsigned char *)chars[i].s, bytes);
		if (n != chars[i].len)
			fail_msg("%s: %zu, want %zu", chars[i].what, n, chars[i].len);
		assert_int_equal(text_printable(chars[i].s, bytes), chars[i].len == bytes);
	}
}

static void test_copy_replaces(void **state)
{
	static const char in[] = "a\x1b[2J\xc2\x9b" "b\x9b" "c\xe2\x80\xae" "d caf\xc3\xa9";
	char out[64];

	(void)state;
	assert_true(text_safe_copy(out, sizeof(out), in, strlen(in), TEXT_REPLACE));
	assert_string_equal(out, "a?[2J??b?c???d caf\xc3\xa9");
	assert_true(text_printable(out, strlen(out)));
}

static void test_copy_escapes(void **state)
{
	static const char in[] = "a\\b\x1b\xc2\x9b\x9b\xc3\xa9";
	char out[64];

	(void)state;
	assert_true(text_safe_copy(out, sizeof(out), in, strlen(in), TEXT_ESCAPE));
	assert_string_equal(out, "a\\\\b\\x1b\\xc2\\x9b\\x9b\xc3\xa9");
}

/* Cut between characters: never half a UTF-8 sequence nor half an escape. */
static void test_copy_cuts_between_characters(void **state)
{
	char out[5];

	(void)state;
	assert_false(text_safe_copy(out, sizeof(out), "abc\xc3\xa9", 5, TEXT_REPLACE));
	assert_string_equal(out, "abc");
	assert_false(text_safe_copy(out, sizeof(out), "a\x1b", 2, TEXT_ESCAPE));
	assert_string_equal(out, "a");
	assert_true(text_safe_copy(out, sizeof(out), "", 0, TEXT_REPLACE));
	assert_string_equal(out, "");
	assert_false(text_safe_copy(out, 0, "a", 1, TEXT_REPLACE));
}

/* An embedded NUL is a control too: the copy never ends early without saying so. */
static void test_copy_nul(void **state)
{
	char out[16];

	(void)state;
	assert_true(text_safe_copy(out, sizeof(out), "a\0b", 3, TEXT_REPLACE));
	assert_string_equal(out, "a?b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_character),
		cmocka_unit_test(test_copy_replaces),
		cmocka_unit_test(test_copy_escapes),
		cmocka_unit_test(test_copy_cuts_between_characters),
		cmocka_unit_test(test_copy_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
