/*
 * The daemon's staging copy of an upload: read once, hashed (SHA-256,
 * libcrypto EVP) and written to the anonymous staging file in the same
 * pass, so the hash, the bytes the checker reads and the bytes installed
 * are one and the same. No archive code here: postern-installd does not
 * link libarchive.
 */
#ifndef POSTERN_UPLOAD_STAGE_H
#define POSTERN_UPLOAD_STAGE_H

#include <stdint.h>

#include "errmsg.h"

struct upload_staged {
	char sha256[65];     /* lowercase hex, NUL-terminated */
	uint64_t size;       /* bytes read from the upload = written to staging */
};

/*
 * Copy upload_fd from its offset to EOF into staging_fd (from its offset).
 * Returns 0; -EFBIG with e saying so when the upload grows beyond max bytes
 * (a refusal); any other -errno is an internal error. Never fsyncs,
 * truncates or unlinks staging_fd: the caller decides its fate.
 */
int upload_stage(int upload_fd, int staging_fd, uint64_t max, struct upload_staged *out,
		 struct pst_err *e);

/* A new read-only fd of the same file (a new open file description). */
int upload_stage_reopen_readonly(int staging_fd, struct pst_err *e);

#endif
