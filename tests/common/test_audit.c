#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "audit.h"

static char captured[AUDIT_RECORD_MAX];
static int captured_prio;

static void capture_writer(int priority, const char *record, void *arg)
{
	(void)arg;
	captured_prio = priority;
	snprintf(captured, sizeof(captured), "%s", record);
}

/* Count key=value fields the way a reader of the log must: quotes and
 * backslash escapes honoured. Fails the test on any line break. */
static int count_fields(const char *rec)
{
	int fields = 0;
	int in_quotes = 0;
	const char *p;

	for (p = rec; *p != '\0'; p++) {
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
		if (in_quotes && *p == '\\') {
			p++;
			assert_true(*p != '\0');
			continue;
		}
		if (*p == '"')
			in_quotes = !in_quotes;
		if (!in_quotes && *p == '=')
			fields++;
	}
	assert_false(in_quotes);
	return fields;
}

/* The keys of a record, in order, as a reader splitting on unquoted
 * spaces would see them: "event,user,...". */
static void field_keys(const char *rec, char *keys, size_t len)
{
	int in_quotes = 0;
	int at_start = 1;
	const char *p;
	size_t n = 0;

	keys[0] = '\0';
	for (p = rec; *p != '\0'; p++) {
		if (in_quotes && *p == '\\') {
			p++;
			continue;
		}
		if (*p == '"')
			in_quotes = !in_quotes;
		if (!in_quotes && *p == ' ') {
			at_start = 1;
			continue;
		}
		if (at_start) {
			size_t k = strcspn(p, "=");
			if (n > 0)
				keys[n++] = ',';
			assert_true(n + k + 1 < len);
			memcpy(keys + n, p, k);
			n += k;
			keys[n] = '\0';
			at_start = 0;
		}
	}
}

static void escape(const char *in, char *out, size_t outlen)
{
	audit_escape(out, outlen, in, NULL);
}

static void test_bare_values_unquoted(void **state)
{
	char out[64];

	(void)state;
	escape("gtk-4.14.0.tar.xz", out, sizeof(out));
	assert_string_equal(out, "gtk-4.14.0.tar.xz");
	escape("127.0.0.1", out, sizeof(out));
	assert_string_equal(out, "127.0.0.1");
}

static void test_quoting(void **state)
{
	char out[64];

	(void)state;
	escape("two words", out, sizeof(out));
	assert_string_equal(out, "\"two words\"");
	escape("", out, sizeof(out));
	assert_string_equal(out, "\"\"");
	escape("say \"hi\" \\o/", out, sizeof(out));
	assert_string_equal(out, "\"say \\\"hi\\\" \\\\o/\"");
	escape(NULL, out, sizeof(out));
	assert_string_equal(out, "-");
}

static void test_control_characters_escaped(void **state)
{
	char out[128];

	(void)state;
	escape("a\nb", out, sizeof(out));
	assert_string_equal(out, "\"a\\x0ab\"");
	escape("a\rb", out, sizeof(out));
	assert_string_equal(out, "\"a\\x0db\"");
	escape("\x1b[31mred", out, sizeof(out));
	assert_string_equal(out, "\"\\x1b[31mred\"");
	escape("tab\there\x7f", out, sizeof(out));
	assert_string_equal(out, "\"tab\\x09here\\x7f\"");
	/* rsyslog's escape for a raw newline must never appear literally. */
	escape("ls #012", out, sizeof(out));
	assert_string_equal(out, "\"ls \\x23012\"");
}

static void test_invalid_utf8_escaped(void **state)
{
	char out[128];

	(void)state;
	escape("caf\xc3\xa9", out, sizeof(out));
	assert_string_equal(out, "\"caf\xc3\xa9\"");
	escape("bad\xff\xc3", out, sizeof(out));
	assert_string_equal(out, "\"bad\\xff\\xc3\"");
	escape("\xc0\x8a", out, sizeof(out));   /* overlong newline */
	assert_string_equal(out, "\"\\xc0\\x8a\"");
	/* NEL and LINE SEPARATOR are valid UTF-8 but break lines in viewers. */
	escape("x\xc2\x85y\xe2\x80\xa8z\xe2\x80\xaeq", out, sizeof(out));
	assert_string_equal(out, "\"x\\xc2\\x85y\\xe2\\x80\\xa8z\\xe2\\x80\\xaeq\"");
	/* CSI, as UTF-8 and as a stray byte: a terminal's escape introducer either way. */
	escape("a\xc2\x9b" "2Jb\x9b" "2J", out, sizeof(out));
	assert_string_equal(out, "\"a\\xc2\\x9b2Jb\\x9b2J\"");
}

