/*
 * The inclusion proof file beside a release (release_proof.h).
 * MUST: write it only after the checkpoint covering its entry is
 * published, atomically, in the release's own directory.
 */
#define _GNU_SOURCE
#include "release_proof.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "release_log.h"
#include "safefile.h"
#include "tlog_proof_file.h"
#include "tree_scan.h"

static const struct sf_new public_file = { 0644, SF_ANY_UID, SF_ANY_GID };

int release_proof_write(const struct installd *d, const struct ledger_record *r, uint64_t index,
			const char *entry, size_t entry_len, struct pst_err *e)
{
	char name[NAME_MAX + sizeof(TREE_PROOF_SUFFIX)];
	char *text = malloc(TLOG_PROOF_FILE_MAX);
	int len, dir_fd;

	if (text == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	if (snprintf(name, sizeof(name), "%s" TREE_PROOF_SUFFIX, r->file) > NAME_MAX) {
		free(text);
		return pst_fail(e, ENAMETOOLONG, "%s: too long a name for its proof file", r->file);
	}
	len = release_log_proof(d->tree_fd, index + 1, index, entry, entry_len, text,
				TLOG_PROOF_FILE_MAX, e);
	dir_fd = len < 0 ? len : tree_release_dir_open(d->sources_fd, r->module, r->dir, e);
	if (dir_fd >= 0) {
		len = sf_write_atomic(dir_fd, name, text, (size_t)len, &public_file, e);
		close(dir_fd);
	} else {
		len = dir_fd;
	}
	free(text);
	return len < 0 ? len : 0;
}
