/*
 * The lines install-module prints, as postern-client --release reads them
 * to learn which file was installed (install_module/installd_client.c
 * writes them). Pure string functions: no I/O, no allocation.
 *
 * The server is not trusted to be well-behaved: a line that does not match
 * exactly is only shown, never taken as an installation.
 */
#ifndef POSTERN_CLIENT_SERVER_LINES_H
#define POSTERN_CLIENT_SERVER_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "postern_limits.h"

#define SERVER_FILE_MAX INCOMING_NAME_MAX

enum server_line_kind {
	SERVER_LINE_OTHER,      /* not about one file: shown as it is */
	SERVER_LINE_STEP,       /* "install-module: FILE: checking FILE" and the like */
	SERVER_LINE_INSTALLED,  /* "install-module: FILE: installed as ... (sha256 HEX)..." */
	SERVER_LINE_WOULD,      /* "install-module: FILE: dry run: every check passed; ... (sha256 HEX)..." */
	SERVER_LINE_REFUSED,    /* any line about FILE on stderr */
};

struct server_line {
	enum server_line_kind kind;
	char file[SERVER_FILE_MAX + 1];   /* "" for SERVER_LINE_OTHER */
	char sha256[65];                  /* for INSTALLED and WOULD, else "" */
};

/* Classify one line (without its newline) of install-module's stdout or stderr. */
void server_line_parse(const char *line, bool is_stderr, struct server_line *out);

/* dst: src made printable (common/text_show.h: controls, C1, bytes that are
 * not UTF-8, bidi and invisible characters as '?'), so a hostile server
 * cannot send terminal escapes; always NUL-terminated, cut to fit. */
void server_text_printable(char *dst, size_t len, const char *src);

#endif
