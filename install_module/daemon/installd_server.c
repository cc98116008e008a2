/*
 * The accept loop. Each connection is served in a forked child, so a
 * crash, a hang or a kill during one install cannot take the daemon or
 * another install with it; the child's hard deadline (alarm) is the
 * policy's time_limit plus a margin for the commit and the hooks. The
 * parent only accepts, reaps, and runs the debounced mirror_sync hook.
 */
#define _GNU_SOURCE
#include "installd_setup.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "hooks.h"
#include "module_lock.h"
#include "text.h"
#include "tree_index.h"

#define MAX_CHILDREN 64
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
	unsigned children;
	bool sync_pending;
	time_t last_sync;
};

static void reap(struct server *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (s->children > 0)
			s->children--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_TREE_CHANGED)
			s->sync_pending = true;
		else if (WIFSIGNALED(status))
			syslog(LOG_ERR, "connection handler %ld killed by signal %d", (long)pid,
			       WTERMSIG(status));
	}
}

/* At most one mirror_sync per interval; a change during the wait is synced after it. */
static void maybe_sync(struct server *s)
{
	time_t now = time(NULL);
	pid_t pid;

	if (!s->sync_pending || now - s->last_sync < (time_t)s->d->set->mirror_sync_interval)
		return;
	s->sync_pending = false;
	s->last_sync = now;
	if (s->d->set->hook_mirror_sync == NULL)
		return;
	pid = fork();
	if (pid == 0) {
		hooks_mirror_sync(s->d);
		_exit(0);
	}
	if (pid > 0)
		s->children++;
}

static void serve_child(const struct installd *d, int listen_fd, int sock)
{
	close(listen_fd);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	alarm(d->set->limits.time_limit + CHILD_MARGIN_SEC);
	_exit(installd_serve_connection(d, sock) ? EXIT_TREE_CHANGED : 0);
}

static void accept_one(struct server *s, int listen_fd)
{
	int sock = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	pid_t pid;

	if (sock < 0)
		return;
	pid = fork();
	if (pid == 0)
		serve_child(s->d, listen_fd, sock);
	if (pid < 0)
		syslog(LOG_ERR, "cannot fork a connection handler: %m");
	else
		s->children++;
	close(sock);
}

int installd_serve(const struct installd *d, int listen_fd)
{
	struct server s = { .d = d };
	struct sigaction sa;
	struct pollfd p = { .fd = listen_fd, .events = POLLIN };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	syslog(LOG_INFO, "ready: tree %s, state %s", d->set->tree, d->set->state);
	while (!stopping) {
		reap(&s);
		maybe_sync(&s);
		p.revents = 0;
		if (poll(&p, 1, s.children >= MAX_CHILDREN ? 50 : 1000) > 0 &&
		    (p.revents & POLLIN) && s.children < MAX_CHILDREN)
			accept_one(&s, listen_fd);
	}
	syslog(LOG_INFO, "stopping; %u connection(s) finish on their own", s.children);
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
