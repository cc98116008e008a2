/*
 * Running rrsync for one validated upload and recording what it did.
 */
#ifndef POSTERN_RSHELL_UPLOAD_H
#define POSTERN_RSHELL_UPLOAD_H

#include <stdint.h>

#include "audit.h"

/*
 * Run POSTERN_RRSYNC with the flags of rsync_args.h on the directory dirfd
 * (the verified incoming directory, passed as its working directory), in
 * envp, with fds above 2 closed. The shell waits for it instead of
 * exec'ing it so that it can log upload_done with rrsync's exit status and
 * the names that appeared in the directory. Returns the exit status for
 * the session (rrsync's, 128+signal when it was killed, 1 when it could
 * not be started).
 */
int upload_run(int dirfd, uint64_t max_file, char *const envp[], const struct audit_session *s);

#endif
