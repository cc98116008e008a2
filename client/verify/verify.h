/*
 * postern-verify: a release log read back and checked by someone who does
 * not trust the server (docs/MIRRORS.md). A log_view is a log whose
 * checkpoint is signed by the pinned key and whose every entry, hash tile
 * and entry bundle agrees with that checkpoint; everything the tool says
 * is answered from a log_view.
 */
#ifndef POSTERN_VERIFY_H
#define POSTERN_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "log_entry.h"
#include "tlog_dir.h"
#include "tlog_note.h"

/* Exit codes, as the manual page lists them. */
#define VERIFY_OK 0
#define VERIFY_MISMATCH 1      /* a file or the mirror does not match the log */
#define VERIFY_ERROR 2         /* usage, unreadable or damaged log, bad signature */
#define VERIFY_FORK 3          /* the log is not an extension of the one remembered */

struct log_text {
	const unsigned char *data;
	size_t len;
};

struct log_view {
	tlog_read_fn *read;               /* the log's files: a directory or a URL */
	void *arg;
	struct tlog_vkey vkey;
	char note[TLOG_NOTE_MAX + 1];     /* the signed checkpoint as read */
	size_t note_len;
	struct tlog_checkpoint cp;
	unsigned char **bundles;          /* every entry bundle, read once */
	size_t nbundles;
	struct log_text *entries;         /* cp.size of them, pointing into bundles */
};

/* Reads and checks the log read through read(arg) against vkey; VERIFY_* code on failure. */
int log_view_open(struct log_view *v, tlog_read_fn *read, void *arg, const struct tlog_vkey *vkey,
		  struct pst_err *e);
void log_view_close(struct log_view *v);

/* Entry i parsed; false (message in e) when it is not an entry. */
bool log_view_entry(const struct log_view *v, uint64_t i, struct log_entry *le,
		    struct pst_err *e);

/* one(ctx, file) for each file; the worst VERIFY_* code. */
typedef int verify_one_fn(const void *ctx, const char *file);
int verify_each(verify_one_fn *one, const void *ctx, char **files, int n);

/* Each file by name and SHA-256: released under this log? Prints one line per file. */
int verify_files(const struct log_view *v, char **files, int n);

/* Each file by the <file>.tlog-proof beside it, with the key alone (no log). */
int verify_files_offline(const struct tlog_vkey *k, char **files, int n);

/*
 * Whether the proof file name (<release>.tlog-proof) in dir_fd proves, under
 * a checkpoint of this very log, the entry that published <release>.
 */
bool verify_proof_in_tree(const struct log_view *v, int dir_fd, const char *name,
			  struct pst_err *e);

/* The tree under tree_fd against the log: prints each difference. */
int verify_mirror(const struct log_view *v, int tree_fd);

/* Remembers the checkpoint in state_fd, refusing one that does not extend the last. */
int verify_state(const struct log_view *v, int state_fd);

/* A verifier key given as the key itself or as a file holding it. */
int verify_load_vkey(const char *arg, struct tlog_vkey *k, struct pst_err *e);

/* The SHA-256 of everything fd reads, as lowercase hex. */
int verify_sha256_fd(int fd, char out[65], struct pst_err *e);

#endif
