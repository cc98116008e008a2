/*
 * One entry of the release log (docs/RELEASES.md): a change to the public
 * tree, as a versioned text record of "key value" lines.
 *
 *   postern-entry 1
 *   op install                      install | delete | withdraw
 *   time 2026-12-03T06:40:00Z
 *   module gtk
 *   version 4.14.0
 *   uploader alice                  who asked (a login, or ci:<project> later)
 *   signer 0123...CDEF              the release signature's fingerprint, or -
 *   forced no                       yes when an install replaced earlier files
 *   attic -                         where replaced or deleted files went, or -
 *   file sources/gtk/4.14/gtk-4.14.0.tar.xz <sha256>      (install: published)
 *   gone sources/gtk/4.14/gtk-4.14.0.tar.xz <sha256>      (delete: moved to the attic)
 *
 * Every value is a plain word of [A-Za-z0-9._+,:/@-], paths are relative to
 * the tree with no "." or ".." component, hashes are lowercase hex; the
 * lines come in this order, so one change has exactly one spelling.
 */
#ifndef POSTERN_LOG_ENTRY_H
#define POSTERN_LOG_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "errmsg.h"

#define LOG_ENTRY_VERSION 1
#define LOG_ENTRY_FILES_MAX 16
#define LOG_WORD_MAX 255
#define LOG_ENTRY_TEXT_MAX 4096

struct log_file {
	bool gone;                       /* "gone": the change removed it from the tree */
	char path[LOG_WORD_MAX + 1];
	char sha256[65];
};

struct log_entry {
	char op[16];
	time_t when;
	char module[LOG_WORD_MAX + 1];
	char version[LOG_WORD_MAX + 1];
	char uploader[LOG_WORD_MAX + 1];
	char signer[LOG_WORD_MAX + 1];
	char forced[4];
	char attic[LOG_WORD_MAX + 1];
	size_t nfiles;
	struct log_file files[LOG_ENTRY_FILES_MAX];
};

/* The entry's text into out (NUL-terminated); its length, or -errno when a value is not allowed. */
int log_entry_format(const struct log_entry *le, char *out, size_t outlen, struct pst_err *e);

/* Parses exactly one entry's text (as log_entry_format writes it, nothing else). */
int log_entry_parse(const char *text, size_t len, struct log_entry *le, struct pst_err *e);

#endif
