/*
 * postern-installd: shared state of the daemon and the operations it runs
 * for one connection.
 *
 * The daemon runs as the `postern` user and owns <tree> and <state>. All
 * of its file access goes through the directory fds below, opened once at
 * start without following symlinks; a name that reaches it from a client
 * is only ever used after release_name_parse() accepted it, as a single
 * component under one of these fds.
 */
#ifndef POSTERN_INSTALLD_H
#define POSTERN_INSTALLD_H

#include <stdbool.h>
#include <sys/types.h>

#include "audit.h"
#include "errmsg.h"
#include "policy.h"
#include "postern_limits.h"
#include "wire.h"

struct installd {
	const char *config;  /* postern.yaml: every request is decided on it as it is then */
	const struct policy *policy;
	const struct policy_settings *set;
	int tree_fd;       /* <tree> */
	int sources_fd;    /* <tree>/sources */
	int staging_fd;    /* <tree>/.staging, same filesystem as sources */
	int state_fd;      /* <state> */
	int locks_fd;      /* <state>/locks */
	int attic_fd;      /* <state>/attic */
	int history_fd;    /* <state>/history: the log's size, lock, pending record, index */
	uid_t uid;         /* the daemon's own uid: owner of everything it trusts */
	const char *check_socket;  /* where postern-check is started, one per connection */
	const char *log_socket;    /* where postern-logsign is started, one per connection */
	const char *ci_user;       /* the only user whose ci-install requests are taken */
};

/* Who asks, from SO_PEERCRED, and the session the client claims. */
struct installd_peer {
	uid_t uid;
	pid_t pid;
	char user[NAME_USER_MAX + 1];
	char peer_uid[16];
	char peer_pid[16];
	struct audit_session session;
	int sock;
};

/* Open (creating what the daemon owns) every directory of *d. */
int installd_open_dirs(struct installd *d, struct pst_err *e);

/* Serve one accepted connection to its end; returns true if the tree changed. */
bool installd_serve_connection(const struct installd *d, int sock);

/* The operations; each sends its final frame and emits its audit record. */
/* sig_fd: the signature the client sent with a signed install (req->sig), else -1. */
bool installd_op_install(const struct installd *d, const struct installd_peer *peer,
			 const struct wire_request *req, int upload_fd, int sig_fd);
bool installd_op_delete(const struct installd *d, const struct installd_peer *peer,
			const struct wire_request *req);
void installd_op_list_module(const struct installd *d, const struct installd_peer *peer,
			     const char *module);
void installd_op_list_mine(const struct installd *d, const struct installd_peer *peer);

/* The installd's own file creation mode bits for the public tree. */
#define INSTALLD_TREE_FILE_MODE 0644
#define INSTALLD_TREE_DIR_MODE 0755

#endif
