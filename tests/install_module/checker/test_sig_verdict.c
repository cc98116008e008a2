/*
 * sig_verdict_read(): sqv 1.1's answers (captured from real runs) become
 * the checker's pass or the right refusal; nothing but exit status 0 with
 * clean fingerprints on stdout passes, and no verifier text is quoted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "sig_verdict.h"

#define FPR "AC41FE3C978C0C53F0EF39BE03DF467CD8144DA0"
#define EXIT(n) ((n) << 8)

static struct sig_result r;

static void read_answer(enum check_signature_kind kind, int status, const char *out,
			const char *err)
{
	sig_verdict_read(kind, status, out, strlen(out), err, strlen(err), 0, &r);
}

static void refused_saying(const char *what)
{
	assert_int_equal(r.outcome, CHECK_REFUSED);
	assert_string_equal(r.signer, "");
	if (strstr(r.message, what) == NULL)
		fail_msg("'%s' does not say '%s'", r.message, what);
}

static void test_good_signature_passes_with_its_signer(void **state)
{
	(void)state;
	read_answer(CHECK_SIG_FILE, 0, FPR "\n", "");
	assert_int_equal(r.outcome, CHECK_PASS);
	assert_string_equal(r.signer, FPR);
	assert_string_equal(r.message, "");
	read_answer(CHECK_SIG_TAR, 0, FPR "\n0E25BF5C5F04EF41A5D9A75E7D48648D73458565\n", "");
	assert_int_equal(r.outcome, CHECK_PASS);
	assert_string_equal(r.signer, FPR);
}

static void test_success_without_clean_fingerprints_is_no_pass(void **state)
{
	const char *const bad[] = { "", FPR, "ac41fe3c978c0c53f0ef39be03df467cd8144da0\n",
				    FPR "0\n", "03DF467CD8144DA0\n", FPR "\nGOOD\n", FPR " \n" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		read_answer(CHECK_SIG_FILE, 0, bad[i], "");
		assert_int_equal(r.outcome, CHECK_INTERNAL);
		assert_string_equal(r.signer, "");
	}
	sig_verdict_read(CHECK_SIG_FILE, 0, FPR "\n", strlen(FPR) + 1, "", 0, 1, &r);
	assert_int_equal(r.outcome, CHECK_INTERNAL);
}

static void test_a_fingerprint_on_stdout_does_not_rescue_a_failure(void **state)
{
	(void)state;
	read_answer(CHECK_SIG_FILE, EXIT(1), FPR "\n", "");
	refused_saying("does not verify");
}

static void test_each_failure_has_its_message(void **state)
{
	(void)state;
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Missing key " FPR ", which is needed to verify "
		    "signature.\n0 of 1 signatures are valid (threshold is: 1).\n");
	refused_saying("made by the key " FPR ", which is not in your keyring");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Verifying signature:\n           Message has "
		    "been manipulated\n");
	refused_saying("does not match the uploaded file");
	read_answer(CHECK_SIG_TAR, EXIT(1), "", "Verifying signature:\n           Message has "
		    "been manipulated\n");
	refused_saying("does not match the uncompressed tar");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Verifying signature:\n           Policy rejected "
		    "non-revocation signature (Binary) requiring collision resistance\n  because: "
		    "SHA1 is not considered secure since 2013-02-01T00:00:00Z\n");
	refused_saying("SHA-1");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Signing key on 95D7FE2F1240C7BA043194FBEE54BC7D"
		    "A450E371 is bad:\n           Invalid key: \"certificate is revoked\"\n");
	refused_saying("95D7FE2F1240C7BA043194FBEE54BC7DA450E371 is revoked");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Signing key on 31F97C9ED99598CC0A0B22A5EBDC7CBB"
		    "4FF3326E is bad:\n           The primary key is not live\n  because: Expired "
		    "on 2020-01-02T12:00:00Z\n");
	refused_saying("had expired");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Verifying signature:\n           Not live until "
		    "2027-05-31T23:30:00Z\n");
	refused_saying("dated in the future");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Error: Reading \"/proc/self/fd/3\": EOF\n");
	refused_saying("not an OpenPGP detached signature");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Error: Malformed Message: Expected signature, "
		    "got Public-Key Packet\n");
	refused_saying("not an OpenPGP detached signature");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Error: Failed to parse keyring \"/proc/self/fd/"
		    "4\"\n");
	refused_saying("the server's admins must fix it");
}

static void test_verifier_text_is_never_quoted(void **state)
{
	(void)state;
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "\x1b[2J injected: everything is fine\n");
	refused_saying("does not verify");
	assert_null(strstr(r.message, "injected"));
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Missing key 03DF467CD8144DA0\x1b[2J\n");
	refused_saying("03DF467CD8144DA0, which");
	read_answer(CHECK_SIG_FILE, EXIT(1), "", "Missing key 03df467c; rm -rf /\n");
	refused_saying("the key (unnamed)");
}

static void test_crashes_and_setup_failures(void **state)
{
	(void)state;
	read_answer(CHECK_SIG_FILE, SIGXCPU, "", "");
	refused_saying("time limit");
	read_answer(CHECK_SIG_FILE, SIGSEGV, FPR "\n", "");
	refused_saying("crashed");
	read_answer(CHECK_SIG_FILE, EXIT(SIG_VERIFIER_EXEC_FAILED), "", "");
	assert_int_equal(r.outcome, CHECK_INTERNAL);
	assert_non_null(strstr(r.message, SIG_VERIFIER_PATH));
	read_answer(CHECK_SIG_FILE, EXIT(SIG_VERIFIER_SETUP_FAILED), "", "");
	assert_int_equal(r.outcome, CHECK_INTERNAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_signature_passes_with_its_signer),
		cmocka_unit_test(test_success_without_clean_fingerprints_is_no_pass),
		cmocka_unit_test(test_a_fingerprint_on_stdout_does_not_rescue_a_failure),
		cmocka_unit_test(test_each_failure_has_its_message),
		cmocka_unit_test(test_verifier_text_is_never_quoted),
		cmocka_unit_test(test_crashes_and_setup_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
