/*
 * c2sp.org/tlog-proof@v1 files: a proof made from a real tree of leaves
 * round-trips and checks; each way of spelling it otherwise is refused;
 * a changed entry, index, proof line or key fails the check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlog_proof_file.h"

#define N 7
#define ENTRY "postern-entry 1\nop install\n"

struct fixture {
	struct tlog_skey k;
	struct tlog_proof_file f;
	char note[TLOG_NOTE_MAX], text[TLOG_PROOF_FILE_MAX];
	int len;
};

/* A log of N leaves, leaf 5 being ENTRY, its checkpoint signed, and the proof of leaf 5. */
static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));
	struct tlog_hash leaves[N];
	struct tlog_checkpoint cp = {.size = N};
	char body[512];
	int i, n;

	assert_non_null(x);
	for (i = 0; i < N; i++)
		tlog_leaf_hash(i == 5 ? ENTRY : "other", i == 5 ? strlen(ENTRY) : 5, &leaves[i]);
	assert_int_equal(tlog_keygen("proof.test/log", &x->k, NULL), 0);
	snprintf(cp.origin, sizeof(cp.origin), "proof.test/log");
	assert_int_equal(tlog_tree_hash(tlog_array_node, leaves, N, &cp.root, NULL), 0);
	n = tlog_checkpoint_format(&cp, body, sizeof(body), NULL);
	n = tlog_note_sign(&x->k, body, (size_t)n, x->note, sizeof(x->note), NULL);
	assert_true(n > 0);
	memcpy(x->f.extra, ENTRY, strlen(ENTRY));
	x->f.extra_len = strlen(ENTRY);
	x->f.index = 5;
	assert_int_equal(tlog_prove_inclusion(tlog_array_node, leaves, 5, N, &x->f.proof, NULL), 0);
	x->f.note = x->note;
	x->f.note_len = (size_t)n;
	x->len = tlog_proof_file_format(&x->f, x->text, sizeof(x->text), NULL);
	assert_true(x->len > 0);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void test_round_trip_and_check(void **state)
{
	struct fixture *x = *state;
	struct tlog_proof_file g;
	struct tlog_checkpoint cp;
	char again[TLOG_PROOF_FILE_MAX];

	assert_int_equal(strncmp(x->text, "c2sp.org/tlog-proof@v1\nextra ", 29), 0);
	assert_non_null(strstr(x->text, "\nindex 5\n"));
	assert_int_equal(tlog_proof_file_parse(x->text, (size_t)x->len, &g, NULL), 0);
	assert_int_equal(g.index, 5);
	assert_int_equal(g.proof.n, x->f.proof.n);
	assert_memory_equal(g.extra, ENTRY, strlen(ENTRY));
	assert_int_equal(tlog_proof_file_format(&g, again, sizeof(again), NULL), x->len);
	assert_memory_equal(again, x->text, (size_t)x->len);
	assert_int_equal(tlog_proof_file_check(&g, &x->k.vkey, &cp, NULL), 0);
	assert_int_equal(cp.size, N);
}

/* text with the first occurrence of from replaced by to must not parse. */
static void refused(const struct fixture *x, const char *from, const char *to)
{
	struct tlog_proof_file g;
	char changed[TLOG_PROOF_FILE_MAX];
	const char *at = strstr(x->text, from);
	size_t pre;

	assert_non_null(at);
	pre = (size_t)(at - x->text);
	memcpy(changed, x->text, pre);
	memcpy(changed + pre, to, strlen(to));
	memcpy(changed + pre + strlen(to), at + strlen(from), (size_t)x->len - pre - strlen(from));
	assert_int_equal(tlog_proof_file_parse(changed, (size_t)x->len - strlen(from) + strlen(to),
					       &g, NULL), -EBADMSG);
}

static void test_one_spelling(void **state)
{
	const struct fixture *x = *state;

	refused(x, "c2sp.org/tlog-proof@v1\n", "c2sp.org/tlog-proof@v2\n");
	refused(x, "\nindex 5\n", "\nindex 05\n");
	refused(x, "\nindex 5\n", "\nindex +5\n");
	refused(x, "\nindex 5\n", "\nindex 5 \n");
	refused(x, "\nindex 5\n", "\n");
	refused(x, "\nextra ", "\nextra  ");
	refused(x, "=\n\n", "=\r\n\n");
	refused(x, "=\n\n", "=\n");
}

/* f with one thing changed must fail the check. */
static void test_tampered(void **state)
{
	const struct fixture *x = *state;
	struct tlog_proof_file g;
	struct tlog_checkpoint cp;
	struct tlog_skey other;

	g = x->f;
	g.extra[0] ^= 1;
	assert_true(tlog_proof_file_check(&g, &x->k.vkey, &cp, NULL) < 0);
	g = x->f;
	g.index = 4;
	assert_true(tlog_proof_file_check(&g, &x->k.vkey, &cp, NULL) < 0);
	g = x->f;
	g.index = N;
	assert_true(tlog_proof_file_check(&g, &x->k.vkey, &cp, NULL) < 0);
	g = x->f;
	g.proof.h[1].b[0] ^= 1;
	assert_true(tlog_proof_file_check(&g, &x->k.vkey, &cp, NULL) < 0);
	g = x->f;
	g.extra_len = 0;
	assert_true(tlog_proof_file_check(&g, &x->k.vkey, &cp, NULL) < 0);
	assert_int_equal(tlog_keygen("proof.test/log", &other, NULL), 0);
	assert_true(tlog_proof_file_check(&x->f, &other.vkey, &cp, NULL) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_and_check),
		cmocka_unit_test(test_one_spelling),
		cmocka_unit_test(test_tampered),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
