/* The tokenizer: what it splits, and that it refuses, naming the character,
 * everything a shell would interpret. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tokenize.h"

static struct shell_words w;

static void split_ok(const char *cmd, size_t n, const char *const expect[])
{
	struct pst_err e = { "" };
	size_t i;

	assert_int_equal(shell_tokenize(cmd, strlen(cmd), &w, &e), 0);
	assert_int_equal(w.n, n);
	for (i = 0; i < n; i++)
		assert_string_equal(w.word[i], expect[i]);
	assert_null(w.word[n]);
}

static void refused(const char *cmd, size_t len, const char *needle)
{
	struct pst_err e = { "" };

	assert_int_equal(shell_tokenize(cmd, len, &w, &e), -22);
	assert_int_equal(w.n, 0);
	if (strstr(e.msg, needle) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", e.msg, needle);
}

static void test_plain_words(void **state)
{
	const char *const x[] = { "rsync", "--server", "-vlogDtpre.iLsfxCIvu", ".", "." };

	(void)state;
	split_ok("rsync --server -vlogDtpre.iLsfxCIvu . .", 5, x);
	split_ok("  rsync   --server  -vlogDtpre.iLsfxCIvu . .  ", 5, x);
}

static void test_quotes_and_backslash(void **state)
{
	const char *const a[] = { "list", "a b", "c'd", "e\"f", "g\\h", "" };
	const char *const b[] = { "x", "sub dir/x;y" };
	const char *const c[] = { "x", "$HOME", "`id`", "a\\b" };

	(void)state;
	split_ok("list 'a b' \"c'd\" 'e\"f' \"g\\\\h\" ''", 6, a);
	split_ok("x sub\\ dir/x\\;y", 2, b);
	split_ok("x \"\\$HOME\" '`id`' \"a\\b\"", 4, c);
}

static void test_empty(void **state)
{
	(void)state;
	split_ok("", 0, NULL);
	split_ok("   ", 0, NULL);
}

static void test_metacharacters_named(void **state)
{
	static const char metas[] = ";&|<>`$(){}*?[]~#!^";
	char cmd[32];
	char needle[8];
	size_t i;

	(void)state;
	for (i = 0; metas[i] != '\0'; i++) {
		snprintf(cmd, sizeof(cmd), "list a%cb", metas[i]);
		snprintf(needle, sizeof(needle), "'%c'", metas[i]);
		refused(cmd, strlen(cmd), needle);
		refused(cmd, strlen(cmd), "at byte 7");
	}
	refused("ls; id", 6, "command separator");
	refused("a && b", 6, "chaining");
	refused("a | b", 5, "pipe");
	refused("cat </etc/passwd", 16, "redirection");
	refused("echo $(id)", 10, "'$'");
	refused("echo `id`", 9, "command substitution");
	refused("ls ~root", 8, "home directory");
	refused("list # x", 8, "comment");
}

static void test_expansion_in_double_quotes(void **state)
{
	(void)state;
	refused("list \"$HOME\"", 12, "inside double quotes");
	refused("list \"`id`\"", 11, "inside double quotes");
}

static void test_control_characters(void **state)
{
	(void)state;
	refused("help\nid", 7, "LF");
	refused("help\rid", 7, "CR");
	refused("help\x1b[2J", 8, "ESC");
	refused("help\x7f", 5, "DEL");
	refused("help\tid", 7, "TAB");
	refused("help\0id", 7, "NUL");
	refused("list 'a\nb'", 10, "LF");        /* quotes do not help */
	refused("list \xc2\x85", 7, "U+0085");   /* C1 NEL */
	refused("list \xc2\x9b" "2J", 7, "U+009B");   /* C1 CSI */
	refused("list \x1b[2J", 7, "ESC");
	refused("list \xe2\x80\xae", 8, "U+202E"); /* bidi override */
	refused("list \xd8\x9c", 7, "U+061C");   /* Arabic letter mark, a bidi control */
	refused("list gtk\xe2\x80\x8b", 11, "U+200B");   /* zero width space */
	refused("list \xc2\xad", 7, "U+00AD");            /* soft hyphen */
	refused("list \xe2\x81\xa0", 8, "U+2060");       /* word joiner */
	refused("list \xf3\xa0\x80\x81", 9, "U+E0001"); /* language tag */
	refused("list \xe2\x80\xa8", 8, "U+2028"); /* line separator */
	refused("list \xd8\x80", 7, "U+0600");   /* Arabic number sign, a format character */
	refused("list \xef\xbf\xb9", 8, "U+FFF9"); /* interlinear annotation anchor */
}

