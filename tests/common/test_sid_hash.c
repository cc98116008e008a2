/*
 * Both definitions of sid_hash16() (common/sid_hash.h) give the first 16 hex
 * digits of SHA-256: built once with libcrypto's and once with nettle's, so
 * a record from postern-shell and one from pam_postern for the same
 * connection carry the same sid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sid_hash.h"

static void test_known_vectors(void **state)
{
	static const char seed[] =
		"postern-sid|0f4c3d2e-1a2b-4c5d-8e9f-0a1b2c3d4e5f|192.0.2.7 50122 192.0.2.1 22";
	char out[17];

	(void)state;
	sid_hash16("", 0, out);
	assert_string_equal(out, "e3b0c44298fc1c14");
	sid_hash16("abc", 3, out);
	assert_string_equal(out, "ba7816bf8f01cfea");
	/* A seed as audit_session_init builds it (docs/AUDIT.md); the digest
	 * from coreutils' sha256sum. */
	sid_hash16(seed, strlen(seed), out);
	assert_string_equal(out, "925583e2ba486dd4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_vectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
