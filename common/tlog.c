/*
 * RFC 9162 hashing and proofs (tlog.h). Proof generation follows the RFC's
 * recursive definitions (PATH and SUBPROOF) literally; checking follows its
 * iterative algorithms literally, so the two are independent of each other
 * and each is checked against the other and against Go's sumdb/tlog.
 */
#include "tlog.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

/* out may alias a or b: the proof checkers hash a running value into itself. */
static void sha256_two(unsigned char prefix, const void *a, size_t alen, const void *b,
		       size_t blen, struct tlog_hash *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[TLOG_HASH_LEN];
	unsigned int len = 0;

	/* A digest that cannot run is a hash no verifier will accept, never a crash. */
	memset(md, 0, sizeof(md));
	if (ctx != NULL &&
	    (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1 ||
	     EVP_DigestUpdate(ctx, &prefix, 1) != 1 ||
	     (alen > 0 && EVP_DigestUpdate(ctx, a, alen) != 1) ||
	     (blen > 0 && EVP_DigestUpdate(ctx, b, blen) != 1) ||
	     EVP_DigestFinal_ex(ctx, md, &len) != 1 || len != TLOG_HASH_LEN))
		memset(md, 0, sizeof(md));
	EVP_MD_CTX_free(ctx);
	memcpy(out->b, md, sizeof(md));
}

void tlog_leaf_hash(const void *entry, size_t len, struct tlog_hash *out)
{
	sha256_two(0x00, entry, len, NULL, 0, out);
}

void tlog_node_hash(const struct tlog_hash *left, const struct tlog_hash *right,
		    struct tlog_hash *out)
{
	sha256_two(0x01, left->b, TLOG_HASH_LEN, right->b, TLOG_HASH_LEN, out);
}

void tlog_empty_hash(struct tlog_hash *out)
{
	unsigned int len = 0;

	if (EVP_Digest("", 0, out->b, &len, EVP_sha256(), NULL) != 1 || len != TLOG_HASH_LEN)
		memset(out->b, 0, sizeof(out->b));
}

bool tlog_hash_equal(const struct tlog_hash *a, const struct tlog_hash *b)
{
	return memcmp(a->b, b->b, TLOG_HASH_LEN) == 0;
}

int tlog_array_node(void *leaves, unsigned level, uint64_t index, struct tlog_hash *out,
		    struct pst_err *e)
{
	const struct tlog_hash *h = leaves;
	struct tlog_hash l, r;

	if (level == 0) {
		*out = h[index];
		return 0;
	}
	tlog_array_node(leaves, level - 1, 2 * index, &l, e);
	tlog_array_node(leaves, level - 1, 2 * index + 1, &r, e);
	tlog_node_hash(&l, &r, out);
	return 0;
}

/* The largest power of two below n (n >= 2). */
static uint64_t split_point(uint64_t n)
{
	uint64_t k = 1;

	while (k << 1 < n)
		k <<= 1;
	return k;
}

