/*
 * Unit tests of the TOTP decision, the record format, the code-input check
 * and the key fingerprints: RFC 6238 Appendix B vectors through
 * totp_verify(), replay, lockout, recovery codes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "build_config.h"
#include "pam_cfg.h"
#include "ssh_key.h"
#include "totp_record.h"
#include "totp_verify.h"

static const struct totp_policy relaxed = { .window = 0, .max_failures = 1000, .lockout = 60 };

static void record_with_seed(struct totp_record *r, enum totp_alg alg, const char *seed)
{
	totp_record_wipe(r);
	r->alg = alg;
	r->digits = 8;
	r->period = 30;
	r->secret_len = strlen(seed);
	memcpy(r->secret, seed, r->secret_len);
}

static void rfc6238_vectors(void **state)
{
	static const char seed1[] = "12345678901234567890";
	static const char seed256[] = "12345678901234567890123456789012";
	static const char seed512[] =
		"1234567890123456789012345678901234567890123456789012345678901234";
	static const struct {
		int64_t t;
		const char *code;
		enum totp_alg alg;
	} v[] = {
		{ 59, "94287082", TOTP_SHA1 }, { 59, "46119246", TOTP_SHA256 },
		{ 59, "90693936", TOTP_SHA512 }, { 1111111109, "07081804", TOTP_SHA1 },
		{ 1111111109, "68084774", TOTP_SHA256 }, { 1111111109, "25091201", TOTP_SHA512 },
		{ 1111111111, "14050471", TOTP_SHA1 }, { 1111111111, "67062674", TOTP_SHA256 },
		{ 1111111111, "99943326", TOTP_SHA512 }, { 1234567890, "89005924", TOTP_SHA1 },
		{ 1234567890, "91819424", TOTP_SHA256 }, { 1234567890, "93441116", TOTP_SHA512 },
		{ 2000000000, "69279037", TOTP_SHA1 }, { 2000000000, "90698825", TOTP_SHA256 },
		{ 2000000000, "38618901", TOTP_SHA512 }, { 20000000000, "65353130", TOTP_SHA1 },
		{ 20000000000, "77737706", TOTP_SHA256 }, { 20000000000, "47863826", TOTP_SHA512 },
	};
	struct totp_record r;
	struct totp_outcome o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		record_with_seed(&r, v[i].alg, v[i].alg == TOTP_SHA1 ? seed1 :
				 v[i].alg == TOTP_SHA256 ? seed256 : seed512);
		assert_int_equal(totp_verify(&r, v[i].code, (time_t)v[i].t, &relaxed, &o),
				 TOTP_ACCEPT_CODE);
		assert_int_equal(o.step, (uint64_t)(v[i].t / 30));
		assert_int_equal(r.last_step, (uint64_t)(v[i].t / 30));
		/* The same code again is a replay, and counts as a failure. */
		assert_int_equal(totp_verify(&r, v[i].code, (time_t)v[i].t, &relaxed, &o),
				 TOTP_REJECT_REPLAY);
		assert_int_equal(r.failures, 1);
	}
}

static void window_and_replay(void **state)
{
	struct totp_record r;
	struct totp_outcome o;
	const struct totp_policy one = { .window = 1, .max_failures = 5, .lockout = 60 };

	(void)state;
	record_with_seed(&r, TOTP_SHA1, "12345678901234567890");
	/* 94287082 is step 1; at t=89 (step 2) it is one step old: in the window. */
	assert_int_equal(totp_verify(&r, "94287082", 89, &one, &o), TOTP_ACCEPT_CODE);
	assert_int_equal(o.step, 1);
	/* Two steps old: outside. */
	record_with_seed(&r, TOTP_SHA1, "12345678901234567890");
	assert_int_equal(totp_verify(&r, "94287082", 119, &one, &o), TOTP_REJECT_BAD_CODE);
	/* An older step than the last accepted is a replay even inside the window. */
	record_with_seed(&r, TOTP_SHA1, "12345678901234567890");
	r.last_step = 2;
	assert_int_equal(totp_verify(&r, "94287082", 59, &one, &o), TOTP_REJECT_REPLAY);
}

