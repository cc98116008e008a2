#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logsign.h"
#include "tlog.h"
#include "tlog_note.h"

#define NAME "releases.test/log"
#define LEAVES 64

static struct tlog_hash leaves[LEAVES], forged[LEAVES];

struct fixture {
	char path[64];
	int fd;
	char vkey[TLOG_VKEY_MAX];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char entry[32];
	int i;

	for (i = 0; i < LEAVES; i++) {
		snprintf(entry, sizeof(entry), "entry %d\n", i);
		tlog_leaf_hash(entry, strlen(entry), &leaves[i]);
		snprintf(entry, sizeof(entry), "forged %d\n", i);
		tlog_leaf_hash(entry, strlen(entry), &forged[i]);
	}
	snprintf(f->path, sizeof(f->path), "/tmp/test-logsign.XXXXXX");
	assert_non_null(mkdtemp(f->path));
	f->fd = open(f->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(logsign_keygen(f->fd, NAME, f->vkey, sizeof(f->vkey), NULL), 0);
	*state = f;
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->fd);
	nftw(f->path, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* Asks to go from old to size entries of tree h (proof from h, root from h). */
static int ask(struct fixture *f, const struct tlog_hash *h, uint64_t old, uint64_t size,
	       char *answer)
{
	struct tlog_proof p;
	struct tlog_hash root;
	char req[LOGSIGN_REQUEST_MAX], b64[45];
	size_t i;
	int n;

	assert_int_equal(tlog_tree_hash(tlog_array_node, (void *)h, size, &root, NULL), 0);
	p.n = 0;
	if (old <= size)
		assert_int_equal(tlog_prove_consistency(tlog_array_node, (void *)h, old, size, &p, NULL), 0);
	tlog_hash_b64(&root, b64);
	n = snprintf(req, sizeof(req), "postern-logsign 1\nold %llu\nnew %llu %s\n",
		     (unsigned long long)old, (unsigned long long)size, b64);
	for (i = 0; i < p.n; i++) {
		tlog_hash_b64(&p.h[i], b64);
		n += snprintf(req + n, sizeof(req) - (size_t)n, "proof %s\n", b64);
	}
	return logsign_answer(f->fd, req, (size_t)n, answer, LOGSIGN_ANSWER_MAX);
}

/* An "ok" answer: a note of size entries, signed by the key the signer names. */
static void assert_signed(struct fixture *f, const char *answer, uint64_t size)
{
	struct tlog_vkey k;
	struct tlog_checkpoint cp;
	const char *nl = strchr(answer, '\n');
	int body;

	assert_int_equal(strncmp(answer, "ok ", 3), 0);
	assert_non_null(nl);
	assert_int_equal((size_t)(nl - answer - 3), strlen(f->vkey));
	assert_memory_equal(answer + 3, f->vkey, strlen(f->vkey));
	assert_int_equal(tlog_vkey_parse(f->vkey, strlen(f->vkey), &k, NULL), 0);
	body = tlog_note_open(&k, nl + 1, strlen(nl + 1), NULL);
	assert_true(body > 0);
	assert_int_equal(tlog_checkpoint_parse(nl + 1, (size_t)body, &cp, NULL), 0);
	assert_string_equal(cp.origin, NAME);
	assert_int_equal(cp.size, size);
}

static void assert_refused(const char *answer, const char *why)
{
	if (strncmp(answer, "refused ", 8) != 0 || strstr(answer, why) == NULL)
		fail_msg("not refused for '%s': %s", why, answer);
}

static void test_extensions_signed(void **state)
{
	struct fixture *f = *state;
	char a[LOGSIGN_ANSWER_MAX];

	assert_true(ask(f, leaves, 0, 1, a) > 0);
	assert_signed(f, a, 1);
	assert_true(ask(f, leaves, 1, 7, a) > 0);
	assert_signed(f, a, 7);
	assert_true(ask(f, leaves, 7, 7, a) > 0);    /* the same tree again */
	assert_signed(f, a, 7);
	assert_true(ask(f, leaves, 7, 64, a) > 0);
	assert_signed(f, a, 64);
}

static void test_rewrites_refused(void **state)
{
	struct fixture *f = *state;
	char a[LOGSIGN_ANSWER_MAX];

	ask(f, leaves, 0, 10, a);
	assert_signed(f, a, 10);
	/* Another history of the same size, then a longer one: neither extends the signed. */
	ask(f, forged, 10, 10, a);
	assert_refused(a, "consistency proof fails");
	ask(f, forged, 10, 20, a);
	assert_refused(a, "rewrites history");
	/* The daemon claims another starting point than the signer's. */
	ask(f, leaves, 9, 20, a);
	assert_refused(a, "the log and the signer disagree");
	ask(f, leaves, 0, 20, a);
	assert_refused(a, "last signed 10");
	/* Shrinking. */
	ask(f, leaves, 10, 5, a);
	assert_refused(a, "cannot extend");
	/* And the genuine extension still works after all that. */
	ask(f, leaves, 10, 20, a);
	assert_signed(f, a, 20);
}

static void test_bad_requests(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
		"",
		"postern-logsign 2\nold 0\nnew 1 XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n",
		"postern-logsign 1\nold 0\n",
		"postern-logsign 1\nold 00\nnew 1 XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n",
		"postern-logsign 1\nold 0\nnew 1 XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQy=\n",
		"postern-logsign 1\nold 0\nnew 1 XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=",
		"postern-logsign 1\nold 0\nnew 1 XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\nsign this\n",
	};
	char a[LOGSIGN_ANSWER_MAX];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(logsign_answer(f->fd, bad[i], strlen(bad[i]), a, sizeof(a)) > 0);
		assert_refused(a, "");
	}
	/* A first tree that comes with a proof is not an extension of nothing. */
	{
		const char *req = "postern-logsign 1\nold 0\nnew 1 XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n"
				  "proof XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=\n";

		logsign_answer(f->fd, req, strlen(req), a, sizeof(a));
		assert_refused(a, "consistency proof fails");
	}
}

static void test_files_guarded(void **state)
{
	struct fixture *f = *state;
	char a[LOGSIGN_ANSWER_MAX], vkey[TLOG_VKEY_MAX];
	struct stat st;
	int fd;

	/* A second keygen never replaces the key mirrors have pinned. */
	assert_true(logsign_keygen(f->fd, NAME, vkey, sizeof(vkey), NULL) < 0);
	assert_int_equal(fstatat(f->fd, "key", &st, 0), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(logsign_vkey(f->fd, vkey, sizeof(vkey), NULL), 0);
	assert_string_equal(vkey, f->vkey);

	ask(f, leaves, 0, 3, a);
	assert_signed(f, a, 3);
	/* A damaged record of what was signed refuses everything, never restarts from 0. */
	fd = openat(f->fd, "signed", O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "junk\n", 5), 5);
	close(fd);
	ask(f, leaves, 0, 3, a);
	assert_refused(a, "last signed checkpoint is damaged");
	ask(f, leaves, 3, 4, a);
	assert_refused(a, "damaged");
	/* A key others may read is not used. */
	assert_int_equal(fchmodat(f->fd, "key", 0640, 0), 0);
	ask(f, leaves, 3, 4, a);
	assert_refused(a, "signing key");
	assert_int_equal(unlinkat(f->fd, "key", 0), 0);
	ask(f, leaves, 3, 4, a);
	assert_refused(a, "--keygen");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_extensions_signed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rewrites_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files_guarded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
