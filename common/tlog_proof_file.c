/*
 * c2sp.org/tlog-proof@v1 files (tlog_proof_file.h).
 * MUST: accept one spelling only; never trust the extra data for more than
 * what its leaf hash under the signed root proves.
 */
#include "tlog_proof_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAGIC "c2sp.org/tlog-proof@v1\n"

int tlog_proof_file_format(const struct tlog_proof_file *f, char *out, size_t cap,
			   struct pst_err *e)
{
	char b64[TLOG_B64_MAX + 1];
	size_t n = 0, i;
	int w;

	if (f->extra_len > TLOG_PROOF_EXTRA_MAX || f->proof.n > TLOG_PROOF_MAX)
		return pst_fail(e, E2BIG, "an inclusion proof too large to write");
	w = snprintf(out, cap, MAGIC);
	n = w > 0 ? (size_t)w : cap;
	if (f->extra_len > 0 && n < cap) {
		tlog_b64_encode(f->extra, f->extra_len, b64);
		w = snprintf(out + n, cap - n, "extra %s\n", b64);
		n = w > 0 ? n + (size_t)w : cap;
	}
	if (n < cap) {
		w = snprintf(out + n, cap - n, "index %" PRIu64 "\n", f->index);
		n = w > 0 ? n + (size_t)w : cap;
	}
	for (i = 0; i < f->proof.n && n < cap; i++) {
		tlog_hash_b64(&f->proof.h[i], b64);
		w = snprintf(out + n, cap - n, "%s\n", b64);
		n = w > 0 ? n + (size_t)w : cap;
	}
	if (n >= cap || cap - n <= f->note_len + 1)
		return pst_fail(e, E2BIG, "an inclusion proof too large to write");
	out[n++] = '\n';
	memcpy(out + n, f->note, f->note_len);
	return (int)(n + f->note_len);
}

int tlog_proof_file_prove(tlog_read_fn *read, void *arg, uint64_t size, uint64_t index,
			  struct tlog_proof_file *f, struct pst_err *e)
{
	struct tlog_tiles tiles;
	int rc;

	tlog_tiles_init(&tiles, read, arg, size);
	rc = tlog_prove_inclusion(tlog_tiles_node, &tiles, index, size, &f->proof, e);
	tlog_tiles_free(&tiles);
	f->index = index;
	return rc;
}

/* The next line of text from *off, without its '\n' (which must be there). */
static bool next_line(const char *text, size_t len, size_t *off, const char **line, size_t *n)
{
	const char *nl = memchr(text + *off, '\n', len - *off);

	if (nl == NULL)
		return false;
	*line = text + *off;
	*n = (size_t)(nl - *line);
	*off += *n + 1;
	return true;
}

static bool parse_index(const char *s, size_t n, uint64_t *index)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 19 || (s[0] == '0' && n > 1))
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*index = v;
	return true;
}

static int malformed(struct pst_err *e, const char *what)
{
	return pst_fail(e, EBADMSG, "not a c2sp.org/tlog-proof@v1 file: %s", what);
}

int tlog_proof_file_parse(const char *text, size_t len, struct tlog_proof_file *f,
			  struct pst_err *e)
{
	size_t off = 0, n;
	const char *line;

	memset(f, 0, sizeof(*f));
	if (len > TLOG_PROOF_FILE_MAX || len < strlen(MAGIC) || memcmp(text, MAGIC, strlen(MAGIC)) != 0)
		return malformed(e, "its first line is not c2sp.org/tlog-proof@v1");
	off = strlen(MAGIC);
	if (!next_line(text, len, &off, &line, &n))
		return malformed(e, "it ends after its first line");
	if (n > 6 && memcmp(line, "extra ", 6) == 0) {
		if (!tlog_b64_decode(line + 6, n - 6, f->extra, sizeof(f->extra), &f->extra_len))
			return malformed(e, "its extra line is not base64 of at most 4096 bytes");
		if (!next_line(text, len, &off, &line, &n))
			return malformed(e, "it ends after its extra line");
	}
	if (n <= 6 || memcmp(line, "index ", 6) != 0 || !parse_index(line + 6, n - 6, &f->index))
		return malformed(e, "no \"index N\" line where one belongs");
	while (next_line(text, len, &off, &line, &n) && n > 0) {
		if (f->proof.n >= TLOG_PROOF_MAX || !tlog_hash_from_b64(line, n, &f->proof.h[f->proof.n]))
			return malformed(e, "a proof line is not one base64 SHA-256 hash");
		f->proof.n++;
	}
	if (n != 0 || off >= len)
		return malformed(e, "no empty line and checkpoint after the proof");
	f->note = text + off;
	f->note_len = len - off;
	return 0;
}

int tlog_proof_file_check(const struct tlog_proof_file *f, const struct tlog_vkey *k,
			  struct tlog_checkpoint *cp, struct pst_err *e)
{
	struct tlog_hash leaf;
	int body = tlog_note_open(k, f->note, f->note_len, e);
	int rc = body < 0 ? body : tlog_checkpoint_parse(f->note, (size_t)body, cp, e);

	if (rc < 0)
		return rc;
	if (strcmp(cp->origin, k->name) != 0)
		return pst_fail(e, EBADMSG, "the proof's checkpoint is of log %s, not of %s", cp->origin,
				k->name);
	if (f->extra_len == 0)
		return pst_fail(e, EBADMSG, "the proof carries no entry (extra line) to prove");
	if (f->index >= cp->size)
		return pst_fail(e, EBADMSG, "the proof names entry %" PRIu64 " of a log of %" PRIu64
				" entries", f->index, cp->size);
	tlog_leaf_hash(f->extra, f->extra_len, &leaf);
	if (!tlog_check_inclusion(f->index, cp->size, &leaf, &f->proof, &cp->root))
		return pst_fail(e, EBADMSG, "the inclusion proof of entry %" PRIu64 " does not lead "
				"to the signed root: the file or its entry was changed", f->index);
	return 0;
}