static void lockout_refuses_right_code(void **state)
{
	const struct totp_policy p = { .window = 0, .max_failures = 3, .lockout = 100 };
	struct totp_record r;
	struct totp_outcome o;

	(void)state;
	record_with_seed(&r, TOTP_SHA1, "12345678901234567890");
	assert_int_equal(totp_verify(&r, "00000000", 59, &p, &o), TOTP_REJECT_BAD_CODE);
	assert_false(o.lockout_started);
	assert_int_equal(totp_verify(&r, "1234", 59, &p, &o), TOTP_REJECT_BAD_INPUT);
	assert_int_equal(totp_verify(&r, "00000001", 59, &p, &o), TOTP_REJECT_BAD_CODE);
	assert_true(o.lockout_started);
	assert_int_equal(r.locked_until, 159);
	assert_int_equal(totp_verify(&r, "94287082", 60, &p, &o), TOTP_REJECT_LOCKED);
	assert_false(o.lockout_started);
	assert_int_equal(r.last_step, 0);
	/* Served: the right code works again and clears the count. */
	assert_int_equal(totp_verify(&r, "07081804", 1111111109, &p, &o), TOTP_ACCEPT_CODE);
	assert_int_equal(r.failures, 0);
	assert_int_equal(r.locked_until, 0);
}

/* A clock set back reopens nothing: the lockout holds, a used code stays used. */
static void clock_set_back(void **state)
{
	const struct totp_policy p = { .window = 1, .max_failures = 1, .lockout = 100 };
	struct totp_record r;
	struct totp_outcome o;

	(void)state;
	record_with_seed(&r, TOTP_SHA1, "12345678901234567890");
	assert_int_equal(totp_verify(&r, "94287082", 59, &p, &o), TOTP_ACCEPT_CODE);
	/* Set back within the code's own step: the used code is a replay. */
	assert_int_equal(totp_verify(&r, "94287082", 40, &p, &o), TOTP_REJECT_REPLAY);
	assert_true(o.lockout_started);
	assert_int_equal(r.locked_until, 140);
	/* Back before the lockout began: still locked, and not ended early. */
	assert_int_equal(totp_verify(&r, "94287082", 10, &p, &o), TOTP_REJECT_LOCKED);
	assert_int_equal(r.locked_until, 140);
	assert_int_equal(totp_verify(&r, "94287082", 139, &p, &o), TOTP_REJECT_LOCKED);
}

static void recovery_code_once(void **state)
{
	struct totp_record r;
	struct totp_outcome o;

	(void)state;
	record_with_seed(&r, TOTP_SHA1, "12345678901234567890");
	assert_int_equal(recovery_hash("abcd-efgh-ijkl-mnop", r.recovery[0], TOTP_HASH_MAX), 0);
	assert_int_equal(recovery_hash("qrst-uvwx-yz23-4567", r.recovery[1], TOTP_HASH_MAX), 0);
	assert_memory_equal(r.recovery[0], "$y$", 3);
	r.nrecovery = 2;
	assert_int_equal(totp_verify(&r, "ABCDEFGHIJKLMNOP", 59, &relaxed, &o),
			 TOTP_ACCEPT_RECOVERY);
	assert_int_equal(r.nrecovery, 1);
	assert_int_equal(totp_verify(&r, "abcd-efgh-ijkl-mnop", 59, &relaxed, &o),
			 TOTP_REJECT_BAD_CODE);
	assert_int_equal(totp_verify(&r, "qrst-uvwx-yz23-4567", 59, &relaxed, &o),
			 TOTP_ACCEPT_RECOVERY);
	assert_int_equal(r.nrecovery, 0);
}

/* Every yescrypt computation, counted through the linker's --wrap=crypt_rn. */
static unsigned crypt_calls;
char *__real_crypt_rn(const char *phrase, const char *setting, void *data, int size);
char *__wrap_crypt_rn(const char *phrase, const char *setting, void *data, int size);

char *__wrap_crypt_rn(const char *phrase, const char *setting, void *data, int size)
{
	crypt_calls++;
	return __real_crypt_rn(phrase, setting, data, size);
}