static bool power_of_two(uint64_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static unsigned log2_exact(uint64_t n)
{
	unsigned l = 0;

	while ((UINT64_C(1) << l) < n)
		l++;
	return l;
}

/* MTH(D[lo:hi]) for hi > lo, where lo is a multiple of the split sizes RFC 9162 makes. */
static int range_hash(tlog_node_fn *fn, void *arg, uint64_t lo, uint64_t hi,
		      struct tlog_hash *out, struct pst_err *e)
{
	struct tlog_hash l, r;
	uint64_t n = hi - lo;
	uint64_t k;
	int rc;

	if (power_of_two(n) && lo % n == 0)
		return fn(arg, log2_exact(n), lo / n, out, e);
	k = split_point(n);
	rc = range_hash(fn, arg, lo, lo + k, &l, e);
	if (rc == 0)
		rc = range_hash(fn, arg, lo + k, hi, &r, e);
	if (rc == 0)
		tlog_node_hash(&l, &r, out);
	return rc;
}

int tlog_tree_hash(tlog_node_fn *fn, void *arg, uint64_t n, struct tlog_hash *out,
		   struct pst_err *e)
{
	if (n == 0) {
		tlog_empty_hash(out);
		return 0;
	}
	return range_hash(fn, arg, 0, n, out, e);
}

static int proof_add(tlog_node_fn *fn, void *arg, uint64_t lo, uint64_t hi,
		     struct tlog_proof *p, struct pst_err *e)
{
	if (p->n >= TLOG_PROOF_MAX)
		return pst_fail(e, E2BIG, "a log proof would be longer than %d hashes", TLOG_PROOF_MAX);
	return range_hash(fn, arg, lo, hi, &p->h[p->n++], e);
}

/* PATH(m, D[lo:hi]): the deeper siblings first. */
static int path(tlog_node_fn *fn, void *arg, uint64_t m, uint64_t lo, uint64_t hi,
		struct tlog_proof *p, struct pst_err *e)
{
	uint64_t k;
	int rc;

	if (hi - lo <= 1)
		return 0;
	k = split_point(hi - lo);
	if (m < lo + k) {
		rc = path(fn, arg, m, lo, lo + k, p, e);
		return rc < 0 ? rc : proof_add(fn, arg, lo + k, hi, p, e);
	}
	rc = path(fn, arg, m, lo + k, hi, p, e);
	return rc < 0 ? rc : proof_add(fn, arg, lo, lo + k, p, e);
}

int tlog_prove_inclusion(tlog_node_fn *fn, void *arg, uint64_t index, uint64_t n,
			 struct tlog_proof *p, struct pst_err *e)
{
	p->n = 0;
	if (index >= n)
		return pst_fail(e, EINVAL, "entry %llu is not in a log of %llu entries",
				(unsigned long long)index, (unsigned long long)n);
	return path(fn, arg, index, 0, n, p, e);
}

/* SUBPROOF(m, D[lo:hi], b). */
static int subproof(tlog_node_fn *fn, void *arg, uint64_t m, uint64_t lo, uint64_t hi, bool b,
		    struct tlog_proof *p, struct pst_err *e)
{
	uint64_t k;
	int rc;

	if (m == hi - lo)
		return b ? 0 : proof_add(fn, arg, lo, hi, p, e);
	k = split_point(hi - lo);
	if (m <= k) {
		rc = subproof(fn, arg, m, lo, lo + k, b, p, e);
		return rc < 0 ? rc : proof_add(fn, arg, lo + k, hi, p, e);
	}
	rc = subproof(fn, arg, m - k, lo + k, hi, false, p, e);
	return rc < 0 ? rc : proof_add(fn, arg, lo, lo + k, p, e);
}

int tlog_prove_consistency(tlog_node_fn *fn, void *arg, uint64_t m, uint64_t n,
			   struct tlog_proof *p, struct pst_err *e)
{
	p->n = 0;
	if (m > n)
		return pst_fail(e, EINVAL, "a log of %llu entries cannot extend one of %llu",
				(unsigned long long)n, (unsigned long long)m);
	if (m == 0 || m == n)
		return 0;
	return subproof(fn, arg, m, 0, n, true, p, e);
}

bool tlog_check_inclusion(uint64_t index, uint64_t n, const struct tlog_hash *leaf,
			  const struct tlog_proof *p, const struct tlog_hash *root)
{
	uint64_t fn = index, sn;
	struct tlog_hash r = *leaf;
	size_t i;

	if (index >= n)
		return false;
	sn = n - 1;
	for (i = 0; i < p->n; i++) {
		if (sn == 0)
			return false;
		if ((fn & 1) || fn == sn) {
			tlog_node_hash(&p->h[i], &r, &r);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			tlog_node_hash(&r, &p->h[i], &r);
		}
		fn >>= 1;
		sn >>= 1;
	}
	return sn == 0 && tlog_hash_equal(&r, root);
}

bool tlog_check_consistency(uint64_t m, uint64_t n, const struct tlog_hash *root1,
			    const struct tlog_hash *root2, const struct tlog_proof *p)
{
	struct tlog_hash path[TLOG_PROOF_MAX + 1], fr, sr;
	uint64_t fn, sn;
	size_t len = 0, i;

	if (m > n)
		return false;
	if (m == n)
		return p->n == 0 && tlog_hash_equal(root1, root2);
	if (m == 0)
		return p->n == 0;
	if (p->n == 0 || p->n > TLOG_PROOF_MAX)
		return false;
	if (power_of_two(m))
		path[len++] = *root1;
	memcpy(&path[len], p->h, p->n * sizeof(p->h[0]));
	len += p->n;
	fn = m - 1;
	sn = n - 1;
	while (fn & 1) {
		fn >>= 1;
		sn >>= 1;
	}
	fr = sr = path[0];
	for (i = 1; i < len; i++) {
		if (sn == 0)
			return false;
		if ((fn & 1) || fn == sn) {
			tlog_node_hash(&path[i], &fr, &fr);
			tlog_node_hash(&path[i], &sr, &sr);
			while (!(fn & 1) && fn != 0) {
				fn >>= 1;
				sn >>= 1;
			}
		} else {
			tlog_node_hash(&sr, &path[i], &sr);
		}
		fn >>= 1;
		sn >>= 1;
	}
	return sn == 0 && tlog_hash_equal(&fr, root1) && tlog_hash_equal(&sr, root2);
}

void tlog_b64_encode(const unsigned char *in, size_t len, char *out)
{
	EVP_EncodeBlock((unsigned char *)out, in, (int)len);
}

bool tlog_b64_decode(const char *s, size_t len, unsigned char *out, size_t outlen,
		     size_t *decoded)
{
	unsigned char *buf;
	char *again;
	size_t pad = 0, n;
	bool ok;

	if (len == 0 || len % 4 != 0 || len > TLOG_B64_MAX)
		return false;
	while (pad < 2 && s[len - 1 - pad] == '=')
		pad++;
	n = len / 4 * 3 - pad;
	buf = malloc(len / 4 * 3);
	again = malloc(len + 1);
	ok = buf != NULL && again != NULL && n <= outlen &&
	     EVP_DecodeBlock(buf, (const unsigned char *)s, (int)len) == (int)(len / 4 * 3);
	/* EVP_DecodeBlock skips blanks and ignores stray bits; only our own spelling passes. */
	if (ok) {
		tlog_b64_encode(buf, n, again);
		ok = strlen(again) == len && memcmp(again, s, len) == 0;
	}
	if (ok) {
		memcpy(out, buf, n);
		*decoded = n;
	}
	free(buf);
	free(again);
	return ok;
}

void tlog_hash_b64(const struct tlog_hash *h, char out[45])
{
	EVP_EncodeBlock((unsigned char *)out, h->b, TLOG_HASH_LEN);
}

bool tlog_hash_from_b64(const char *s, size_t len, struct tlog_hash *h)
{
	size_t n = 0;

	return tlog_b64_decode(s, len, h->b, sizeof(h->b), &n) && n == TLOG_HASH_LEN;
}
