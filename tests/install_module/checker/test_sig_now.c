/*
 * sig_now_read(): gpgv 2.2's status lines (captured from real runs: a good
 * key, one expired since, one revoked since) become a pass only when they
 * show one good signature by sqv's signer and nothing bad; injected or
 * extra lines can only refuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "sig_now.h"

#define FPR "ACD7F0BD1E88E58F1C024048FD20EDA0024978C5"
#define OTHER "F60BC03FE1036A641B3AE2B124D9D3F30494EE0A"
#define EXIT(n) ((n) << 8)
#define NEWSIG "[GNUPG:] NEWSIG e@x\n"
#define CONSIDERED "[GNUPG:] KEY_CONSIDERED " FPR " 0\n"
#define SIG_ID "[GNUPG:] SIG_ID Lv1TvurP3YqLeB2feCsqVRc/niE 2026-12-07 1796650804\n"
#define VALIDSIG_OF(primary) "[GNUPG:] VALIDSIG " FPR " 2026-12-07 1796650804 0 4 0 22 8 00 " primary "\n"
#define GOOD NEWSIG CONSIDERED SIG_ID CONSIDERED "[GNUPG:] GOODSIG FD20EDA0024978C5 Exp <e@x>\n" VALIDSIG_OF(FPR)

static struct sig_result r;

static void read_status(int status, const char *out)
{
	sig_now_read(status, out, strlen(out), 0, FPR, &r);
}

static void refused_saying(const char *what)
{
	assert_int_equal(r.outcome, CHECK_REFUSED);
	assert_string_equal(r.signer, "");
	if (strstr(r.message, what) == NULL)
		fail_msg("'%s' does not say '%s'", r.message, what);
}

static void test_good_key_passes(void **state)
{
	(void)state;
	read_status(0, GOOD);
	assert_int_equal(r.outcome, CHECK_PASS);
	assert_string_equal(r.signer, FPR);
	assert_string_equal(r.message, "");
}

static void test_expired_since_refused(void **state)
{
	(void)state;
	read_status(0, NEWSIG CONSIDERED "[GNUPG:] KEYEXPIRED 1794231611\n" SIG_ID CONSIDERED
		    "[GNUPG:] EXPKEYSIG FD20EDA0024978C5 Old <o@x>\n" VALIDSIG_OF(FPR));
	refused_saying("(" FPR ") has expired since");
}

static void test_revoked_since_refused(void **state)
{
	(void)state;
	read_status(0, NEWSIG CONSIDERED SIG_ID CONSIDERED
		    "[GNUPG:] REVKEYSIG FD20EDA0024978C5 Rev <r@x>\n" VALIDSIG_OF(FPR));
	refused_saying("(" FPR ") has been revoked since it signed");
}

static void test_another_signer_refused(void **state)
{
	(void)state;
	read_status(0, NEWSIG CONSIDERED SIG_ID CONSIDERED
		    "[GNUPG:] GOODSIG FD20EDA0024978C5 X\n" VALIDSIG_OF(OTHER));
	refused_saying("could not confirm");
}

static void test_missing_key_refused(void **state)
{
	(void)state;
	read_status(EXIT(2), NEWSIG "[GNUPG:] ERRSIG FD20EDA0024978C5 22 8 00 1796650804 9 " FPR "\n"
		    "[GNUPG:] NO_PUBKEY FD20EDA0024978C5\n");
	refused_saying("could not confirm");
}

/* A user ID that smuggled a second good block in could only add lines: never a pass. */
static void test_extra_lines_only_refuse(void **state)
{
	(void)state;
	read_status(0, GOOD GOOD);
	refused_saying("more than one signature");
	read_status(0, GOOD "[GNUPG:] GOODSIG FD20EDA0024978C5 X\n");
	refused_saying("could not confirm");
	read_status(0, NEWSIG "[GNUPG:] EXPKEYSIG FD20EDA0024978C5 X\n" "[GNUPG:] GOODSIG 1 X\n"
		    VALIDSIG_OF(FPR));
	refused_saying("has expired since");
	read_status(0, GOOD "[GNUPG:] EXPSIG FD20EDA0024978C5 X\n");
	refused_saying("the signature has expired");
}

static void test_no_pass_without_exit_zero_or_whole_output(void **state)
{
	(void)state;
	read_status(EXIT(1), GOOD);
	assert_int_not_equal(r.outcome, CHECK_PASS);
	sig_now_read(0, GOOD, strlen(GOOD), 1, FPR, &r);
	refused_saying("more about this signature");
	read_status(0, "");
	refused_saying("could not confirm");
	read_status(0, "GOODSIG\n" VALIDSIG_OF(FPR));
	assert_int_not_equal(r.outcome, CHECK_PASS);
}

static void test_gpgv_not_run(void **state)
{
	(void)state;
	read_status(EXIT(SIG_VERIFIER_EXEC_FAILED), "");
	assert_int_equal(r.outcome, CHECK_INTERNAL);
	read_status(EXIT(SIG_VERIFIER_SETUP_FAILED), GOOD);
	assert_int_equal(r.outcome, CHECK_INTERNAL);
	read_status(SIGSYS, GOOD);
	refused_saying("crashed");
	read_status(SIGALRM, "");
	refused_saying("time limit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_key_passes),
		cmocka_unit_test(test_expired_since_refused),
		cmocka_unit_test(test_revoked_since_refused),
		cmocka_unit_test(test_another_signer_refused),
		cmocka_unit_test(test_missing_key_refused),
		cmocka_unit_test(test_extra_lines_only_refuse),
		cmocka_unit_test(test_no_pass_without_exit_zero_or_whole_output),
		cmocka_unit_test(test_gpgv_not_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
