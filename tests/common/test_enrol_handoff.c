/* The enrolment handoff's text form (common/enrol_handoff.h): the two kinds
 * it holds, round trips, and what it refuses before a terminal sees it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "enrol_handoff.h"

#define URI "otpauth://totp/postern:alice?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=postern&algorithm=SHA1&digits=6&period=30"
#define KEY "key sk-ssh-ed25519@openssh.com SHA256:zMbIyU8TZ6/TcnIXitnhdDMMU9R194coRaH3AJxwoWk\n"

static int parse(const char *text, struct enrol_handoff *h)
{
	struct pst_err e = { "" };

	return enrol_handoff_parse(text, strlen(text), h, &e);
}

static void round_trip(const char *text)
{
	struct enrol_handoff h;
	struct pst_err e = { "" };
	char out[2048];

	assert_int_equal(parse(text, &h), 0);
	assert_int_equal(enrol_handoff_format(&h, out, sizeof(out), &e), (int)strlen(text));
	assert_string_equal(out, text);
}

static void secret_with_and_without_key(void **state)
{
	struct enrol_handoff h;

	(void)state;
	assert_int_equal(parse("uri " URI "\n", &h), 0);
	assert_string_equal(h.uri, URI);
	assert_string_equal(h.key_type, "");
	assert_int_equal(h.ncodes, 0);
	round_trip("uri " URI "\n");
	assert_int_equal(parse("uri " URI "\n" KEY, &h), 0);
	assert_string_equal(h.key_type, "sk-ssh-ed25519@openssh.com");
	round_trip("uri " URI "\n" KEY);
}

static void recovery_codes(void **state)
{
	const char *text = "recovery abcd-efgh-ijkl-mnop\nrecovery qrst-uvwx-yz23-4567\n";
	struct enrol_handoff h;

	(void)state;
	assert_int_equal(parse(text, &h), 0);
	assert_int_equal(h.ncodes, 2);
	assert_string_equal(h.codes[1], "qrst-uvwx-yz23-4567");
	assert_string_equal(h.uri, "");
	round_trip(text);
}

static void refused(void **state)
{
	static const char *const cases[] = {
		"",                                              /* neither kind */
		"uri " URI,                                      /* no newline */
		"uri http://example.org/\n",                     /* not otpauth */
		"uri otpauth://totp/a b\n",                      /* a space */
		"uri otpauth://totp/a\x1b[2J\n",                 /* a terminal escape */
		"uri " URI "\nuri " URI "\n",                    /* twice */
		KEY "uri " URI "\n",                             /* key before the uri */
		"uri " URI "\nkey sk-ssh-ed25519@openssh.com MD5:ab\n",
		"uri " URI "\nrecovery abcd-efgh-ijkl-mnop\n",   /* both kinds */
		"recovery abcd-efgh-ijkl-mnop\nuri " URI "\n",
		"recovery ABCD-EFGH-IJKL-MNOP\n",                /* not the alphabet */
		"recovery abcd-efgh-ijkl-mno\n",                 /* too short */
		"recovery abcdefghijklmnop\n",                   /* not dashed */
		"recovery abcd-efgh-ijkl-mnop\nrecovery abcd-efgh-ijkl-mnop\nrecovery abcd-efgh-ijkl-mnop\n"
		"recovery abcd-efgh-ijkl-mnop\nrecovery abcd-efgh-ijkl-mnop\nrecovery abcd-efgh-ijkl-mnop\n"
		"recovery abcd-efgh-ijkl-mnop\nrecovery abcd-efgh-ijkl-mnop\nrecovery abcd-efgh-ijkl-mnop\n"
		"recovery abcd-efgh-ijkl-mnop\nrecovery abcd-efgh-ijkl-mnop\n",   /* eleven */
		"secret JBSWY3DP\n",
		/* an empty key line does not make room for a second one (found by fuzzing) */
		"uri " URI "\nkey  x\n" KEY,
	};
	struct enrol_handoff h;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (parse(cases[i], &h) != -EINVAL)
			fail_msg("case %zu accepted", i);
		assert_string_equal(h.uri, "");
		assert_int_equal(h.ncodes, 0);
	}
}

static void nul_refused(void **state)
{
	static const char text[] = "uri otpauth://totp/a\0b\n";
	struct enrol_handoff h;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(enrol_handoff_parse(text, sizeof(text) - 1, &h, &e), -EINVAL);
}

static void format_refuses(void **state)
{
	struct enrol_handoff h;
	struct pst_err e = { "" };
	char out[2048];

	(void)state;
	enrol_handoff_wipe(&h);
	assert_int_equal(enrol_handoff_format(&h, out, sizeof(out), &e), -EINVAL);
	snprintf(h.uri, sizeof(h.uri), "%s", URI);
	assert_int_equal(enrol_handoff_format(&h, out, 20, &e), -ENOSPC);
	assert_int_equal(out[0], '\0');     /* the secret is not left half-written */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(secret_with_and_without_key),
		cmocka_unit_test(recovery_codes),
		cmocka_unit_test(refused),
		cmocka_unit_test(nul_refused),
		cmocka_unit_test(format_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