/* Characters that print as nothing (Default_Ignorable_Code_Point and the
 * Hangul fillers) are escaped, so two values never look the same. */
static void test_invisible_characters_escaped(void **state)
{
	char out[128];

	(void)state;
	escape("gtk\xe2\x80\x8b-1.0", out, sizeof(out));           /* zero width space */
	assert_string_equal(out, "\"gtk\\xe2\\x80\\x8b-1.0\"");
	escape("a\xcd\x8f" "b\xe3\x85\xa4" "c", out, sizeof(out));     /* CGJ, Hangul filler */
	assert_string_equal(out, "\"a\\xcd\\x8f" "b\\xe3\\x85\\xa4" "c\"");
	escape("\xef\xbe\xa0\xe1\x85\x9f\xef\xb8\x8f", out, sizeof(out));
	assert_string_equal(out, "\"\\xef\\xbe\\xa0\\xe1\\x85\\x9f\\xef\\xb8\\x8f\"");
	/* Visible non-ASCII stays as it is. */
	escape("G\xc3\xb6llnitz \xea\xb0\x80", out, sizeof(out));
	assert_string_equal(out, "\"G\xc3\xb6llnitz \xea\xb0\x80\"");
}

static void test_injection_attempts_stay_one_field(void **state)
{
	static const char *const attempts[] = {
		"x\nJan  1 00:00:00 host postern-shell[1]: event=install_ok user=root",
		"x\r event=login_ok",
		"\" event=login_ok user=root",
		"\\\" event=login_ok",
		"x event=login_ok",
		"x\x00hidden",
		"\x1b]0;title\x07",
		"user=root",
		"a\xff\" event=forged",
	};
	char rec[AUDIT_RECORD_MAX];
	char keys[256];
	struct audit_session s;
	size_t i;

	(void)state;
	audit_session_init(&s, "bob", "192.0.2.1 4242 192.0.2.2 22");
	for (i = 0; i < sizeof(attempts) / sizeof(attempts[0]); i++) {
		const char *kv[] = { "file", attempts[i], "reason", "test", NULL };
		audit_format(rec, sizeof(rec), "command_deny", &s, kv);
		assert_int_equal(count_fields(rec), 7);
		assert_non_null(strstr(rec, "event=command_deny user=bob from=192.0.2.1 port=4242 sid="));
		assert_non_null(strstr(rec, " reason=test"));
		field_keys(rec, keys, sizeof(keys));
		assert_string_equal(keys, "event,user,from,port,sid,file,reason");
	}
}

static void test_session_from_connection(void **state)
{
	struct audit_session a, b, c;

	(void)state;
	audit_session_init(&a, "alice", "2001:db8::1 50000 2001:db8::2 22");
	audit_session_init(&b, "alice", "2001:db8::1 50000 2001:db8::2 22");
	audit_session_init(&c, "alice", "2001:db8::1 50001 2001:db8::2 22");
	assert_string_equal(a.from, "2001:db8::1");
	assert_string_equal(a.port, "50000");
	assert_int_equal(strlen(a.sid), 16);
	assert_string_equal(a.sid, b.sid);
	assert_string_not_equal(a.sid, c.sid);
}

