#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hex.h"
#include "text.h"

static void test_utf8_accepts_valid(void **state)
{
	(void)state;
	assert_true(utf8_valid("plain", 5));
	assert_true(utf8_valid("G\xc3\xb6llnitz", 9));
	assert_true(utf8_valid("\xd0\xa0\xd1\x83", 4));
	assert_true(utf8_valid("\xf0\x9f\x98\x80", 4));
	assert_true(utf8_valid("", 0));
}

static void test_utf8_refuses_invalid(void **state)
{
	(void)state;
	assert_false(utf8_valid("\xc0\xaf", 2));          /* overlong '/' */
	assert_false(utf8_valid("\xe0\x80\xaf", 3));      /* overlong */
	assert_false(utf8_valid("\xed\xa0\x80", 3));      /* surrogate */
	assert_false(utf8_valid("\xf4\x90\x80\x80", 4));  /* > U+10FFFF */
	assert_false(utf8_valid("\xc3", 1));              /* cut short */
	assert_false(utf8_valid("\x80", 1));              /* lone continuation */
	assert_false(utf8_valid("\xff", 1));
}

static void test_module_names(void **state)
{
	(void)state;
	assert_true(name_is_module("gtk"));
	assert_true(name_is_module("gtk+"));
	assert_true(name_is_module("libxml2"));
	assert_true(name_is_module("at-spi2-core"));
	assert_true(name_is_module("gobject_introspection.x"));
	assert_false(name_is_module(""));
	assert_false(name_is_module("-gtk"));
	assert_false(name_is_module(".gtk"));
	assert_false(name_is_module("gtk/../x"));
	assert_false(name_is_module("gtk 4"));
	assert_false(name_is_module("gtk\n"));
	assert_false(name_is_module(NULL));
}

static void test_module_name_length(void **state)
{
	char name[NAME_MODULE_MAX + 2];

	(void)state;
	memset(name, 'a', sizeof(name));
	name[NAME_MODULE_MAX + 1] = '\0';
	assert_false(name_is_module(name));
	name[NAME_MODULE_MAX] = '\0';
	assert_true(name_is_module(name));
}

static void test_user_names(void **state)
{
	(void)state;
	assert_true(name_is_user("matthiasc"));
	assert_true(name_is_user("_apt"));
	assert_true(name_is_user("a.b-c_d"));
	assert_true(name_is_user("machine$"));
	assert_false(name_is_user("Root"));
	assert_false(name_is_user("-rf"));
	assert_false(name_is_user("1abc"));
	assert_false(name_is_user("a b"));
	assert_false(name_is_user("a$b"));
	assert_false(name_is_user(""));
	assert_false(name_is_user("abcdefghijabcdefghijabcdefghijabc"));
}

static void test_str_copy(void **state)
{
	char buf[4];

	(void)state;
	assert_true(str_copy(buf, sizeof(buf), "abc"));
	assert_string_equal(buf, "abc");
	assert_false(str_copy(buf, sizeof(buf), "abcd"));
	assert_string_equal(buf, "");
	assert_true(str_is_printable("hello-1.0.tar.xz"));
	assert_true(str_is_printable("G\xc3\xb6llnitz \xc2\xa0x"));
	assert_false(str_is_printable("a\x1b[31m"));
	assert_false(str_is_printable("a\x7f"));
	assert_false(str_is_printable("a\xc2\x85"));
	assert_false(str_is_printable("a\xff"));
	assert_true(str_is_digits("0123"));
	assert_false(str_is_digits("12a"));
	assert_false(str_is_digits(""));
}

static void test_control_c0_and_del(void **state)
{
	(void)state;
	assert_false(str_has_control(""));
	assert_false(str_has_control("gtk-4.14.0.tar.xz"));
	assert_true(str_has_control("a\x01"));
	assert_true(str_has_control("a\tb"));
	assert_true(str_has_control("a\n"));
	assert_true(str_has_control("\x1b[31m"));
	assert_true(str_has_control("\x1f"));
	assert_false(str_has_control(" ~"));
	assert_true(str_has_control("a\x7f"));
}

static void test_control_c1_in_utf8(void **state)
{
	(void)state;
	assert_true(str_has_control("a\xc2\x80"));       /* U+0080 */
	assert_true(str_has_control("a\xc2\x85" "b"));      /* NEL */
	assert_true(str_has_control("\xc2\x9b" "31m"));  /* CSI */
	assert_true(str_has_control("a\xc2\x9f"));       /* U+009F */
	assert_false(str_has_control("a\xc2\xa0"));      /* NBSP: printable */
	assert_false(str_has_control("G\xc3\xb6llnitz"));
	assert_false(str_has_control("\xe2\x80\x85"));   /* U+2005: its last bytes are not C1 */
	assert_false(str_has_control("\xf0\x9f\x98\x80"));
}

static void test_control_c1_as_stray_bytes(void **state)
{
	(void)state;
	assert_true(str_has_control("a\x80"));
	assert_true(str_has_control("a\x9b" "31m"));
	assert_true(str_has_control("\x9f"));
	assert_true(str_has_control("\xc3\x85\x85"));   /* U+00C5, then a stray 0x85 */
	assert_false(str_has_control("a\xa0"));         /* stray, invalid, but not a control */
	assert_false(str_has_control("a\xff"));
	/* invalid UTF-8 without controls: not a control, but not printable either */
	assert_false(str_is_printable("a\xa0"));
	assert_false(str_is_printable("a\x85"));
}

static void test_hex_lower(void **state)
{
	static const unsigned char bytes[] = { 0x00, 0x0f, 0xa5, 0xff };
	char out[2 * sizeof(bytes) + 2];

	(void)state;
	memset(out, 'x', sizeof(out));
	hex_lower(bytes, sizeof(bytes), out);
	assert_string_equal(out, "000fa5ff");
	assert_int_equal(out[sizeof(out) - 1], 'x');   /* nothing written past 2n + 1 */
	hex_lower(bytes, 0, out);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_accepts_valid),
		cmocka_unit_test(test_utf8_refuses_invalid),
		cmocka_unit_test(test_module_names),
		cmocka_unit_test(test_module_name_length),
		cmocka_unit_test(test_user_names),
		cmocka_unit_test(test_str_copy),
		cmocka_unit_test(test_control_c0_and_del),
		cmocka_unit_test(test_control_c1_in_utf8),
		cmocka_unit_test(test_control_c1_as_stray_bytes),
		cmocka_unit_test(test_hex_lower),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