/*
 * A locked record is refused after the same work as an open one: refusing
 * at once made a lockout visible to the client as a much faster answer
 * (about 10 ms against 200 ms for a recovery-shaped input), which the
 * client must not be told. The work is done on a copy: nothing is used up.
 */
static void lockout_costs_the_same_work(void **state)
{
	const struct totp_policy p = { .window = 1, .max_failures = 1, .lockout = 100 };
	struct totp_record r;
	struct totp_outcome o;
	unsigned open_calls;

	(void)state;
	record_with_seed(&r, TOTP_SHA1, "12345678901234567890");
	assert_int_equal(recovery_hash("abcd-efgh-ijkl-mnop", r.recovery[0], TOTP_HASH_MAX), 0);
	assert_int_equal(recovery_hash("qrst-uvwx-yz23-4567", r.recovery[1], TOTP_HASH_MAX), 0);
	r.nrecovery = 2;
	crypt_calls = 0;
	assert_int_equal(totp_verify(&r, "aaaa-aaaa-aaaa-aaaa", 59, &p, &o), TOTP_REJECT_BAD_CODE);
	assert_true(o.lockout_started);
	open_calls = crypt_calls;
	assert_int_equal(open_calls, 2);
	crypt_calls = 0;
	assert_int_equal(totp_verify(&r, "abcd-efgh-ijkl-mnop", 60, &p, &o), TOTP_REJECT_LOCKED);
	assert_int_equal(crypt_calls, open_calls);
	assert_int_equal(r.nrecovery, 2);
	assert_int_equal(totp_verify(&r, "94287082", 60, &p, &o), TOTP_REJECT_LOCKED);
	assert_int_equal(r.last_step, 0);
	assert_int_equal(o.step, 0);
	assert_int_equal(r.failures, 3);
}

static void code_input(void **state)
{
	char norm[RECOVERY_CODE_LEN + 1];

	(void)state;
	assert_int_equal(code_input_check("123456", 6, norm, sizeof(norm)), CODE_TOTP);
	assert_int_equal(code_input_check("12345678", 6, norm, sizeof(norm)), CODE_INVALID);
	assert_int_equal(code_input_check("12345678", 8, norm, sizeof(norm)), CODE_TOTP);
	assert_int_equal(code_input_check("12345a", 6, norm, sizeof(norm)), CODE_INVALID);
	assert_int_equal(code_input_check("", 6, norm, sizeof(norm)), CODE_INVALID);
	assert_int_equal(code_input_check(" 123456", 6, norm, sizeof(norm)), CODE_INVALID);
	assert_int_equal(code_input_check("AbCd-2345-ijkl-mnop", 6, norm, sizeof(norm)),
			 CODE_RECOVERY);
	assert_string_equal(norm, "abcd-2345-ijkl-mnop");
	assert_int_equal(code_input_check("abcd2345ijklmnop", 6, norm, sizeof(norm)), CODE_RECOVERY);
	assert_string_equal(norm, "abcd-2345-ijkl-mnop");
	assert_int_equal(code_input_check("abcd-1345-ijkl-mnop", 6, norm, sizeof(norm)),
			 CODE_INVALID);
	assert_int_equal(code_input_check("abcd-2345-ijklmnop-", 6, norm, sizeof(norm)),
			 CODE_INVALID);
}

static const char good_record[] =
	"version 1\nalgorithm SHA256\ndigits 8\nperiod 30\n"
	"secret GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\ncreated 1700000000\nlast_step 5\n"
	"last_success 0\nfailures 2\nlocked_until 0\n"
	"key SHA256:+a5W+os5Q50s5Xf8hZ9lqvA59535ggFeZ3lx4O46I30\n";

