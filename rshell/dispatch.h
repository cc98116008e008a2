/*
 * The shell's one decision: which of the six commands a command line is,
 * or why it is none of them. Everything else in postern-shell feeds this
 * function (the command line) or acts on its answer.
 */
#ifndef POSTERN_RSHELL_DISPATCH_H
#define POSTERN_RSHELL_DISPATCH_H

#include <stddef.h>

#include "errmsg.h"
#include "tokenize.h"

enum shell_command {
	SHELL_REFUSED = 0,
	SHELL_RSYNC,
	SHELL_INSTALL_MODULE,
	SHELL_LIST,
	SHELL_DELETE_OWN,
	SHELL_HELP,
	SHELL_ENROLL,
};

#define SHELL_ALLOWED_LIST "rsync, install-module, list, delete-own, enroll, help"

struct shell_decision {
	enum shell_command command;
	const char *name;           /* the command's name; NULL when not recognized */
	struct shell_words words;   /* the split command line, word[0] the command */
	struct pst_err why;         /* when refused: one line for the user and the log */
};

/*
 * Split command (len bytes) and decide. No match means refusal; there is no
 * default. d->why then says what was wrong, naming the command or character.
 */
enum shell_command shell_dispatch(const char *command, size_t len, struct shell_decision *d);

/* A name install-module and delete-own accept: one path component, not
 * starting with '-' or '.', at most 255 bytes. */
int shell_file_name_check(const char *cmd, const char *name, struct pst_err *e);

#endif
