/* The security-key record's parser and formatter (pam_module/sk_record.h):
 * what it takes, what it refuses and says, and the round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sk_record.h"

#define FPR1 "SHA256:zMbIyU8TZ6/TcnIXitnhdDMMU9R194coRaH3AJxwoWk"
#define FPR2 "SHA256:+hZ52Hj0sZNCvKDixvw6bGPFc2q56gI5zLlEXyz3/3E"
#define ED "sk-ssh-ed25519@openssh.com"
#define EC "sk-ecdsa-sha2-nistp256@openssh.com"

static int parse(const char *text, struct sk_record *r, struct pst_err *e)
{
	return sk_record_parse(text, strlen(text), r, e);
}

static void two_keys_round_trip(void **state)
{
	const char *text = "version 1\nrequire security-key\n"
			   "key " ED " " FPR1 " 1765137600 1765141200 ptsk1@yubikey\n"
			   "key " EC " " FPR2 " 1765137600 0 -\n";
	struct sk_record r;
	struct pst_err e = { "" };
	char out[SK_RECORD_MAX];
	int n;

	(void)state;
	assert_int_equal(parse(text, &r, &e), 0);
	assert_true(r.require);
	assert_int_equal(r.nkeys, 2);
	assert_string_equal(r.keys[0].comment, "ptsk1@yubikey");
	assert_int_equal(r.keys[0].last_used, 1765141200);
	assert_string_equal(r.keys[1].comment, "");
	assert_ptr_equal(sk_record_find(&r, FPR2), &r.keys[1]);
	assert_null(sk_record_find(&r, "SHA256:x"));
	n = sk_record_format(&r, out, sizeof(out), &e);
	assert_int_equal(n, (int)strlen(text));
	assert_memory_equal(out, text, strlen(text));
}

static void refusals_say_what(void **state)
{
	static const struct { const char *text, *says; } cases[] = {
		{ "", "no version line" },
		{ "version 2\n", "unsupported record version" },
		{ "require security-key\n", "must start with its version" },
		{ "version 1\nkey ssh-ed25519 " FPR1 " 1 0 -\n", "not a security key type" },
		{ "version 1\nkey " ED " MD5:aa 1 0 -\n", "not a SHA256 fingerprint" },
		{ "version 1\nkey " ED " " FPR1 " 1 0 a\nkey " ED " " FPR1 " 1 0 b\n", "the same key twice" },
		{ "version 1\nkey " ED " " FPR1 " 01 0 a\n", "not a decimal number" },
		{ "version 1\nkey " ED " " FPR1 " 1 0 a b\n", "unknown line" },
		{ "version 1\nkey " ED "  " FPR1 " 1 0 a\n", "empty word" },
		{ "version 1\nkey " ED " " FPR1 " 1 0 a/b\n", "comment is not one word" },
		{ "version 1\nrequire security-key\nrequire security-key\n", "require given twice" },
		{ "version 1\nrequire code\n", "only security-key" },
		{ "version 1", "no newline" },
	};
	struct sk_record r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pst_err e = { "" };

		assert_int_equal(parse(cases[i].text, &r, &e), -22);
		if (strstr(e.msg, cases[i].says) == NULL)
			fail_msg("case %zu: '%s' does not say '%s'", i, e.msg, cases[i].says);
		assert_int_equal(r.nkeys, 0);
		assert_false(r.require);
	}
}

static void nul_and_too_many_refused(void **state)
{
	char text[SK_RECORD_MAX];
	struct sk_record r;
	struct pst_err e = { "" };
	size_t pos = 0, i;

	(void)state;
	assert_int_equal(sk_record_parse("version 1\n\0", 11, &r, &e), -22);
	assert_non_null(strstr(e.msg, "NUL"));
	pos += (size_t)snprintf(text, sizeof(text), "version 1\n");
	for (i = 0; i <= SK_KEYS_MAX; i++)
		pos += (size_t)snprintf(text + pos, sizeof(text) - pos,
					"key " ED " SHA256:%042zuA 1 0 -\n", i);
	assert_int_equal(sk_record_parse(text, pos, &r, &e), -22);
	assert_non_null(strstr(e.msg, "too many keys"));
}

static void format_refuses_invalid_keys(void **state)
{
	struct sk_record r;
	struct pst_err e = { "" };
	char out[SK_RECORD_MAX];

	(void)state;
	memset(&r, 0, sizeof(r));
	r.nkeys = 1;
	strcpy(r.keys[0].type, "ssh-ed25519");
	strcpy(r.keys[0].fpr, FPR1);
	assert_true(sk_record_format(&r, out, sizeof(out), &e) < 0);
	strcpy(r.keys[0].type, ED);
	strcpy(r.keys[0].comment, "two words");
	assert_true(sk_record_format(&r, out, sizeof(out), &e) < 0);
	r.keys[0].comment[0] = '\0';
	assert_true(sk_record_format(&r, out, 8, &e) < 0);
	assert_true(sk_record_format(&r, out, sizeof(out), &e) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_keys_round_trip),
		cmocka_unit_test(refusals_say_what),
		cmocka_unit_test(nul_and_too_many_refused),
		cmocka_unit_test(format_refuses_invalid_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