static void record_roundtrip(void **state)
{
	struct totp_record r;
	char out[TOTP_RECORD_MAX];
	int n;

	(void)state;
	assert_int_equal(totp_record_parse(good_record, strlen(good_record), &r, NULL), 0);
	assert_int_equal(r.alg, TOTP_SHA256);
	assert_int_equal(r.digits, 8);
	assert_int_equal(r.secret_len, 20);
	assert_memory_equal(r.secret, "12345678901234567890", 20);
	assert_int_equal(r.last_step, 5);
	assert_int_equal(r.failures, 2);
	assert_int_equal(r.nkeys, 1);
	n = totp_record_format(&r, out, sizeof(out), NULL);
	assert_int_equal(n, (int)strlen(good_record));
	assert_memory_equal(out, good_record, (size_t)n);
}

static void expect_refused(const char *text)
{
	struct totp_record r;
	struct pst_err e;

	assert_true(totp_record_parse(text, strlen(text), &r, &e) < 0);
	assert_int_equal(r.secret_len, 0);
}

static void record_refusals(void **state)
{
	char buf[TOTP_RECORD_MAX + 100];

	(void)state;
	expect_refused("");
	expect_refused("algorithm SHA1\nversion 1\n");
	expect_refused("version 2\n");
	expect_refused("version 1\nversion 1\n");
	expect_refused("version 1\nalgorithm MD5\n");
	expect_refused("version 1\nshell /bin/sh\n");
	expect_refused("version 1\ndigits 7\n");
	expect_refused("version 1\ndigits 06\n");
	expect_refused("version 1\nfailures -1\n");
	expect_refused("version 1\nkey SHA256:short\n");
	expect_refused("version 1\nrecovery plaintext\n");
	expect_refused("version 1\nsecret A\n");
	expect_refused("version 1");
	expect_refused("version 1\n\n");
	/* Missing fields, trailing garbage, a NUL byte, an over-long record. */
	expect_refused("version 1\nalgorithm SHA1\n");
	memcpy(buf, good_record, sizeof(good_record));
	strcat(buf, "key x y\n");
	expect_refused(buf);
	{
		struct totp_record r;
		char nul[] = "version 1\nalgorithm SHA1\0\n";
		assert_true(totp_record_parse(nul, sizeof(nul) - 1, &r, NULL) < 0);
	}
	memset(buf, 'a', sizeof(buf));
	buf[sizeof(buf) - 1] = '\0';
	expect_refused(buf);
}

