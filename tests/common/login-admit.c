/*
 * login-admit: stand where sshd's per-connection monitor stands, for tests
 * of postern-shell without an sshd.
 *
 *   login-admit --logins DIR --uid UID --user NAME --connection CONN
 *               [--lifetime S] [--no-proof] [--stale-start] [--boot-id ID]
 *               [--chown UID] [--chmod MODE] [--session-exec] -- COMMAND...
 *
 * As root, it writes the login proof pam_postern would write for a login
 * it admitted, with itself as the monitor and through the same code
 * (login_proof_fill, login_proof_write), then runs COMMAND as its
 * grandchild, as sshd runs the shell: monitor -> session child -> shell.
 * It exits with COMMAND's status. With --session-exec COMMAND is the
 * session child itself, for a program that starts shells the way sshd's
 * session process does (bench/shell). The other options make the proof wrong
 * in one way each, so that tests can show the shell refuses it: none at
 * all, a start time of an earlier process with this pid, another boot, a
 * record another user owns or may write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "login_proof.h"

struct admit_opts {
	const char *logins;
	const char *user;
	const char *connection;
	const char *boot_id;
	long uid;
	long chown_uid;
	long chmod_mode;
	unsigned lifetime;
	bool no_proof;
	bool stale_start;
	bool session_exec;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: login-admit --logins DIR --uid UID --user NAME --connection CONN\n"
		   "       [--lifetime S] [--no-proof] [--stale-start] [--boot-id ID]\n"
		   "       [--chown UID] [--chmod MODE] [--session-exec] -- COMMAND...\n");
}

static int parse_opts(int argc, char **argv, struct admit_opts *o)
{
	static const struct option longopts[] = {
		{ "logins", required_argument, NULL, 'd' },
		{ "uid", required_argument, NULL, 'u' },
		{ "user", required_argument, NULL, 'n' },
		{ "connection", required_argument, NULL, 'c' },
		{ "lifetime", required_argument, NULL, 'l' },
		{ "no-proof", no_argument, NULL, 'N' },
		{ "stale-start", no_argument, NULL, 'S' },
		{ "boot-id", required_argument, NULL, 'b' },
		{ "chown", required_argument, NULL, 'o' },
		{ "chmod", required_argument, NULL, 'm' },
		{ "session-exec", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->logins = optarg; break;
		case 'u': o->uid = strtol(optarg, NULL, 10); break;
		case 'n': o->user = optarg; break;
		case 'c': o->connection = optarg; break;
		case 'l': o->lifetime = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'N': o->no_proof = true; break;
		case 'S': o->stale_start = true; break;
		case 'b': o->boot_id = optarg; break;
		case 'o': o->chown_uid = strtol(optarg, NULL, 10); break;
		case 'm': o->chmod_mode = strtol(optarg, NULL, 8); break;
		case 'E': o->session_exec = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind >= argc || (!o->no_proof &&
			       (o->logins == NULL || o->user == NULL || o->connection == NULL || o->uid < 0))) {
		usage(stderr);
		return -1;
	}
	return optind;
}

/* The record's own file, changed after the fact as a careless admin might. */
static int spoil_record(const struct admit_opts *o, pid_t monitor)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%ld", o->logins, (long)monitor);
	if (o->chown_uid >= 0 && lchown(path, (uid_t)o->chown_uid, (gid_t)-1) != 0)
		return -errno;
	if (o->chmod_mode >= 0 && chmod(path, (mode_t)o->chmod_mode) != 0)
		return -errno;
	return 0;
}

static int leave_proof(const struct admit_opts *o)
{
	struct pst_err e = { "" };
	struct login_proof p;

	if (login_proof_fill(&p, (uid_t)o->uid, o->user, o->connection, getpid(), o->lifetime,
			     "totp", &e) < 0) {
		fprintf(stderr, "login-admit: %s\n", e.msg);
		return -1;
	}
	if (o->stale_start)
		p.monitor_start--;
	if (o->boot_id != NULL && !(strlen(o->boot_id) < sizeof(p.boot_id) &&
				    strcpy(p.boot_id, o->boot_id))) {
		fprintf(stderr, "login-admit: --boot-id too long\n");
		return -1;
	}
	if (login_proof_write(o->logins, &p, &e) < 0) {
		fprintf(stderr, "login-admit: %s\n", e.msg);
		return -1;
	}
	if (spoil_record(o, p.monitor) < 0) {
		fprintf(stderr, "login-admit: cannot change the record: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void exec_command(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "login-admit: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The session child: runs COMMAND as its own child (or becomes it) and
 * passes its status on. */
static void session_child(char **argv, bool session_exec)
{
	pid_t pid;

	if (session_exec)
		exec_command(argv);
	pid = fork();
	if (pid < 0)
		_exit(127);
	if (pid == 0)
		exec_command(argv);
	_exit(wait_status(pid));
}

int main(int argc, char **argv)
{
	struct admit_opts o = { .uid = -1, .chown_uid = -1, .chmod_mode = -1,
				.lifetime = LOGIN_PROOF_LIFETIME_DEFAULT };
	int first;
	pid_t pid;

	first = parse_opts(argc, argv, &o);
	if (first < 0)
		return 2;
	if (!o.no_proof && leave_proof(&o) < 0)
		return 2;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("login-admit: fork");
		return 2;
	}
	if (pid == 0)
		session_child(argv + first, o.session_exec);
	return wait_status(pid);
}
