/*
 * The confinement of the OpenPGP tools postern-check runs beside the
 * archive check (sqv, gpgv, and gpg --dearmor for an armored keyring):
 * each is started outside the checker's sandbox, confined on its own, and
 * holds only the fds it is given. Nothing here reads OpenPGP.
 */
#ifndef POSTERN_SIG_CONFINE_H
#define POSTERN_SIG_CONFINE_H

#include <stddef.h>
#include <sys/types.h>

#include "errmsg.h"
#include "sandbox.h"
#include "sig_verdict.h"

/*
 * A sealed memfd holding at most cap bytes of fd, read from offset 0 with
 * pread (fd's offset is left alone). Returns the memfd, -EFBIG when fd
 * holds more than cap bytes, or another -errno with e filled.
 */
int sig_memfd_copy(int fd, const char *name, size_t cap, struct pst_err *e);

/*
 * Fork a child that holds fds[0..n-1] as fds 0..n-1 and nothing else, is
 * confined (no_new_privs, Landlock: read and execute under /usr, /lib* and
 * /etc/ld.so.cache only; rlimits of c; a seccomp filter killing it at any
 * network, signal-sending, tracing, cross-process memory, io_uring or
 * kernel-keyring call, except that socket() fails with EACCES for a
 * SIG_TOOL_GNUPG tool; an alarm at c's time limit) and executes path with
 * argv and LC_ALL=C as its whole environment. A child that cannot be
 * confined exits SIG_VERIFIER_SETUP_FAILED before execve. The caller keeps
 * (and closes) fds. Returns the pid, or -errno with e filled.
 */
enum sig_tool { SIG_TOOL_SQV, SIG_TOOL_GNUPG };
pid_t sig_confined_spawn(const int *fds, int n, const struct sandbox_limits *c, enum sig_tool tool,
			 const char *path, char *const argv[], struct pst_err *e);

#endif
