#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tlog_note.h"

/* The published vector of Go's golang.org/x/mod/sumdb/note (an implementation we did not write). */
#define GO_VKEY "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
#define GO_SKEY "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
#define GO_TEXT "If you think cryptography is the answer to your problem,\n" \
		"then you don't know what your problem is.\n"
#define GO_SIG "\xe2\x80\x94 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1F" \
	       "FYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"

static void test_go_vector(void **state)
{
	struct tlog_skey sk;
	struct tlog_vkey vk;
	char text[TLOG_SKEY_MAX], note[1024];
	int n;

	(void)state;
	assert_int_equal(tlog_vkey_parse(GO_VKEY, strlen(GO_VKEY), &vk, NULL), 0);
	tlog_vkey_format(&vk, text);
	assert_string_equal(text, GO_VKEY);
	assert_int_equal(tlog_skey_parse(GO_SKEY, strlen(GO_SKEY), &sk, NULL), 0);
	tlog_skey_format(&sk, text);
	assert_string_equal(text, GO_SKEY);
	assert_memory_equal(sk.vkey.pub, vk.pub, 32);

	/* Ed25519 is deterministic: our note is byte for byte Go's. */
	n = tlog_note_sign(&sk, GO_TEXT, strlen(GO_TEXT), note, sizeof(note), NULL);
	assert_int_equal(n, (int)strlen(GO_TEXT "\n" GO_SIG));
	assert_string_equal(note, GO_TEXT "\n" GO_SIG);
	assert_int_equal(tlog_note_open(&vk, note, (size_t)n, NULL), (int)strlen(GO_TEXT));
	tlog_skey_wipe(&sk);
}

static void expect_bad_vkey(const char *s)
{
	struct tlog_vkey vk;
	struct pst_err e = {{0}};

	assert_true(tlog_vkey_parse(s, strlen(s), &vk, &e) < 0);
	assert_true(strlen(e.msg) > 0);
}