/* An RSA-8192 key's blob (1,047 bytes) is decoded on the heap, not on the stack. */
static void ssh_fingerprint_large_key(void **state)
{
	static const char info[] =
		"publickey ssh-rsa "
		"AAAAB3NzaC1yc2EAAAADAQABAAAEAQDp2cjUuzF8hpKR9CMJ+t7XxtblFhRCF7Htfq+DhuYnhwti+DpICqjTK3P/f21mcZTT"
		"OJJJa2L8eiRx/xVHlP8XKrelvs41JSwOlPv4s9ROHfZPGfS4RIQLKWAbNbbSA8FbBU/Ss0bsyagGDQrPlKUwe9CRPIMHG0DB"
		"SsCh8ermJQ4EXElkFTtY/oVY3H83atr4Zdy4I3QMFj+cj3O/ITsNSNCq6NamnBWsH20tosAEgpf2pYJG7MOq2hDj+Izayrht"
		"B5ahIqlcrJrxOPj06A/6irgwhBLWlKpbJF9Wsl9//yQwMRYuFzVu0LDrkpGBd26qIVF4nmefukF6N7+Wdtp1PO3M7qml+J0i"
		"/VKcBMwpTfdlpwo63pX7+dm4mTStSDQK6l+IbsBpuZYmug6FhKcScmtqNjHPBcZ72j5t+0Lc2T0XYsNMgcXWqZA39EdgVZb+"
		"B9atqDEZefgCoExOWdoTqFzfYaRJXWpw1mG01VlDTFQHQH1bhGDrxXUJrieA2K5zZp/I58emlZ+mIvj9qCFFMdbM9MDwOTKj"
		"Q1TELGtyfriACn0dp+0YGokUTe4D+FEnHlUR8plQ6JTQkA/8kNfuHl90FlmxXSDvYYNqBVMFRB722/QFc4W1xmcOSJK+GKKe"
		"EppqqywcUbdg8gy/TuP3TQs1/6TVOTnqYPdNzkZ/W5OLmTCy+dS5I1iDehBIa9mAOyTdgU1u/Mg67En6/qgNzjfJ9Of8e904"
		"A6DLDXZxG2lTEVqX+3ayMrIthAEfL/7fo+m3xknTW7xHyh5fOJr+UnTS6pp5X990vEwUeqIKBFPFnBvvgDTmTaxbLgg5NYvd"
		"vwFGPV+CalN8T3lias3bX3giMZbqIqAzkEPh9dvKsPBgOV1WvUdH3+0Zx8wetgOyUSe2MBqvoMMTkSxuOqCb1ZD66rhCAFOz"
		"4kg+BjspDX9WHADNYheWpLt+orMTY0Wt6q0EyVDcCvIO1ezZvpY8aZaeCyHADsWadWp4TEhIcFijFBdAXP8BuZH2QLywtW+P"
		"NI7Uwbnp2XDV28r03kByWC4MT5y6hdyFOWwB1CuJG938BuEjwUL1RMW7GCXgrYFKnmS/1rohjCFoD0mSUtH3BWLj5yCaX9wr"
		"xg/u0gIchdy9qAyLeWM0MsEom1+TiXThWq7tWqtv7hPKS2NNxKvF5tNbul8h3CimRCt87wpXwBJ0olzi+G77j/VYS9P/VRfN"
		"eQ5O6i+3wfymsRsYQZMNlDBU3XJQ6h6cQFFrj+iKRGLI6uZRk/XsFJhhLioi77PmwWcfvQimOIVtmjPKlB3YYEpth5w/MoAN"
		"tuux53fmOkL/VHQiMUj9d2EcQi314mSbWzjTjOmiHoefX5uZW7Ax";
	struct ssh_keys k;

	(void)state;
	assert_int_equal(ssh_auth_info_keys(info, &k, NULL), 0);
	assert_int_equal(k.n, 1);
	assert_string_equal(k.fpr[0], "SHA256:gohS+BXxgdNQ8VBRQRI4pPrC/wjFQiS+sSUSa5re0bg");
}

static void ssh_fingerprints(void **state)
{
	static const char info[] =
		"publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT\n"
		"keyboard-interactive\n"
		"publickey ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDpVSZ/pgxKVpLg5HCX0qHg2UEdimWbLq3E2ViK7cetOc3S5OeGB3FW64TTyifueWkVF58mH/7thpj5VqGutxVKfUXpzHSTTFuZEyFA81OEMQkScO5PSIDaMeZX39Lhx7d3TQvUWqOuat+o0Zao9kMUchFJiDNAd3RHRiIF5VlNE0+gYJAx4F54SDmBcOtoFZr5S4uWqQ8cran0SOIF+1KNaRLQGm5R8koq5ssy9YxCIe8aKmBtUwDDx6B2YQ/Oo950oWJgWmuASLk6/wGPo9AaRmo6MnRLZGskRW8cF4hKbRNRDxoft8k5Pd3OfkKuf14UudGnrNeAXjdmLhWTCdmX\n";
	struct ssh_keys k;

	(void)state;
	assert_int_equal(ssh_auth_info_keys(info, &k, NULL), 0);
	assert_int_equal(k.n, 2);
	assert_string_equal(k.fpr[0], "SHA256:+a5W+os5Q50s5Xf8hZ9lqvA59535ggFeZ3lx4O46I30");
	assert_string_equal(k.fpr[1], "SHA256:8qomvk5lkK9ZWEK3lkFDZjfG3DRj0rLb1BNj9ZeMcV0");
	assert_true(totp_fingerprint_valid(k.fpr[0]));
	/* A blob that is not of the named type, or not base64, is an error. */
	assert_true(ssh_auth_info_keys("publickey ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT",
				       &k, NULL) < 0);
	assert_true(ssh_auth_info_keys("publickey ssh-ed25519 !!!!", &k, NULL) < 0);
	/* Padding at the end is base64; anywhere else, or too much, is not
	 * (nettle's decoder would also skip white space: refused before it). */
	assert_int_equal(ssh_auth_info_keys("publickey ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBOglTu2l5xvphqIEGMdm/K/oNI03WMpFD3kAGOvZ7niotCWqH3+gmA19ZXT+Q4prLw+P0KdKg7w6P7dtxsI3XWM=",
					    &k, NULL), 0);
	assert_string_equal(k.fpr[0], "SHA256:EAruUXKR9KjDcDXu6yH9DgqAviYEIfJ9L/QoCJKyk5g");
	assert_true(ssh_auth_info_keys("publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtD=",
				       &k, NULL) < 0);
	assert_true(ssh_auth_info_keys("publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AA=AIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT",
				       &k, NULL) < 0);
	assert_true(ssh_auth_info_keys("publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93ST===",
				       &k, NULL) < 0);
	assert_true(ssh_auth_info_keys("publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93S\tTDT",
				       &k, NULL) < 0);
	/* sshd's own description after a key (certificates) is not part of it. */
	assert_int_equal(ssh_auth_info_keys("publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT ID x (serial 1) CA ssh-ed25519 SHA256:abc\n",
					    &k, NULL), 0);
	assert_string_equal(k.fpr[0], "SHA256:+a5W+os5Q50s5Xf8hZ9lqvA59535ggFeZ3lx4O46I30");
	assert_int_equal(ssh_auth_info_keys("password\n", &k, NULL), 0);
	assert_int_equal(k.n, 0);
	memset(&k, 0, sizeof(k));
	assert_int_equal(ssh_pubkey_text_keys("# mine\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT me@host\n",
					      &k, NULL), 0);
	assert_int_equal(k.n, 1);
	assert_true(ssh_pubkey_text_keys("command=\"x\" ssh-ed25519 AAAA\n", &k, NULL) < 0);
}

