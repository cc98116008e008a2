#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlog.h"
#include "tlog_tile.h"

/* RFC 6962's test leaves and the roots of their first 1..8 (the CT and transparency-dev vectors). */
static const struct {
	const char *hex;
} vector_leaf[8] = {
	{""}, {"00"}, {"10"}, {"2021"}, {"3031"}, {"40414243"}, {"5051525354555657"},
	{"606162636465666768696a6b6c6d6e6f"},
};
static const char *const vector_root[8] = {
	"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
	"fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
	"aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
	"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
	"4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
	"76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
	"ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
	"5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
};

static size_t unhex(const char *hex, unsigned char *out, size_t max)
{
	size_t n = strlen(hex) / 2, i;
	unsigned v;

	assert_true(n <= max);
	for (i = 0; i < n; i++) {
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (unsigned char)v;
	}
	return n;
}

static struct tlog_hash hash_hex(const char *hex)
{
	struct tlog_hash h;

	assert_int_equal(strlen(hex), 64);
	unhex(hex, h.b, sizeof(h.b));
	return h;
}

/* A test tree: leaf hashes in an array; complete subtrees computed from them. */
struct tree {
	uint64_t n;
	struct tlog_hash leaf[600];
};

static int tree_node(void *arg, unsigned level, uint64_t index, struct tlog_hash *out,
		     struct pst_err *e)
{
	struct tree *t = arg;
	struct tlog_hash l, r;

	if (((index + 1) << level) > t->n)
		return pst_fail(e, EINVAL, "node past the tree");
	if (level == 0) {
		*out = t->leaf[index];
		return 0;
	}
	tree_node(arg, level - 1, 2 * index, &l, e);
	tree_node(arg, level - 1, 2 * index + 1, &r, e);
	tlog_node_hash(&l, &r, out);
	return 0;
}

static void vector_tree(struct tree *t)
{
	unsigned char buf[16];
	size_t i, len;

	t->n = 8;
	for (i = 0; i < 8; i++) {
		len = unhex(vector_leaf[i].hex, buf, sizeof(buf));
		tlog_leaf_hash(buf, len, &t->leaf[i]);
	}
}

static void test_vector_roots(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct tlog_hash root, want;
	uint64_t n;

	(void)state;
	vector_tree(t);
	for (n = 1; n <= 8; n++) {
		assert_int_equal(tlog_tree_hash(tree_node, t, n, &root, NULL), 0);
		want = hash_hex(vector_root[n - 1]);
		assert_true(tlog_hash_equal(&root, &want));
	}
	assert_int_equal(tlog_tree_hash(tree_node, t, 0, &root, NULL), 0);
	want = hash_hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_true(tlog_hash_equal(&root, &want));
	free(t);
}

static void assert_proof(const struct tlog_proof *p, const char *const *hex, size_t n)
{
	struct tlog_hash want;
	size_t i;

	assert_int_equal(p->n, n);
	for (i = 0; i < n; i++) {
		want = hash_hex(hex[i]);
		assert_true(tlog_hash_equal(&p->h[i], &want));
	}
}

/* RFC 6962's audit paths and consistency proofs in the 8-leaf tree. */
static void test_vector_proofs(void **state)
{
	static const char *const inc0[] = {
		"96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
		"5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
		"6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
	};
	static const char *const inc5[] = {
		"bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
		"ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
		"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
	};
	static const char *const con6[] = {
		"0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
		"ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
		"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
	};
	struct tree *t = calloc(1, sizeof(*t));
	struct tlog_proof p;

	(void)state;
	vector_tree(t);
	assert_int_equal(tlog_prove_inclusion(tree_node, t, 0, 8, &p, NULL), 0);
	assert_proof(&p, inc0, 3);
	assert_int_equal(tlog_prove_inclusion(tree_node, t, 5, 8, &p, NULL), 0);
	assert_proof(&p, inc5, 3);
	assert_int_equal(tlog_prove_consistency(tree_node, t, 1, 8, &p, NULL), 0);
	assert_proof(&p, inc0, 3);
	assert_int_equal(tlog_prove_consistency(tree_node, t, 6, 8, &p, NULL), 0);
	assert_proof(&p, con6, 3);
	free(t);
}

static void grown_tree(struct tree *t, uint64_t n)
{
	uint64_t i;
	char entry[32];

	t->n = n;
	for (i = 0; i < n; i++) {
		snprintf(entry, sizeof(entry), "entry %llu\n", (unsigned long long)i);
		tlog_leaf_hash(entry, strlen(entry), &t->leaf[i]);
	}
}

/* Every proof the generator makes the checker accepts, and no altered one. */
static void test_proofs_all_sizes(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct tlog_hash r1, r2, bad;
	struct tlog_proof p;
	uint64_t m, n, i;

	(void)state;
	grown_tree(t, 40);
	for (n = 1; n <= 40; n++) {
		assert_int_equal(tlog_tree_hash(tree_node, t, n, &r2, NULL), 0);
		for (i = 0; i < n; i++) {
			assert_int_equal(tlog_prove_inclusion(tree_node, t, i, n, &p, NULL), 0);
			assert_true(tlog_check_inclusion(i, n, &t->leaf[i], &p, &r2));
			assert_false(tlog_check_inclusion(i, n, &t->leaf[(i + 1) % n], &p, &r2) && n > 1);
			assert_false(n > 1 && tlog_check_inclusion((i + 1) % n, n, &t->leaf[i], &p, &r2));
			if (p.n > 0) {
				p.h[p.n - 1].b[0] ^= 1;
				assert_false(tlog_check_inclusion(i, n, &t->leaf[i], &p, &r2));
			}
		}
		for (m = 0; m <= n; m++) {
			assert_int_equal(tlog_tree_hash(tree_node, t, m, &r1, NULL), 0);
			assert_int_equal(tlog_prove_consistency(tree_node, t, m, n, &p, NULL), 0);
			assert_true(tlog_check_consistency(m, n, &r1, &r2, &p));
			if (m == 0 || m == n)
				continue;
			bad = r1;
			bad.b[5] ^= 0x80;
			assert_false(tlog_check_consistency(m, n, &bad, &r2, &p));
			assert_false(tlog_check_consistency(m, n, &r1, &bad, &p));
			p.h[0].b[31] ^= 1;
			assert_false(tlog_check_consistency(m, n, &r1, &r2, &p));
		}
	}
	free(t);
}