/* Characters that print as nothing, beyond the old hand-written list: the
 * Default_Ignorable_Code_Point property and the Hangul fillers. */
static void test_printing_nothing(void **state)
{
	(void)state;
	refused("list gtk\xcd\x8f", 10, "U+034F");          /* combining grapheme joiner */
	refused("list gtk\xe1\xa0\x8e", 11, "U+180E");      /* Mongolian vowel separator */
	refused("list gtk\xef\xb8\x8f", 11, "U+FE0F");      /* variation selector 16 */
	refused("list gtk\xe1\x85\x9f", 11, "U+115F");      /* Hangul choseong filler */
	refused("list gtk\xe1\x85\xa0", 11, "U+1160");      /* Hangul jungseong filler */
	refused("list gtk\xe3\x85\xa4", 11, "U+3164");      /* Hangul filler */
	refused("list gtk\xef\xbe\xa0", 11, "U+FFA0");      /* halfwidth Hangul filler */
	refused("list gtk\xf0\x9d\x85\xb3", 12, "U+1D173"); /* musical symbol begin beam */
	refused("list gtk\xe1\x85\x9f-1.0", 15, "U+115F");
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	refused("list \xff", 6, "invalid UTF-8");
	refused("list \xc0\xaf", 7, "byte 6");
	refused("list \xed\xa0\x80", 8, "invalid UTF-8");
	refused("list \xc3", 6, "invalid UTF-8");
}

static void test_utf8_allowed(void **state)
{
	const char *const x[] = { "list", "G\xc3\xb6llnitz" };

	(void)state;
	split_ok("list G\xc3\xb6llnitz", 2, x);
}

static void test_unterminated(void **state)
{
	(void)state;
	refused("list 'abc", 9, "unterminated single quote starting at byte 6");
	refused("list \"abc", 9, "unterminated double quote");
	refused("list abc\\", 9, "backslash at the end");
}

static void test_limits(void **state)
{
	char *big = malloc(SHELL_CMD_MAX + 2);
	size_t i;

	(void)state;
	assert_non_null(big);
	memset(big, 'a', SHELL_CMD_MAX + 1);
	big[SHELL_CMD_MAX + 1] = '\0';
	refused(big, SHELL_CMD_MAX + 1, "more than the limit of 8192");
	{
		struct pst_err e = { "" };
		assert_int_equal(shell_tokenize(big, SHELL_CMD_MAX, &w, &e), 0);
		assert_int_equal(w.n, 1);
	}
	for (i = 0; i < SHELL_CMD_MAX / 2; i++) {
		big[2 * i] = 'a';
		big[2 * i + 1] = ' ';
	}
	refused(big, 2 * 257, "more than 256 words");
	{
		struct pst_err e = { "" };
		assert_int_equal(shell_tokenize(big, 2 * 256, &w, &e), 0);
		assert_int_equal(w.n, 256);
	}
	/* the worst case for the buffer: many empty words */
	for (i = 0; i < 256; i++)
		memcpy(big + 3 * i, "'' ", 3);
	{
		struct pst_err e = { "" };
		assert_int_equal(shell_tokenize(big, 3 * 256, &w, &e), 0);
		assert_int_equal(w.n, 256);
		assert_string_equal(w.word[255], "");
	}
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_words),
		cmocka_unit_test(test_quotes_and_backslash),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_metacharacters_named),
		cmocka_unit_test(test_expansion_in_double_quotes),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_printing_nothing),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_utf8_allowed),
		cmocka_unit_test(test_unterminated),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