/* A daemon's record: its own from/port/sid, then the client's claim, marked. */
static void test_claimed_session_marked(void **state)
{
	const char *const kv[] = { "module", "gtk", NULL };
	struct audit_session s;
	char rec[AUDIT_RECORD_MAX], want[256];

	(void)state;
	audit_session_init(&s, "alice", NULL);
	audit_format(rec, sizeof(rec), "install_ok", &s, kv);
	assert_null(strstr(rec, "client_"));
	strcpy(s.client_from, "192.0.2.7");
	strcpy(s.client_port, "50122");
	strcpy(s.client_session, "6f11660f5822bf26");
	audit_format(rec, sizeof(rec), "install_ok", &s, kv);
	snprintf(want, sizeof(want), "event=install_ok user=alice from=local port=- sid=%s "
		 "client_from=192.0.2.7 client_port=50122 client_session=6f11660f5822bf26 module=gtk",
		 s.sid);
	assert_string_equal(rec, want);
}

static void test_session_refuses_bad_connection(void **state)
{
	struct audit_session s;

	(void)state;
	audit_session_init(&s, NULL, "1.2.3.4 22 x\n 5");
	assert_string_equal(s.from, "local");
	assert_string_equal(s.port, "-");
	assert_string_equal(s.user, "-");
	audit_session_init(&s, "u", "1.2.3.4 99999999 1.2.3.4 22");
	assert_string_equal(s.from, "local");
	audit_session_init(&s, "u", "1.2.3.4 22 1.2.3.4 22 extra");
	assert_string_equal(s.from, "local");
}

/* The claimed user is logged whole up to AUDIT_USER_MAX, above as "(over-long)", never cut. */
static void test_session_user_whole_or_over_long(void **state)
{
	char name[AUDIT_USER_MAX + 2];
	struct audit_session s;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[AUDIT_USER_MAX] = '\0';
	audit_session_init(&s, name, NULL);
	assert_string_equal(s.user, name);
	name[AUDIT_USER_MAX] = 'a';
	name[AUDIT_USER_MAX + 1] = '\0';
	audit_session_init(&s, name, NULL);
	assert_string_equal(s.user, "(over-long)");
}

static void test_record_is_capped(void **state)
{
	char big[8192];
	char rec[AUDIT_RECORD_MAX];
	struct audit_session s;
	size_t len;

	(void)state;
	memset(big, '\n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	audit_session_init(&s, "bob", NULL);
	{
		const char *kv[] = { "a", big, "b", big, "c", big, "d", big, "e", big, NULL };
		len = audit_format(rec, sizeof(rec), "command_deny", &s, kv);
	}
	assert_true(len < AUDIT_RECORD_MAX);
	assert_int_equal(strlen(rec), len);
	assert_non_null(strstr(rec, " truncated=yes"));
	assert_non_null(strstr(rec, "...\""));
	count_fields(rec);
}

static void test_emit_routes_to_writer(void **state)
{
	struct audit_session s;

	(void)state;
	audit_session_init(&s, "carol", "10.0.0.1 1 10.0.0.2 22");
	audit_set_writer(capture_writer, NULL);
	audit_emit(LOG_NOTICE, "command_deny", &s, "command", "sh -c id", "reason",
		   "not an allowed command", NULL);
	audit_set_writer(NULL, NULL);
	assert_int_equal(captured_prio, LOG_NOTICE);
	assert_non_null(strstr(captured, "event=command_deny user=carol from=10.0.0.1 port=1 sid="));
	assert_non_null(strstr(captured, " command=\"sh -c id\" reason=\"not an allowed command\""));
}

static void test_invalid_key_is_replaced(void **state)
{
	char rec[AUDIT_RECORD_MAX];
	const char *kv[] = { "Bad Key=", "v", NULL };

	(void)state;
	audit_format(rec, sizeof(rec), "x", NULL, kv);
	assert_string_equal(rec, "event=x invalid_key=v");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_values_unquoted),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_control_characters_escaped),
		cmocka_unit_test(test_invalid_utf8_escaped),
		cmocka_unit_test(test_invisible_characters_escaped),
		cmocka_unit_test(test_injection_attempts_stay_one_field),
		cmocka_unit_test(test_session_from_connection),
		cmocka_unit_test(test_session_refuses_bad_connection),
		cmocka_unit_test(test_claimed_session_marked),
		cmocka_unit_test(test_session_user_whole_or_over_long),
		cmocka_unit_test(test_record_is_capped),
		cmocka_unit_test(test_emit_routes_to_writer),
		cmocka_unit_test(test_invalid_key_is_replaced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
