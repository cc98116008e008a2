/*
 * Lists in one audit value (common/audit_list.c): one name holding ','
 * never reads as two, every list reads back exactly, a list that does not
 * fit says so, and the reader refuses every spelling the writer never uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "audit.h"
#include "audit_list.h"

static void build(char *buf, size_t size, const char *const *items)
{
	buf[0] = '\0';
	for (; *items != NULL; items++)
		assert_true(audit_list_add(buf, size, *items));
}

/* Decode list and compare with items. */
static void reads_back(const char *list, const char *const *items)
{
	char item[AUDIT_VALUE_MAX + 1];
	const char *cursor = list;
	size_t i = 0;
	int rc;

	while ((rc = audit_list_next(&cursor, item, sizeof(item))) == 1) {
		assert_non_null(items[i]);
		assert_string_equal(item, items[i]);
		i++;
	}
	assert_int_equal(rc, 0);
	assert_null(items[i]);
}

static void test_one_name_is_not_two(void **state)
{
	const char *const one[] = { "a,b", NULL }, *const two[] = { "a", "b", NULL };
	char a[64], b[64];

	(void)state;
	build(a, sizeof(a), one);
	build(b, sizeof(b), two);
	assert_string_equal(a, "a%2cb");
	assert_string_equal(b, "a,b");
	reads_back(a, one);
	reads_back(b, two);
}

static void test_round_trips(void **state)
{
	const char *const odd[] = { "-", "100%", "%2c", "x,y,", "-rf", ".hidden", "G\xc3\xb6llnitz",
				    "two words", NULL };
	const char *const none[] = { NULL };
	char buf[256];

	(void)state;
	build(buf, sizeof(buf), odd);
	assert_string_equal(buf, "%2d,100%25,%252c,x%2cy%2c,-rf,.hidden,G\xc3\xb6llnitz,two words");
	reads_back(buf, odd);
	reads_back("-", none);
	reads_back("", none);
}

static void test_full_list_is_left_alone(void **state)
{
	char buf[16] = "";
	char big[4096];
	size_t added = 0;

	(void)state;
	assert_true(audit_list_add(buf, sizeof(buf), "abcdef"));
	assert_false(audit_list_add(buf, sizeof(buf), "ghijklmnop"));
	assert_string_equal(buf, "abcdef");
	assert_false(audit_list_add(buf, sizeof(buf), ""));
	/* Never more than one audit value, even with room in the buffer. */
	big[0] = '\0';
	while (audit_list_add(big, sizeof(big), "file-with-a-long-name.tar.xz"))
		added++;
	assert_true(strlen(big) <= AUDIT_VALUE_MAX);
	assert_true(added > 10);
}

static void test_foreign_spellings_refused(void **state)
{
	static const char *const bad[] = {
		"a,,b", ",a", "a,", "a%2Cb", "a%2", "a%41", "%", "-,a", "a,-", "a%2d",
	};
	char item[64];
	const char *cursor;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cursor = bad[i];
		while ((rc = audit_list_next(&cursor, item, sizeof(item))) == 1)
			continue;
		if (rc != -1)
			fail_msg("'%s' was read as a list", bad[i]);
	}
	cursor = "abcdefgh";
	assert_int_equal(audit_list_next(&cursor, item, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_name_is_not_two),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_full_list_is_left_alone),
		cmocka_unit_test(test_foreign_spellings_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
