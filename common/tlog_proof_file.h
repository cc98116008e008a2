/*
 * c2sp.org/tlog-proof@v1: an offline proof that an entry is in a log.
 *   c2sp.org/tlog-proof@v1
 *   extra <base64 of the entry>        (postern always writes it)
 *   index <entry number>
 *   <base64 hash>                      (the inclusion proof, leaf side first)
 *   ...
 *   <empty line>
 *   <the signed checkpoint, verbatim>
 * The extra data is not authenticated by the format: a check hashes it as
 * the leaf the proof must place under the signed root, so only the entry
 * that was logged passes.
 */
#ifndef POSTERN_TLOG_PROOF_FILE_H
#define POSTERN_TLOG_PROOF_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "tlog.h"
#include "tlog_note.h"
#include "tlog_tile.h"

#define TLOG_PROOF_EXTRA_MAX 4096
#define TLOG_PROOF_FILE_MAX (64 + 6 + TLOG_B64_MAX + TLOG_PROOF_MAX * 45 + 1 + TLOG_NOTE_MAX)

struct tlog_proof_file {
	unsigned char extra[TLOG_PROOF_EXTRA_MAX];
	size_t extra_len;              /* 0: no extra line */
	uint64_t index;
	struct tlog_proof proof;
	const char *note;              /* the checkpoint note, inside the parsed text */
	size_t note_len;
};

/* f->index and f->proof: entry index in the log of size entries whose tiles read(arg) reads. */
int tlog_proof_file_prove(tlog_read_fn *read, void *arg, uint64_t size, uint64_t index,
			  struct tlog_proof_file *f, struct pst_err *e);

/* The file's text into out (cap bytes); its length, or -errno. */
int tlog_proof_file_format(const struct tlog_proof_file *f, char *out, size_t cap,
			   struct pst_err *e);

/* Parses text, strictly (only the spelling format writes); f->note points into text. */
int tlog_proof_file_parse(const char *text, size_t len, struct tlog_proof_file *f,
			  struct pst_err *e);

/*
 * Whether f proves its extra data logged: the note signed by k, its
 * checkpoint (into *cp) covering index, the extra's leaf under its root.
 */
int tlog_proof_file_check(const struct tlog_proof_file *f, const struct tlog_vkey *k,
			  struct tlog_checkpoint *cp, struct pst_err *e);

#endif
