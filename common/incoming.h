/*
 * The maintainer's incoming directory, <incoming>/<user>/: where rsync
 * uploads land. postern-totp enroll creates it (as root); the shell and the
 * installd client (both running as the maintainer) only verify it and
 * refuse to proceed when it is not exactly as expected.
 */
#ifndef POSTERN_INCOMING_H
#define POSTERN_INCOMING_H

#include <sys/types.h>

#include "errmsg.h"

/*
 * Open <base>/<user> and return its fd, or -errno with e saying what is
 * wrong and what to do. base and every directory above it must be owned by
 * root and not group/other writable (so no one else can swap them); the
 * user's directory must be a real directory (not a symlink), owned by uid,
 * with mode exactly 0700.
 */
int incoming_dir_open(const char *base, const char *user, uid_t uid, struct pst_err *e);

#endif
