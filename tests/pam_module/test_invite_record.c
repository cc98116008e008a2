/* The invite record's parser and formatter (pam_module/invite_record.h),
 * and one-time codes (recovery_codes.h): what they take, refuse and say. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "invite_record.h"
#include "recovery_codes.h"
#include "totp_verify.h"

#define HASH "$y$j9T$F5Jx5fExrKuJdljLajF5d/$Qq1P3IGDrQFpmRwdFKBJ9OD2oDtPsbJiI3lI/PDO6e4"
#define FPR "SHA256:zMbIyU8TZ6/TcnIXitnhdDMMU9R194coRaH3AJxwoWk"
#define ED "sk-ssh-ed25519@openssh.com"
#define BASE "version 1\ncreated 1796000000\nexpires 1796604800\nhash " HASH "\n"

static int parse(const char *text, struct invite_record *r, struct pst_err *e)
{
	return invite_record_parse(text, strlen(text), r, e);
}

static void round_trip(const char *text)
{
	struct invite_record r;
	struct pst_err e = { "" };
	char out[INVITE_RECORD_MAX];
	int n;

	assert_int_equal(parse(text, &r, &e), 0);
	n = invite_record_format(&r, out, sizeof(out), &e);
	assert_int_equal(n, (int)strlen(text));
	assert_memory_equal(out, text, strlen(text));
}

static void issued_and_admitted(void **state)
{
	const char *issued = BASE "failures 2\nadmitted 0\n";
	const char *admitted = BASE "failures 0\nadmitted 1796100000\nkey " ED " " FPR "\n";
	struct invite_record r;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(parse(issued, &r, &e), 0);
	assert_int_equal(r.created, 1796000000);
	assert_int_equal(r.expires, 1796604800);
	assert_string_equal(r.hash, HASH);
	assert_int_equal(r.failures, 2);
	assert_int_equal(r.admitted, 0);
	assert_string_equal(r.key_type, "");
	round_trip(issued);
	assert_int_equal(parse(admitted, &r, &e), 0);
	assert_int_equal(r.admitted, 1796100000);
	assert_string_equal(r.key_type, ED);
	assert_string_equal(r.key_fpr, FPR);
	round_trip(admitted);
}

static void refusals_say_what(void **state)
{
	static const struct { const char *text, *says; } cases[] = {
		{ "", "ends before its 'version' line" },
		{ "version 2\n", "unsupported record version" },
		{ "created 1\n", "must start with its version" },
		{ BASE "admitted 0\nfailures 0\n", "not the line expected here" },
		{ BASE "failures 0\n", "ends before its 'admitted' line" },
		{ BASE "failures 0\nadmitted 0", "no newline" },
		{ BASE "failures 01\nadmitted 0\n", "not a decimal number" },
		{ BASE "failures 99999999\nadmitted 0\n", "out of range" },
		{ BASE "failures -1\nadmitted 0\n", "not a decimal number" },
		{ "version 1\ncreated 1\nexpires 2\nhash abcd-efgh-ijkl-mnop\n", "not a yescrypt hash" },
		{ BASE "failures 0\nadmitted 0\nkey ssh-ed25519 " FPR "\n", "not a security key type" },
		{ BASE "failures 0\nadmitted 0\nkey " ED " MD5:ab\n", "not a SHA256 fingerprint" },
		{ BASE "failures 0\nadmitted 0\nkey " ED "\n", "expected TYPE FINGERPRINT" },
		{ BASE "failures 0\nadmitted 0\nkey " ED " " FPR "\nkey " ED " " FPR "\n",
		  "a line after the key line" },
		{ BASE "failures 0\nadmitted  0\n", "not a decimal number" },
		{ BASE "failures 0\nadmitted 0\nextra 1\n", "not the line expected here" },
	};
	struct invite_record r;
	struct pst_err e = { "" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e.msg[0] = '\0';
		assert_int_equal(parse(cases[i].text, &r, &e), -EINVAL);
		if (strstr(e.msg, cases[i].says) == NULL)
			fail_msg("case %zu: '%s' does not say '%s'", i, e.msg, cases[i].says);
		assert_int_equal(r.created, 0);
		assert_string_equal(r.hash, "");
	}
}

static void nul_byte_refused(void **state)
{
	static const char text[] = "version 1\0\n";
	struct invite_record r;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(invite_record_parse(text, sizeof(text) - 1, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "NUL"));
}

static void format_refuses_invalid(void **state)
{
	struct invite_record r;
	struct pst_err e = { "" };
	char out[INVITE_RECORD_MAX];

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(invite_record_format(&r, out, sizeof(out), &e), -EINVAL);  /* no hash */
	snprintf(r.hash, sizeof(r.hash), "%s", HASH);
	snprintf(r.key_type, sizeof(r.key_type), "ssh-rsa");
	snprintf(r.key_fpr, sizeof(r.key_fpr), "%s", FPR);
	assert_int_equal(invite_record_format(&r, out, sizeof(out), &e), -EINVAL);
	snprintf(r.key_type, sizeof(r.key_type), "%s", ED);
	assert_true(invite_record_format(&r, out, sizeof(out), &e) > 0);
	assert_int_equal(invite_record_format(&r, out, 40, &e), -ENOSPC);
}

/* A fresh code hashes, matches itself, and not another; its form is a recovery code's. */
static void one_time_codes(void **state)
{
	char code[ONE_TIME_CODE_SIZE], other[ONE_TIME_CODE_SIZE], norm[RECOVERY_CODE_LEN + 1];
	char hash[TOTP_HASH_MAX];
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(one_time_code_new(code, &e), 0);
	assert_int_equal(one_time_code_new(other, &e), 0);
	assert_int_equal(strlen(code), INVITE_CODE_LEN);
	assert_string_not_equal(code, other);
	assert_int_equal(code_input_check(code, 6, norm, sizeof(norm)), CODE_RECOVERY);
	assert_string_equal(norm, code);
	assert_int_equal(recovery_hash(code, hash, sizeof(hash)), 0);
	assert_true(totp_hash_valid(hash));
	assert_null(strstr(hash, code));
	assert_true(one_time_code_matches(code, hash));
	assert_false(one_time_code_matches(other, hash));
	assert_false(one_time_code_matches(code, "$y$j9T$bad"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(issued_and_admitted),
		cmocka_unit_test(refusals_say_what),
		cmocka_unit_test(nul_byte_refused),
		cmocka_unit_test(format_refuses_invalid),
		cmocka_unit_test(one_time_codes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