static int cfg_of(struct pam_cfg *cfg, const char *a, const char *b)
{
	const char *argv[2] = { a, b };

	return pam_cfg_init(cfg, b ? 2 : (a ? 1 : 0), argv);
}

static void module_options(void **state)
{
	struct pam_cfg cfg;

	(void)state;
	assert_int_equal(cfg_of(&cfg, NULL, NULL), -1);
	assert_string_equal(cfg.store, POSTERN_STATEDIR "/totp");
	assert_int_equal(cfg.window, 1);
	assert_int_equal(cfg.max_failures, 5);
	assert_int_equal(cfg.lockout, 900);
	assert_false(cfg.nullok || cfg.no_pubkey_check || cfg.debug);
	assert_int_equal(cfg_of(&cfg, "store=/srv/totp", "window=0"), -1);
	assert_string_equal(cfg.store, "/srv/totp");
	assert_int_equal(cfg.window, 0);
	assert_int_equal(cfg_of(&cfg, "max_failures=3", "lockout=60"), -1);
	assert_int_equal(cfg.max_failures, 3);
	assert_int_equal(cfg.lockout, 60);
	assert_int_equal(cfg_of(&cfg, "nullok", "no_pubkey_check"), -1);
	assert_true(cfg.nullok && cfg.no_pubkey_check);
	/* Unknown, misspelt or out of range: the index of the culprit. */
	assert_int_equal(cfg_of(&cfg, "debug", "nulok"), 1);
	assert_int_equal(cfg_of(&cfg, "nullok=1", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "store=relative/dir", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "store=", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "window=11", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "window=", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "window=1x", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "window=-1", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "max_failures=0", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "lockout=0", NULL), 0);
	assert_int_equal(cfg_of(&cfg, "lockout=99999999999999999999", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc6238_vectors),
		cmocka_unit_test(window_and_replay),
		cmocka_unit_test(lockout_refuses_right_code),
		cmocka_unit_test(clock_set_back),
		cmocka_unit_test(recovery_code_once),
		cmocka_unit_test(lockout_costs_the_same_work),
		cmocka_unit_test(code_input),
		cmocka_unit_test(record_roundtrip),
		cmocka_unit_test(record_refusals),
		cmocka_unit_test(ssh_fingerprints),
		cmocka_unit_test(ssh_fingerprint_large_key),
		cmocka_unit_test(module_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