static void test_check_refuses_nonsense(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	struct tlog_hash root;
	struct tlog_proof p = {0};

	(void)state;
	grown_tree(t, 5);
	tlog_tree_hash(tree_node, t, 5, &root, NULL);
	assert_false(tlog_check_inclusion(5, 5, &t->leaf[0], &p, &root));
	assert_false(tlog_check_consistency(3, 5, &root, &root, &p));   /* empty proof, m < n */
	assert_false(tlog_check_consistency(6, 5, &root, &root, &p));
	assert_int_not_equal(tlog_prove_inclusion(tree_node, t, 5, 5, &p, NULL), 0);
	assert_int_not_equal(tlog_prove_consistency(tree_node, t, 6, 5, &p, NULL), 0);
	free(t);
}

static void test_b64(void **state)
{
	struct tlog_hash h = hash_hex(vector_root[7]), back;
	char s[45];

	(void)state;
	tlog_hash_b64(&h, s);
	assert_string_equal(s, "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=");
	assert_true(tlog_hash_from_b64(s, 44, &back));
	assert_true(tlog_hash_equal(&h, &back));
	s[42] = s[42] == 'A' ? 'B' : 'A';   /* non-zero padding bits or another hash */
	assert_false(tlog_hash_from_b64(s, 44, &back) && tlog_hash_equal(&h, &back));
	assert_false(tlog_hash_from_b64(s, 43, &back));
	assert_false(tlog_hash_from_b64("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!=", 44, &back));
}

static void test_tile_paths(void **state)
{
	char p[TLOG_PATH_MAX];

	(void)state;
	assert_true(tlog_tile_path(0, 1234067, TLOG_TILE_WIDTH, p, sizeof(p)));
	assert_string_equal(p, "tile/0/x001/x234/067");
	assert_true(tlog_tile_path(1, 5, 7, p, sizeof(p)));
	assert_string_equal(p, "tile/1/005.p/7");
	assert_true(tlog_tile_path(TLOG_TILE_ENTRIES, 0, 255, p, sizeof(p)));
	assert_string_equal(p, "tile/entries/000.p/255");
	assert_true(tlog_tile_path(2, 1000, TLOG_TILE_WIDTH, p, sizeof(p)));
	assert_string_equal(p, "tile/2/x001/000");
	assert_false(tlog_tile_path(0, 0, 0, p, sizeof(p)));
	assert_false(tlog_tile_path(0, 0, 257, p, sizeof(p)));
	assert_false(tlog_tile_path(TLOG_LEVELS, 0, 1, p, sizeof(p)));
	assert_int_equal(tlog_tile_width(0, 0, 0), 0);
	assert_int_equal(tlog_tile_width(0, 0, 5), 5);
	assert_int_equal(tlog_tile_width(0, 1, 300), 44);
	assert_int_equal(tlog_tile_width(0, 0, 300), 256);
	assert_int_equal(tlog_tile_width(1, 0, 300), 1);
	assert_int_equal(tlog_tile_width(1, 0, 255), 0);
	assert_int_equal(tlog_tile_width(TLOG_TILE_ENTRIES, 1, 513), 256);
}

static void test_bundle(void **state)
{
	static const unsigned char good[] = {0, 2, 'h', 'i', 0, 1, 'x'};
	static const unsigned char cut[] = {0, 5, 'h', 'i'};
	static const unsigned char empty_entry[] = {0, 0};
	const unsigned char *entry;
	size_t off = 0, len;
	bool bad;

	(void)state;
	assert_true(tlog_bundle_next(good, sizeof(good), &off, &entry, &len, &bad));
	assert_int_equal(len, 2);
	assert_memory_equal(entry, "hi", 2);
	assert_true(tlog_bundle_next(good, sizeof(good), &off, &entry, &len, &bad));
	assert_int_equal(len, 1);
	assert_false(tlog_bundle_next(good, sizeof(good), &off, &entry, &len, &bad));
	assert_false(bad);
	off = 0;
	assert_false(tlog_bundle_next(cut, sizeof(cut), &off, &entry, &len, &bad));
	assert_true(bad);
	off = 0;
	assert_false(tlog_bundle_next(empty_entry, sizeof(empty_entry), &off, &entry, &len, &bad));
	assert_true(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vector_roots),
		cmocka_unit_test(test_vector_proofs),
		cmocka_unit_test(test_proofs_all_sizes),
		cmocka_unit_test(test_check_refuses_nonsense),
		cmocka_unit_test(test_b64),
		cmocka_unit_test(test_tile_paths),
		cmocka_unit_test(test_bundle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
