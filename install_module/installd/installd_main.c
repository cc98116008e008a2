/*
 * postern-installd: the only writer of the public release tree.
 *
 *   postern-installd [-C CONFIG] [--user USER [--socket-group GROUP]]
 *                    [--socket PATH | --foreground] [--check-socket PATH]
 *                    [--log-socket PATH] [--ci-user USER]
 *   postern-installd [-C CONFIG] [--user USER] --reindex MODULE|--all
 *   postern-installd --help
 *
 * It runs as the `postern` user. Started as root it needs --user: it then
 * loads the policy, binds the socket (mode 0660, group GROUP), prepares its
 * entries in <state>, and drops to USER for good before it touches the tree
 * or reads a request. Started as any other user it is that user. Under
 * systemd the socket comes from socket activation (LISTEN_FDS); without it,
 * it binds --socket PATH itself (or paths.socket, with --foreground): how it
 * runs under any other supervisor, in production as in tests. It never
 * forks into the background itself.
 *
 * Uploads are decoded only by postern-check, another user in a sandbox,
 * reached through --check-socket (default /run/postern/check.sock, where
 * postern-check.socket starts one checker per connection). Every change
 * is recorded in the release log, whose checkpoints only postern-logsign
 * (another user) signs, reached through --log-socket (default
 * /run/postern/logsign.sock, postern-logsign.socket). At start it finishes
 * a record a crash interrupted and rebuilds a missing <state>/index.
 * A CI release is accepted only from --ci-user's uid (default postern-ci,
 * the user postern-ci, the HTTP front-end, runs as).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "build_config.h"
#include "history.h"
#include "installd.h"
#include "installd_setup.h"
#include "module_lock.h"
#include "policy.h"
#include "safefile.h"
#include "spawn.h"
#include "text.h"

#define PROG "postern-installd"

struct options {
	const char *config;
	const char *socket;
	const char *user;
	const char *socket_group;
	const char *check_socket;
	const char *log_socket;
	const char *ci_user;
	const char *reindex;
	bool reindex_all;
	bool foreground;
};

/* --help: the usage on stdout, exit 0; a usage error: on stderr, exit 2. */
static void usage(FILE *to, int status)
{
	fprintf(to,
		"usage: " PROG " [-C CONFIG] [--user USER [--socket-group GROUP]] [--socket PATH | --foreground]\n"
		"                        [--check-socket PATH] [--log-socket PATH] [--ci-user USER]\n"
		"       " PROG " [-C CONFIG] [--user USER] --reindex MODULE|--all\n"
		"       " PROG " --help\n");
	if (to == stdout)
		fputs("\nThe only writer of the public release tree: serves install-module, list and\n"
		      "delete-own for postern-shell on its Unix socket, deciding every request\n"
		      "against the policy on disk. See postern-installd(8).\n", to);
	exit(status);
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\n", what, why);
	syslog(LOG_ERR, "%s: %s", what, why);
	exit(1);
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "socket", required_argument, NULL, 's' },
		{ "user", required_argument, NULL, 'u' },
		{ "socket-group", required_argument, NULL, 'g' },
		{ "reindex", required_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "check-socket", required_argument, NULL, 'k' },
		{ "log-socket", required_argument, NULL, 'l' },
		{ "ci-user", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->config = POSTERN_CONFIG_FILE;
	o->check_socket = POSTERN_CHECK_SOCKET;
	o->log_socket = POSTERN_LOGSIGN_SOCKET;
	o->ci_user = "postern-ci";
	while ((c = getopt_long(argc, argv, "C:h", longs, NULL)) != -1) {
		switch (c) {
		case 'C': o->config = optarg; break;
		case 's': o->socket = optarg; break;
		case 'u': o->user = optarg; break;
		case 'g': o->socket_group = optarg; break;
		case 'r':
			if (strcmp(optarg, "--all") == 0)
				o->reindex_all = true;
			else
				o->reindex = optarg;
			break;
		case 'a': o->reindex_all = true; break;
		case 'f': o->foreground = true; break;
		case 'h': usage(stdout, 0); break;
		case 'k': o->check_socket = optarg; break;
		case 'l': o->log_socket = optarg; break;
		case 'c': o->ci_user = optarg; break;
		default: usage(stderr, 2);
		}
	}
	if (optind != argc || (o->reindex != NULL && o->reindex_all) ||
	    (o->socket_group != NULL && o->user == NULL))
		usage(stderr, 2);
	if (o->reindex != NULL && !name_is_module(o->reindex))
		die(o->reindex, "not a module name");
}

