/* Starting postern-installd: its socket, its privileges, its state, its loop. */
#ifndef POSTERN_INSTALLD_SETUP_H
#define POSTERN_INSTALLD_SETUP_H

#include <sys/types.h>

#include "errmsg.h"
#include "installd.h"

/*
 * The socket systemd passed (sd_listen_fds(3) semantics: LISTEN_PID is our
 * pid, LISTEN_FDS is 1, fd 3 is a listening Unix stream socket). Returns the
 * fd, 0 when systemd passed nothing, or -errno. LISTEN_* are unset.
 */
int installd_socket_from_systemd(struct pst_err *e);

/*
 * Bind and listen on path, mode 0660, owned by uid:gid (SF_ANY_UID/GID: leave). A stale
 * socket is replaced; a live one (another daemon answers) is an error.
 */
int installd_socket_bind(const char *path, uid_t uid, gid_t gid, struct pst_err *e);

/* As root: make <state>/locks, attic and ledger exist, owned by uid:gid. */
int installd_prepare_state(const char *state, uid_t uid, gid_t gid, struct pst_err *e);

/* As root: become uid:gid for good (and check it cannot be undone). */
int installd_drop_privileges(uid_t uid, gid_t gid, struct pst_err *e);

/* Accept connections until SIGTERM/SIGINT; each is served in a child process. */
int installd_serve(const struct installd *d, int listen_fd);

/* --reindex: one module, or every module when module is NULL. */
int installd_reindex(const struct installd *d, const char *module, struct pst_err *e);

#endif
