/*
 * The transparency log's Merkle tree, as RFC 9162 section 2.1 defines it:
 * leaf = SHA-256(0x00 || entry), node = SHA-256(0x01 || left || right), and
 * the inclusion and consistency proofs over it (generated and checked).
 *
 * The tree itself is never held in memory: a tlog_node_fn answers the hash
 * of a complete subtree (2^level leaves starting at index << level), from
 * tiles (tlog_tile.h) or from a test's array. Everything else is computed
 * from those, so a request costs O(log n) node lookups, never O(n).
 */
#ifndef POSTERN_TLOG_H
#define POSTERN_TLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"

#define TLOG_HASH_LEN 32
#define TLOG_PROOF_MAX 64    /* hashes in any proof of a tree of < 2^63 leaves */

struct tlog_hash {
	unsigned char b[TLOG_HASH_LEN];
};

void tlog_leaf_hash(const void *entry, size_t len, struct tlog_hash *out);
void tlog_node_hash(const struct tlog_hash *left, const struct tlog_hash *right,
		    struct tlog_hash *out);
/* The root of the empty tree: SHA-256 of nothing. */
void tlog_empty_hash(struct tlog_hash *out);

/* The hash of the complete subtree of 2^level leaves from leaf index << level. */
typedef int tlog_node_fn(void *arg, unsigned level, uint64_t index, struct tlog_hash *out,
			 struct pst_err *e);

/*
 * A tlog_node_fn over an array of leaf hashes held in memory (arg), for
 * whoever has all the entries anyway: a verifier, a test's reference tree.
 * A node costs 2^level hashes.
 */
int tlog_array_node(void *leaves, unsigned level, uint64_t index, struct tlog_hash *out,
		    struct pst_err *e);

/* The root of the first n leaves. */
int tlog_tree_hash(tlog_node_fn *fn, void *arg, uint64_t n, struct tlog_hash *out,
		   struct pst_err *e);

struct tlog_proof {
	size_t n;
	struct tlog_hash h[TLOG_PROOF_MAX];
};

/* RFC 9162 2.1.3.1: the audit path of leaf index in the tree of n leaves. */
int tlog_prove_inclusion(tlog_node_fn *fn, void *arg, uint64_t index, uint64_t n,
			 struct tlog_proof *p, struct pst_err *e);
/* RFC 9162 2.1.4.1: the consistency proof from the tree of m leaves to that of n. */
int tlog_prove_consistency(tlog_node_fn *fn, void *arg, uint64_t m, uint64_t n,
			   struct tlog_proof *p, struct pst_err *e);

/* RFC 9162 2.1.3.2: whether p proves leaf at index in the tree of n leaves with root. */
bool tlog_check_inclusion(uint64_t index, uint64_t n, const struct tlog_hash *leaf,
			  const struct tlog_proof *p, const struct tlog_hash *root);
/*
 * RFC 9162 2.1.4.2: whether p proves that the tree of n leaves with root2
 * extends the one of m leaves with root1. m == n needs an empty proof and
 * equal roots; m == 0 extends into anything (an empty proof).
 */
bool tlog_check_consistency(uint64_t m, uint64_t n, const struct tlog_hash *root1,
			    const struct tlog_hash *root2, const struct tlog_proof *p);

bool tlog_hash_equal(const struct tlog_hash *a, const struct tlog_hash *b);

/* Standard base64 (with padding) of h into out (45 bytes), and back, strictly. */
void tlog_hash_b64(const struct tlog_hash *h, char out[45]);
bool tlog_hash_from_b64(const char *s, size_t len, struct tlog_hash *h);

/*
 * Standard base64, padded: encode into out (NUL-terminated) and decode
 * strictly (canonical only, at most TLOG_B64_MAX characters).
 */
#define TLOG_B64_MAX 8192
void tlog_b64_encode(const unsigned char *in, size_t len, char *out);
bool tlog_b64_decode(const char *s, size_t len, unsigned char *out, size_t outlen,
		     size_t *decoded);

#endif