static void test_bad_keys(void **state)
{
	struct tlog_skey sk;
	const char *bad_skey = "PRIVATE+KEY+PeterNeumann+c74f20a4+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

	(void)state;
	expect_bad_vkey("");
	expect_bad_vkey("PeterNeumann");
	expect_bad_vkey("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"); /* id */
	expect_bad_vkey("PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"); /* case */
	expect_bad_vkey("Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
	expect_bad_vkey("PeterNeumann+c74f20a3+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"); /* alg */
	expect_bad_vkey("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T");  /* short */
	expect_bad_vkey("PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==");
	expect_bad_vkey("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW\n");
	expect_bad_vkey(GO_SKEY);
	assert_true(tlog_skey_parse(bad_skey, strlen(bad_skey), &sk, NULL) < 0);
	assert_true(tlog_skey_parse(GO_VKEY, strlen(GO_VKEY), &sk, NULL) < 0);
}

static void test_open_refusals(void **state)
{
	struct tlog_vkey vk, other;
	struct tlog_skey sk, stranger;
	char note[1024], altered[2048];
	struct pst_err e = {{0}};
	int n;

	(void)state;
	assert_int_equal(tlog_vkey_parse(GO_VKEY, strlen(GO_VKEY), &vk, NULL), 0);
	assert_int_equal(tlog_skey_parse(GO_SKEY, strlen(GO_SKEY), &sk, NULL), 0);
	n = tlog_note_sign(&sk, GO_TEXT, strlen(GO_TEXT), note, sizeof(note), NULL);
	assert_true(n > 0);

	/* One byte of the text changed. */
	memcpy(altered, note, (size_t)n + 1);
	altered[3] ^= 0x20;
	assert_true(tlog_note_open(&vk, altered, (size_t)n, &e) < 0);
	assert_non_null(strstr(e.msg, "does not verify"));

	/* A signature by another key only: not ours. */
	assert_int_equal(tlog_keygen("PeterNeumann", &stranger, NULL), 0);
	n = tlog_note_sign(&stranger, GO_TEXT, strlen(GO_TEXT), altered, sizeof(altered), NULL);
	assert_true(tlog_note_open(&vk, altered, (size_t)n, &e) < 0);
	assert_non_null(strstr(e.msg, "not signed by"));
	/* ... but ours beside a stranger's still opens. */
	snprintf(altered, sizeof(altered), "%s%s", note, GO_SIG);
	memcpy(&other, &stranger.vkey, sizeof(other));
	assert_true(tlog_note_open(&other, altered, strlen(altered), NULL) < 0);
	assert_int_equal(tlog_note_open(&vk, altered, strlen(altered), NULL), (int)strlen(GO_TEXT));

	/* Malformed notes. */
	assert_true(tlog_note_open(&vk, GO_TEXT, strlen(GO_TEXT), NULL) < 0);
	snprintf(altered, sizeof(altered), "%s\n- PeterNeumann x08go/ZJku=\n", GO_TEXT);
	assert_true(tlog_note_open(&vk, altered, strlen(altered), NULL) < 0);
	snprintf(altered, sizeof(altered), "%s\n%s", "caf\xc3\xa9\n", GO_SIG);
	assert_true(tlog_note_open(&vk, altered, strlen(altered), NULL) < 0);
	assert_true(tlog_note_open(&vk, note, (size_t)n - 1, NULL) < 0);

	/* Bodies we refuse to sign. */
	assert_true(tlog_note_sign(&sk, "no newline", 10, note, sizeof(note), NULL) < 0);
	assert_true(tlog_note_sign(&sk, "a\n\nb\n", 5, note, sizeof(note), NULL) < 0);
	assert_true(tlog_note_sign(&sk, "tab\there\n", 9, note, sizeof(note), NULL) < 0);
	assert_true(tlog_note_sign(&sk, GO_TEXT, strlen(GO_TEXT), note, 40, NULL) < 0);
	tlog_skey_wipe(&sk);
	tlog_skey_wipe(&stranger);
}

static void test_keygen_round_trip(void **state)
{
	struct tlog_skey sk, back;
	struct tlog_vkey vk;
	char skey[TLOG_SKEY_MAX], vkey[TLOG_VKEY_MAX], note[512];
	int n;

	(void)state;
	assert_int_equal(tlog_keygen("releases.example.org/log", &sk, NULL), 0);
	tlog_skey_format(&sk, skey);
	tlog_vkey_format(&sk.vkey, vkey);
	assert_int_equal(tlog_skey_parse(skey, strlen(skey), &back, NULL), 0);
	assert_memory_equal(&back, &sk, sizeof(sk));
	assert_int_equal(tlog_vkey_parse(vkey, strlen(vkey), &vk, NULL), 0);
	n = tlog_note_sign(&back, "x\n", 2, note, sizeof(note), NULL);
	assert_int_equal(tlog_note_open(&vk, note, (size_t)n, NULL), 2);
	assert_true(tlog_keygen("bad name", &sk, NULL) < 0);
	assert_true(tlog_keygen("", &sk, NULL) < 0);
	assert_true(tlog_keygen("a+b", &sk, NULL) < 0);
}

static void test_checkpoint(void **state)
{
	struct tlog_checkpoint c = {.origin = "example.org/log", .size = 1234567};
	struct tlog_checkpoint back;
	char body[256];
	int n;
	size_t i;
	static const char *const bad[] = {
		"example.org/log\n01\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n",
		"example.org/log\n-1\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n",
		"example.org/log\n18446744073709551616\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n",
		"example.org/log\n8\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQy=\n",
		"example.org/log\n8\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyh=\n",
		"example org\n8\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n",
		"example.org/log\n8\n",
		"example.org/log\n8\nXcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=",
		"",
	};

	(void)state;
	memset(c.root.b, 0xab, sizeof(c.root.b));
	n = tlog_checkpoint_format(&c, body, sizeof(body), NULL);
	assert_true(n > 0);
	assert_int_equal(strncmp(body, "example.org/log\n1234567\nq6ur", 28), 0);
	assert_int_equal(tlog_checkpoint_parse(body, (size_t)n, &back, NULL), 0);
	assert_memory_equal(&back, &c, sizeof(c));

	/* Extension lines are allowed after the three the spec requires. */
	snprintf(body + n, sizeof(body) - (size_t)n, "timestamp 1700000000\n");
	assert_int_equal(tlog_checkpoint_parse(body, strlen(body), &back, NULL), 0);
	assert_memory_equal(&back, &c, sizeof(c));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_true(tlog_checkpoint_parse(bad[i], strlen(bad[i]), &back, NULL) < 0);
	snprintf(c.origin, sizeof(c.origin), "two words");
	assert_true(tlog_checkpoint_format(&c, body, sizeof(body), NULL) < 0);
}

static void test_base64_strict(void **state)
{
	unsigned char out[8];
	size_t n;

	(void)state;
	assert_true(tlog_b64_decode("YWJj", 4, out, sizeof(out), &n) && n == 3);
	assert_true(tlog_b64_decode("YWI=", 4, out, sizeof(out), &n) && n == 2);
	assert_true(tlog_b64_decode("YQ==", 4, out, sizeof(out), &n) && n == 1);
	assert_false(tlog_b64_decode("YR==", 4, out, sizeof(out), &n));   /* stray bits */
	assert_false(tlog_b64_decode(" YQ=", 4, out, sizeof(out), &n));
	assert_false(tlog_b64_decode("YQ", 2, out, sizeof(out), &n));
	assert_false(tlog_b64_decode("Y===", 4, out, sizeof(out), &n));
	assert_false(tlog_b64_decode("YWJjZGVmZ2hp", 12, out, sizeof(out), &n));  /* 9 > 8 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go_vector),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_open_refusals),
		cmocka_unit_test(test_keygen_round_trip),
		cmocka_unit_test(test_checkpoint),
		cmocka_unit_test(test_base64_strict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
