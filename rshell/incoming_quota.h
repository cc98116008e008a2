/*
 * What one maintainer's incoming directory may take before an rsync upload
 * starts (limits.incoming_total), and the per-file cap rsync writes under
 * (limits.max_compressed, as RLIMIT_FSIZE on rrsync and rsync). Without a
 * file-system quota the total is checked once, here, before the upload:
 * one session can still add up to its own files' worth (docs/SHELL.md).
 */
#ifndef POSTERN_RSHELL_INCOMING_QUOTA_H
#define POSTERN_RSHELL_INCOMING_QUOTA_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"

/* The disk blocks of everything under dirfd (no symlink followed, 64 levels at most), in bytes. */
int incoming_usage(int dirfd, uint64_t *bytes, struct pst_err *e);

/* n bytes for a person: "512 bytes", "3.2 MiB", "2 GiB". */
void incoming_size_text(uint64_t n, char *out, size_t len);

/* 0 when an upload may start, else -EDQUOT with the message saying how much is allowed. */
int incoming_quota_check(int dirfd, uint64_t total, struct pst_err *e);

#endif
