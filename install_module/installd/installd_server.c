/*
 * The accept loop. Each connection is served in a forked child, so a
 * crash, a hang or a kill during one install cannot take the daemon or
 * another install with it; the child's hard deadline (alarm) is the
 * policy's time_limit plus a margin for the commit and the hooks. The
 * parent only accepts, counts its children per uid (conn_slots.h), reaps,
 * and runs the debounced mirror_sync hook. It never reads a request: a
 * uid over its cap is refused from SO_PEERCRED alone.
 */
#define _GNU_SOURCE
#include "installd_setup.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "conn_slots.h"
#include "history.h"
#include "hooks.h"
#include "module_lock.h"
#include "text.h"
#include "tree_index.h"
#include "wire_io.h"

#define CHILD_MARGIN_SEC (HOOK_TIMEOUT + 120)
#define EXIT_TREE_CHANGED 3

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

struct server {
	const struct installd *d;
	struct conn_slots slots;
	bool sync_pending;
	time_t last_sync;
};

static void reap(struct server *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		conn_slots_free_pid(&s->slots, pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_TREE_CHANGED)
			s->sync_pending = true;
		else if (WIFSIGNALED(status))
			syslog(LOG_ERR, "connection handler %ld killed by signal %d", (long)pid,
			       WTERMSIG(status));
	}
}

/* Fork a handler that holds slot idx; returns fork()'s answer. */
static pid_t fork_in_slot(struct server *s, int idx)
{
	pid_t pid = fork();

	if (pid == 0)
		conn_slot_enter_handler(&s->slots, idx);
	else if (pid > 0)
		conn_slots_set_pid(&s->slots, idx, pid);
	else
		conn_slots_free(&s->slots, idx);
	return pid;
}

/* At most one mirror_sync per interval; a change during the wait is synced after it. */
static void maybe_sync(struct server *s)
{
	time_t now = time(NULL);
	int idx;
	pid_t pid;

	if (!s->sync_pending || now - s->last_sync < (time_t)s->d->set->mirror_sync_interval)
		return;
	if (s->d->set->hook_mirror_sync == NULL) {
		s->sync_pending = false;
		return;
	}
	idx = conn_slots_take(&s->slots, 0, false);
	if (idx < 0)
		return;
	s->sync_pending = false;
	s->last_sync = now;
	pid = fork_in_slot(s, idx);
	if (pid == 0) {
		struct pst_err e;

		if (history_sync_taken(s->d, &e) < 0)
			syslog(LOG_ERR, "mirror_sync: %s", e.msg);
		hooks_mirror_sync(s->d);
		_exit(0);
	}
}

static void serve_child(const struct installd *d, int listen_fd, int sock)
{
	close(listen_fd);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	alarm(d->set->limits.time_limit + CHILD_MARGIN_SEC);
	_exit(installd_serve_connection(d, sock) ? EXIT_TREE_CHANGED : 0);
}

/*
 * uid already has its share of connections: say so and log it. The socket
 * is fresh, so the one small frame fits its buffer; O_NONBLOCK makes sure
 * the accept loop never waits on a client.
 */
static void refuse_over_cap(int sock, const struct ucred *cred, unsigned held)
{
	struct audit_session session;
	char uid[16];
	char pid[16];
	char limit[16];
	char reason[160];

	snprintf(uid, sizeof(uid), "%lu", (unsigned long)cred->uid);
	snprintf(pid, sizeof(pid), "%ld", (long)cred->pid);
	snprintf(limit, sizeof(limit), "%u", CONN_SLOTS_PER_UID);
	snprintf(reason, sizeof(reason), "uid %s already has %u connections open (at most %u per user)",
		 uid, held, CONN_SLOTS_PER_UID);
	audit_session_init(&session, NULL, NULL);
	audit_emit(LOG_NOTICE, "connection_refused", &session, "reason", reason, "peer_uid", uid,
		   "peer_pid", pid, "limit", limit, NULL);
	fcntl(sock, F_SETFL, O_NONBLOCK);
	wire_send_msg(sock, WIRE_MSG_REFUSED,
		      "too many connections: you already have %u open to the release daemon (at most %u per user); let them finish, then try again",
		      held, CONN_SLOTS_PER_UID);
}

static void accept_one(struct server *s, int listen_fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned held;
	pid_t pid;
	int sock;
	int idx;

	/*
	 * Children that ended since the last round must not count against
	 * anyone; a waiter that got its lock meanwhile may have filled the
	 * working pool again, and then the connection stays in the backlog.
	 */
	reap(s);
	if (!conn_slots_room(&s->slots))
		return;
	sock = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (sock < 0)
		return;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred)) {
		syslog(LOG_ERR, "a connection without peer credentials was closed: %m");
		close(sock);
		return;
	}
	held = conn_slots_of_uid(&s->slots, cred.uid);
	idx = held >= CONN_SLOTS_PER_UID ? -1 : conn_slots_take(&s->slots, cred.uid, true);
	pid = idx >= 0 ? fork_in_slot(s, idx) : -1;
	if (pid == 0)
		serve_child(s->d, listen_fd, sock);
	if (held >= CONN_SLOTS_PER_UID)
		refuse_over_cap(sock, &cred, held);
	else if (pid < 0) {
		syslog(LOG_ERR, "cannot fork a connection handler: %m");
		fcntl(sock, F_SETFL, O_NONBLOCK);
		wire_send_msg(sock, WIRE_MSG_ERROR,
			      "the release daemon cannot take this request now (out of processes); try again in a minute");
	}
	close(sock);
}

int installd_serve(const struct installd *d, int listen_fd)
{
	/* A change the mirrors were not told of before a restart is synced first. */
	struct server s = { .d = d, .sync_pending = history_sync_pending(d) };
	struct sigaction sa;
	struct pollfd p = { .events = POLLIN };
	struct pst_err e;
	bool room;

	if (conn_slots_init(&s.slots, &e) < 0) {
		syslog(LOG_ERR, "%s", e.msg);
		fprintf(stderr, "postern-installd: %s\n", e.msg);
		exit(1); /* fail safe: never serve without the bounds */
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	syslog(LOG_INFO, "ready: tree %s, state %s", d->set->tree, d->set->state);
	while (!stopping) {
		reap(&s);
		maybe_sync(&s);
		room = conn_slots_room(&s.slots);
		/* Full: leave new connections in the backlog and look again soon. */
		p.fd = room ? listen_fd : -1;
		p.revents = 0;
		if (poll(&p, 1, room ? 1000 : 50) > 0 && (p.revents & POLLIN))
			accept_one(&s, listen_fd);
	}
	syslog(LOG_INFO, "stopping; %u connection(s) finish on their own", conn_slots_used(&s.slots));
	return 0;
}

static int reindex_one(const struct installd *d, const char *module, struct pst_err *e)
{
	struct module_lock l;
	int rc = module_lock_take(d, module, -1, &l, e);

	if (rc == 0)
		rc = tree_reindex(d->sources_fd, module, e);
	module_lock_release(&l);
	return rc;
}

int installd_reindex(const struct installd *d, const char *module, struct pst_err *e)
{
	int walk_fd;
	DIR *dh;
	struct dirent *de;
	int rc = 0;

	if (module != NULL)
		return reindex_one(d, module, e);
	walk_fd = openat(d->sources_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dh = walk_fd >= 0 ? fdopendir(walk_fd) : NULL;
	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return pst_fail(e, errno, "sources: cannot read: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (de->d_type == DT_DIR && name_is_module(de->d_name))
			rc = reindex_one(d, de->d_name, e);
	}
	closedir(dh);
	return rc;
}
