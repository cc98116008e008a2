/* The record parser accepts exactly what common/audit.c writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "audit.h"
#include "fields.h"

static int parse(struct audit_fields *f, const char *msg, struct pst_err *e)
{
	return fields_parse(f, msg, strlen(msg), e);
}

static void refused(const char *msg, const char *why)
{
	struct audit_fields f;
	struct pst_err e;

	assert_int_not_equal(parse(&f, msg, &e), 0);
	if (strstr(e.msg, why) == NULL)
		fail_msg("\"%s\": expected \"%s\" in \"%s\"", msg, why, e.msg);
	fields_free(&f);
}

static void test_bare_and_quoted(void **state)
{
	struct audit_fields f;
	struct pst_err e;

	(void)state;
	assert_int_equal(parse(&f, "event=x user=a key=\"two words\" q=\"say \\\"hi\\\"\" b=\"\\\\\" n=\"\\x0a\" e=\"\"", &e), 0);
	assert_int_equal(f.count, 7);
	assert_string_equal(fields_get(&f, "event"), "x");
	assert_string_equal(fields_get(&f, "key"), "two words");
	assert_string_equal(fields_get(&f, "q"), "say \"hi\"");
	assert_string_equal(fields_get(&f, "b"), "\\\\");
	assert_string_equal(fields_get(&f, "n"), "\\x0a");
	assert_string_equal(fields_get(&f, "e"), "");
	assert_null(fields_get(&f, "missing"));
	fields_free(&f);
}

/* Whatever the value, what audit_format writes parses back to the fields
 * passed, with control characters still escaped. */
static void test_round_trip_with_audit_format(void **state)
{
	static const char *const values[] = {
		"plain", "two words", "quote\"back\\slash", "line\nbreak\r",
		"\x1b[31mred", "bad\xff\xfeutf8", "ls\u2028fake", "\u202eevil",
		"caf\xc3\xa9", "", "-", "#012", "a=b c=d",
	};
	char rec[AUDIT_RECORD_MAX];
	struct audit_session s;
	struct audit_fields f;
	struct pst_err e;
	size_t i, j;

	(void)state;
	audit_session_init(&s, "alice", "192.0.2.7 50122 127.0.0.1 22");
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		const char *kv[] = { "file", values[i], "module", "gtk", NULL };
		audit_format(rec, sizeof(rec), "install_ok", &s, kv);
		if (parse(&f, rec, &e) != 0)
			fail_msg("%s: %s", rec, e.msg);
		assert_int_equal(f.count, 7);
		assert_string_equal(fields_get(&f, "user"), "alice");
		assert_string_equal(fields_get(&f, "sid"), s.sid);
		assert_string_equal(fields_get(&f, "module"), "gtk");
		for (j = 0; fields_get(&f, "file")[j] != '\0'; j++)
			assert_true((unsigned char)fields_get(&f, "file")[j] >= 0x20);
		fields_free(&f);
	}
}

static void test_long_values_are_cut_and_still_parse(void **state)
{
	char big[3000], rec[AUDIT_RECORD_MAX];
	struct audit_session s;
	struct audit_fields f;
	struct pst_err e;

	(void)state;
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	audit_session_init(&s, "alice", NULL);
	{
		const char *kv[] = { "a", big, "b", big, "c", big, "d", big, "e", big, NULL };
		audit_format(rec, sizeof(rec), "command_deny", &s, kv);
	}
	assert_int_equal(parse(&f, rec, &e), 0);
	assert_string_equal(f.key[f.count - 1], "truncated");
	fields_free(&f);
}

static void test_refusals(void **state)
{
	char rec[FIELDS_RECORD_MAX + 10];

	(void)state;
	refused("", "expected a key");
	refused("event=x  user=a", "expected a key");
	refused("event=x user=a ", "trailing space");
	refused("event=x user", "without '=value'");
	refused("Event=x", "expected a key");
	refused("event=x user=\"open", "unterminated");
	refused("event=x user=\"a\"b", "expected a space");
	refused("event=x user=a\tb", "control character");
	refused("event=x user=\"a\nb\"", "control character");
	refused("event=x user=\"a\x7f\"", "control character");
	refused("event=x user=\"\xff\"", "invalid UTF-8");
	refused("event=x user=\"\xe2\x80\xa8\"", "invisible");
	refused("event=x user=\"\xc2\x85\"", "invisible");
	refused("event=x user=\"\xc2\x9b\"", "invisible");
	/* What prints as nothing is escaped by the writer, so never raw in a record. */
	refused("event=x user=\"gtk\xe2\x80\x8b\"", "invisible");
	refused("event=x user=\"\xe3\x85\xa4\"", "invisible");
	refused("event=x user=\"\\n\"", "unknown escape");
	refused("event=x user=\"\\x0A\"", "unknown escape");
	refused("event=x user=\"\\x0\"", "unknown escape");
	refused("event=x user=a\"b", "not allowed in an unquoted");
	refused("event=x user=", "empty unquoted");
	refused("event=x user=a;b", "not allowed in an unquoted");
	memset(rec, 'a', sizeof(rec) - 1);
	rec[sizeof(rec) - 1] = '\0';
	memcpy(rec, "event=", 6);
	refused(rec, "longer than");
	memset(rec, 'a', 600);
	memcpy(rec, "event=", 6);
	rec[600] = '\0';
	refused(rec, "longer than the 512");
}

static void test_nul_byte_is_refused(void **state)
{
	struct audit_fields f;
	struct pst_err e;

	(void)state;
	assert_int_not_equal(fields_parse(&f, "event=a\0b", 9, &e), 0);
	assert_non_null(strstr(e.msg, "byte 8"));
	fields_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_and_quoted),
		cmocka_unit_test(test_round_trip_with_audit_format),
		cmocka_unit_test(test_long_values_are_cut_and_still_parse),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_nul_byte_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
