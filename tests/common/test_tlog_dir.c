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

#include "tlog_dir.h"

#define MAX_LEAVES 70000

/* The reference: every leaf hash in memory (tlog_array_node computes subtrees from them). */
static struct tlog_hash leaves[MAX_LEAVES];

struct fixture {
	char path[64];
	struct tlog_dir d;
	uint64_t size;
	char text[MAX_LEAVES][24];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->path, sizeof(f->path), "/tmp/test-tlog-dir.XXXXXX");
	assert_non_null(mkdtemp(f->path));
	f->d.fd = open(f->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->d.fd >= 0);
	f->d.rule = (struct sf_rule){.uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 022};
	f->d.how = (struct sf_new){.mode = 0644, .uid = SF_ANY_UID, .gid = SF_ANY_GID};
	*state = f;
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->d.fd);
	nftw(f->path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* Appends n entries "entry <i>" and checks the root against the reference. */
static void append(struct fixture *f, size_t n)
{
	struct tlog_entry *batch = calloc(n, sizeof(*batch));
	struct tlog_hash root, want;
	struct pst_err e = {{0}};
	size_t i;

	assert_true(f->size + n <= MAX_LEAVES);
	for (i = 0; i < n; i++) {
		uint64_t k = f->size + i;

		snprintf(f->text[k], sizeof(f->text[k]), "entry %llu\n", (unsigned long long)k);
		batch[i].data = f->text[k];
		batch[i].len = strlen(f->text[k]);
		tlog_leaf_hash(batch[i].data, batch[i].len, &leaves[k]);
	}
	if (tlog_append(&f->d, f->size, batch, n, &root, &e) < 0)
		fail_msg("%s", e.msg);
	f->size += n;
	assert_int_equal(tlog_tree_hash(tlog_array_node, leaves, f->size, &want, NULL), 0);
	assert_true(tlog_hash_equal(&root, &want));
	free(batch);
}

static void check_proofs(struct fixture *f, uint64_t step)
{
	struct tlog_tiles t;
	struct tlog_proof p;
	struct tlog_hash root;
	uint64_t i;

	tlog_tiles_init(&t, tlog_dir_read, &f->d, f->size);
	assert_int_equal(tlog_tree_hash(tlog_tiles_node, &t, f->size, &root, NULL), 0);
	for (i = 0; i < f->size; i += step) {
		assert_int_equal(tlog_prove_inclusion(tlog_tiles_node, &t, i, f->size, &p, NULL), 0);
		assert_true(tlog_check_inclusion(i, f->size, &leaves[i], &p, &root));
	}
	tlog_tiles_free(&t);
}

static void check_entries(struct fixture *f)
{
	const unsigned char *entry;
	unsigned char *data;
	size_t len, off, elen;
	uint64_t b, k = 0;
	bool bad;

	for (b = 0; b * TLOG_TILE_WIDTH < f->size; b++) {
		unsigned w = tlog_tile_width(TLOG_TILE_ENTRIES, b, f->size);

		assert_int_equal(tlog_fetch_tile(tlog_dir_read, &f->d, TLOG_TILE_ENTRIES, b, w, &data,
						 &len, NULL), 0);
		for (off = 0; tlog_bundle_next(data, len, &off, &entry, &elen, &bad); k++) {
			assert_int_equal(elen, strlen(f->text[k]));
			assert_memory_equal(entry, f->text[k], elen);
		}
		assert_false(bad);
		free(data);
	}
	assert_int_equal(k, f->size);
}

/* Batches of every awkward size: single entries, tile edges, several tiles at once. */
static void test_batches(void **state)
{
	struct fixture *f = *state;
	static const size_t sizes[] = {1, 1, 3, 250, 1, 256, 255, 2, 512, 300, 1, 256};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		append(f, sizes[i]);
		check_proofs(f, 7);
	}
	check_entries(f);
}

/* A third level of tiles (more than 2^16 entries), reached in few batches. */
static void test_third_level(void **state)
{
	struct fixture *f = *state;
	struct stat st;

	append(f, 65530);
	append(f, 10);
	append(f, 300);
	check_proofs(f, 997);
	check_entries(f);
	assert_int_equal(fstatat(f->d.fd, "tile/2/000.p/1", &st, 0), 0);
	assert_int_equal(fstatat(f->d.fd, "tile/1/001.p/1", &st, 0), 0);
	assert_int_equal(fstatat(f->d.fd, "tile/0/257.p/48", &st, 0), 0);
}

/* A missing partial tile is read from the full tile's prefix; a damaged tile is reported. */
static void test_partial_fallback_and_damage(void **state)
{
	struct fixture *f = *state;
	struct tlog_tiles t;
	struct tlog_hash root;
	struct pst_err e = {{0}};
	int fd;

	append(f, 10);
	append(f, 300);
	/* Size 10's partial tiles are superseded by the full tile 0: drop them. */
	assert_int_equal(unlinkat(f->d.fd, "tile/0/000.p/10", 0), 0);
	assert_int_equal(unlinkat(f->d.fd, "tile/entries/000.p/10", 0), 0);
	tlog_tiles_init(&t, tlog_dir_read, &f->d, 10);
	assert_int_equal(tlog_tree_hash(tlog_tiles_node, &t, 10, &root, NULL), 0);
	tlog_tiles_free(&t);
	{
		struct tlog_hash want;

		assert_int_equal(tlog_tree_hash(tlog_array_node, leaves, 10, &want, NULL), 0);
		assert_true(tlog_hash_equal(&root, &want));
	}
	/* Truncate the full level-0 tile: no longer 256 hashes. */
	fd = openat(f->d.fd, "tile/0/000", O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "short", 5), 5);
	close(fd);
	tlog_tiles_init(&t, tlog_dir_read, &f->d, 10);
	assert_true(tlog_tree_hash(tlog_tiles_node, &t, 10, &root, &e) < 0);
	assert_non_null(strstr(e.msg, "tile/0/000"));
	tlog_tiles_free(&t);
}

/* A symlink anywhere in the log is refused, never followed. */
static void test_symlink_refused(void **state)
{
	struct fixture *f = *state;
	struct tlog_tiles t;
	struct tlog_hash root;

	append(f, 3);
	assert_int_equal(renameat(f->d.fd, "tile/0", f->d.fd, "tile/zero"), 0);
	assert_int_equal(symlinkat("zero", f->d.fd, "tile/0"), 0);
	tlog_tiles_init(&t, tlog_dir_read, &f->d, 3);
	assert_true(tlog_tree_hash(tlog_tiles_node, &t, 3, &root, NULL) < 0);
	tlog_tiles_free(&t);
}

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	struct tlog_entry big = {.data = NULL, .len = TLOG_ENTRY_MAX + 1};
	struct tlog_entry empty = {.data = "", .len = 0};
	struct tlog_hash root;
	struct stat st;

	assert_true(tlog_append(&f->d, 0, &big, 1, &root, NULL) < 0);
	assert_true(tlog_append(&f->d, 0, &empty, 1, &root, NULL) < 0);
	assert_true(tlog_append(&f->d, 0, &empty, 0, &root, NULL) < 0);
	/* Appending past a size whose tiles do not exist is refused, not invented. */
	append(f, 2);
	assert_true(tlog_append(&f->d, 5, &empty, 1, &root, NULL) < 0);
	assert_int_equal(fstatat(f->d.fd, "tile/entries/000.p/2", &st, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_third_level, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_fallback_and_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
