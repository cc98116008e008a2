/*
 * What postern-shell accepts of "rsync --server ...": the receiving end of
 * an upload into the maintainer's incoming directory, nothing else. rrsync
 * stays the path enforcer; this refuses early, with a reason, everything an
 * upload does not need.
 */
#ifndef POSTERN_RSHELL_RSYNC_ARGS_H
#define POSTERN_RSHELL_RSYNC_ARGS_H

#include <stddef.h>

#include "errmsg.h"

/* rrsync's options, chosen and justified in docs/SHELL.md. */
#define RRSYNC_FLAGS "-wo", "-no-del", "-no-overwrite", "-munge"

/*
 * argv[0] is "rsync". Returns 0 when the words are an upload rsync client's
 * server command, else -EINVAL with e naming the offending word and why.
 */
int rsync_args_check(size_t argc, char *const argv[], struct pst_err *e);

/*
 * A path an option or the destination may name: relative to the incoming
 * directory, without "..", '~', a leading '-' or characters rrsync would
 * glob or brace-expand. what names it in the message.
 */
int rsync_path_inside(const char *path, const char *what, struct pst_err *e);

/*
 * Join the words into one line that rrsync (which splits SSH_ORIGINAL_COMMAND
 * on white space and honours backslash escapes) splits back into exactly
 * these words: every character outside a small safe set is preceded by a
 * backslash. Words must be non-empty. Returns 0, or -ENAMETOOLONG when out
 * is too small (2 * SHELL_CMD_MAX + SHELL_WORDS_MAX always suffices).
 */
int rsync_command_format(size_t argc, char *const argv[], char *out, size_t outlen);

#endif