/* Resolve --user and --socket-group; root without --user is refused. */
static void resolve_identity(const struct options *o, uid_t *uid, gid_t *gid, gid_t *sock_gid)
{
	struct passwd *pw;
	struct group *gr;

	*sock_gid = SF_ANY_GID;
	if (geteuid() != 0) {
		if (o->user != NULL)
			die("--user", "only root can switch users; start as root or as the user itself");
		*uid = geteuid();
		*gid = getegid();
		return;
	}
	if (o->user == NULL)
		die("refusing to run as root", "pass --user postern (privileges are dropped after the socket is open)");
	pw = getpwnam(o->user);
	if (pw == NULL || pw->pw_uid == 0)
		die(o->user, "no such user, or it is root");
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	if (o->socket_group != NULL) {
		gr = getgrnam(o->socket_group);
		if (gr == NULL)
			die(o->socket_group, "no such group");
		*sock_gid = gr->gr_gid;
	}
}

static int open_socket(const struct options *o, const struct policy_settings *set, uid_t uid,
		       gid_t sock_gid)
{
	struct pst_err e;
	int fd = installd_socket_from_systemd(&e);

	if (fd < 0)
		die("socket activation", e.msg);
	if (fd > 0)
		return fd;
	if (!o->foreground && o->socket == NULL)
		die("no socket", "systemd passed none; without systemd give --socket PATH (or --foreground for paths.socket)");
	fd = installd_socket_bind(o->socket != NULL ? o->socket : set->socket,
				  geteuid() == 0 ? uid : SF_ANY_UID, sock_gid, &e);
	if (fd < 0)
		die("socket", e.msg);
	return fd;
}

/*
 * Every request reads the policy afresh, as the dropped user: one that
 * root could read but the daemon's user cannot would refuse every request,
 * so it stops the start instead, with the reason.
 */
static void policy_readable_after_drop(const char *config)
{
	struct policy *p = NULL;
	struct pst_err e;

	if (policy_load(config, &p, &e) < 0) {
		audit_emit(LOG_NOTICE, "policy_error", NULL, "file", config, "error", e.msg, NULL);
		die("policy, as the daemon's user (it is read again for every request)", e.msg);
	}
	policy_free(p);
}

int main(int argc, char **argv)
{
	struct installd d = { 0 };
	struct options o;
	struct policy *policy = NULL;
	struct pst_err e;
	uid_t uid;
	gid_t gid;
	gid_t sock_gid;
	int listen_fd = -1;
	bool serving;

	openlog(PROG, LOG_PID, LOG_AUTHPRIV);
	parse_options(argc, argv, &o);
	serving = o.reindex == NULL && !o.reindex_all;
	/* Keep fd 3 when systemd may have passed it; close every other stray fd. */
	fds_close_from(serving && getenv("LISTEN_FDS") != NULL ? 4 : 3);
	resolve_identity(&o, &uid, &gid, &sock_gid);
	if (policy_load(o.config, &policy, &e) < 0) {
		audit_emit(LOG_NOTICE, "policy_error", NULL, "file", o.config, "error", e.msg, NULL);
		die("policy", e.msg);
	}
	d.config = o.config;
	d.policy = policy;
	d.set = policy_settings(policy);
	d.check_socket = o.check_socket;
	d.ci_user = o.ci_user;
	d.log_socket = o.log_socket;
	audit_delivery_check(PROG, AUDIT_OP_READ, d.set->audit_on_failure, NULL);
	if (serving)
		listen_fd = open_socket(&o, d.set, uid, sock_gid);
	if (geteuid() == 0) {
		if (installd_prepare_state(d.set->state, uid, gid, &e) < 0 ||
		    installd_drop_privileges(uid, gid, &e) < 0)
			die("setup as root", e.msg);
		policy_readable_after_drop(o.config);
	}
	/* Releases and indexes are published as they are: world-readable. */
	umask(022);
	d.uid = geteuid();
	if (installd_open_dirs(&d, &e) < 0)
		die("directories", e.msg);
	if (history_open(&d, &e) < 0)
		die("the release log and the index", e.msg);
	if (module_recover_all(&d, &e) < 0)
		die("recovery", e.msg);
	if (!serving) {
		if (installd_reindex(&d, o.reindex, &e) < 0)
			die("reindex", e.msg);
		policy_free(policy);
		return 0;
	}
	installd_serve(&d, listen_fd);
	policy_free(policy);
	return 0;
}
