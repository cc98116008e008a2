/*
 * The daemon's side of the release log (RELEASES.md, "The release log"):
 * entries appended under <tree>/log with tlog_dir, each new checkpoint
 * signed by postern-logsign over its socket, checked, then published.
 *
 *   open log/ (made only for a log that has never had an entry) -> verify
 *   log/checkpoint with log/vkey -> its size must be what the caller's
 *   state says -> write the tiles -> prove consistency old -> new -> ask
 *   the signer -> check its note (our key, our size, our root) -> write
 *   log/vkey (the first time) and log/checkpoint.
 *
 * MUST: never restart a log that vanished or does not match the caller's
 * state; publish a checkpoint only after its tiles, and only one the
 * signer signed with the key log/vkey names.
 */
#ifndef POSTERN_RELEASE_LOG_H
#define POSTERN_RELEASE_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "tlog_dir.h"

/*
 * Appends n entries to the log of tree_fd, which must hold expect_size
 * entries now; the new size is expect_size + n. sign_socket is the signer's.
 */
int release_log_append(int tree_fd, const char *sign_socket, uint64_t expect_size,
		       const struct tlog_entry *entries, size_t n, struct pst_err *e);

/* The size of the log of tree_fd per its verified checkpoint (0 with no log yet). */
int release_log_size(int tree_fd, uint64_t *size, struct pst_err *e);

/* The leaf hash of entry index of the log of tree_fd, which must have size entries. */
int release_log_leaf(int tree_fd, uint64_t size, uint64_t index, struct tlog_hash *leaf,
		     struct pst_err *e);

/*
 * The c2sp.org/tlog-proof file of entry index (whose text is entry) under
 * the log's checkpoint, which must have size entries: into out (cap
 * bytes); its length, or -errno. Checked as a user will before it is given.
 */
int release_log_proof(int tree_fd, uint64_t size, uint64_t index, const char *entry,
		      size_t entry_len, char *out, size_t cap, struct pst_err *e);

/*
 * Whether the signer's socket takes a connection (one closed at once, which
 * the signer refuses as an empty request): asked before a change touches
 * the tree, so a signer that is down refuses the change, not its record.
 */
int release_log_signer_ready(const char *sign_socket, struct pst_err *e);

/* Remove the temporaries a crash left in <tree>/log (all are made in its root). Under the log lock. */
int release_log_drop_temps(int tree_fd, struct pst_err *e);

#endif
