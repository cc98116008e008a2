/*
 * Splitting a command line into words the way a POSIX shell would for the
 * forms rsync and ssh clients send (single quotes, double quotes,
 * backslash), without being a shell: no expansion of any kind, and every
 * character a shell would treat as syntax is refused, not interpreted.
 */
#ifndef POSTERN_RSHELL_TOKENIZE_H
#define POSTERN_RSHELL_TOKENIZE_H

#include <stddef.h>

#include "errmsg.h"

#define SHELL_CMD_MAX 8192     /* bytes in one command line */
#define SHELL_WORDS_MAX 256    /* words in one command line */

struct shell_words {
	size_t n;
	char *word[SHELL_WORDS_MAX + 1];               /* NULL-terminated */
	char buf[SHELL_CMD_MAX + SHELL_WORDS_MAX + 1]; /* the words, NUL-separated */
};

/*
 * Split cmd (len bytes; it may contain NUL, which is refused) into w.
 * Refuses, naming the character and its byte position: a command over
 * SHELL_CMD_MAX bytes or SHELL_WORDS_MAX words, invalid UTF-8, any control
 * character (C0, DEL, C1), Unicode line separators and bidi controls, an
 * unquoted shell metacharacter, '$' or '`' inside double quotes, an
 * unterminated quote and a trailing backslash. Returns 0 or -EINVAL.
 */
int shell_tokenize(const char *cmd, size_t len, struct shell_words *w, struct pst_err *e);

#endif
