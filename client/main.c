/*
 * postern-client [-p PORT] [-l USER] [-i KEY] [--code-command CMD |
 *                --code-file FILE] [--accept-new] [--known-hosts FILE]
 *                [-v] [USER@]HOST COMMAND...
 *
 * Options stop at HOST, so the remote command's own options (rsync's
 * "--server -logDtpre.iLsfxCIvu") are never read as ours.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_config.h"
#include "client.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: postern-client [-p PORT] [-l USER] [-i KEY] [--code-command CMD | --code-file FILE]\n"
		"                      [--accept-new] [--known-hosts FILE] [-v] [USER@]HOST COMMAND...\n"
		"\n"
		"Logs in to a postern upload server with an SSH key and a one-time code, runs\n"
		"COMMAND there and passes on its input, output and exit status. Use it as\n"
		"rsync's transport: rsync -e 'postern-client -i ~/.ssh/id_ed25519' FILE HOST:\n"
		"\n"
		"  -p PORT              server port (22)\n"
		"  -l USER              remote user (the local user name)\n"
		"  -i KEY               private key file (default: ssh-agent, then ~/.ssh/id_*)\n"
		"  --code-command CMD   run CMD (words split on blanks, no shell) and use the first\n"
		"                       line it prints as the code\n"
		"  --code-file FILE     read the code from the first line of FILE\n"
		"                       (default: ask on the terminal, without echo)\n"
		"  --accept-new         remember an unknown host key without asking\n"
		"                       (a changed key is always refused)\n"
		"  --known-hosts FILE   known_hosts file (~/.ssh/known_hosts)\n"
		"  -v                   libssh debug output on stderr (repeat for more)\n");
}

static int parse_port(const char *s, unsigned *port)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v == 0 || v > 65535 || s[0] == '-')
		return -EINVAL;
	*port = (unsigned)v;
	return 0;
}

/* ssh joins the command words with single spaces; so do we, so that rsync's
 * already shell-quoted arguments reach the server exactly as with ssh. */
static char *join_words(char **words, int n)
{
	size_t len = 1;
	char *cmd, *p;

	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	cmd = malloc(len);
	if (cmd == NULL)
		return NULL;
	p = cmd;
	for (int i = 0; i < n; i++) {
		size_t wl = strlen(words[i]);
		if (i > 0)
			*p++ = ' ';
		memcpy(p, words[i], wl);
		p += wl;
	}
	*p = '\0';
	return cmd;
}

/* "user@host": the user part wins over nothing, but must not contradict -l. */
static int split_destination(char *dest, struct client_opts *o)
{
	char *at = strrchr(dest, '@');

	if (at == NULL) {
		o->host = dest;
		return 0;
	}
	*at = '\0';
	if (o->user != NULL && strcmp(o->user, dest) != 0) {
		fprintf(stderr, "postern-client: %s@%s: the user differs from -l %s (give only one)\n",
			dest, at + 1, o->user);
		return -EINVAL;
	}
	o->user = dest;
	o->host = at + 1;
	return 0;
}

enum { OPT_CODE_COMMAND = 256, OPT_CODE_FILE, OPT_ACCEPT_NEW, OPT_KNOWN_HOSTS, OPT_HELP,
       OPT_VERSION };

static int set_code_source(struct client_opts *o, enum code_source src, const char *arg)
{
	if (o->code_source != CODE_FROM_TTY) {
		fprintf(stderr, "postern-client: --code-command and --code-file: give only one\n");
		return -EINVAL;
	}
	o->code_source = src;
	o->code_arg = arg;
	return 0;
}

static int parse_args(int argc, char **argv, struct client_opts *o)
{
	static const struct option longopts[] = {
		{ "code-command", required_argument, NULL, OPT_CODE_COMMAND },
		{ "code-file", required_argument, NULL, OPT_CODE_FILE },
		{ "accept-new", no_argument, NULL, OPT_ACCEPT_NEW },
		{ "known-hosts", required_argument, NULL, OPT_KNOWN_HOSTS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+p:l:i:v", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_port(optarg, &o->port) != 0) {
				fprintf(stderr, "postern-client: -p %s: not a port number (1-65535)\n", optarg);
				return -EINVAL;
			}
			break;
		case 'l': o->user = optarg; break;
		case 'i': o->identity = optarg; break;
		case 'v': o->verbosity++; break;
		case OPT_CODE_COMMAND:
			if (set_code_source(o, CODE_FROM_COMMAND, optarg) != 0)
				return -EINVAL;
			break;
		case OPT_CODE_FILE:
			if (set_code_source(o, CODE_FROM_FILE, optarg) != 0)
				return -EINVAL;
			break;
		case OPT_ACCEPT_NEW: o->accept_new = true; break;
		case OPT_KNOWN_HOSTS: o->known_hosts = optarg; break;
		case OPT_HELP: usage(stdout); exit(0);
		case OPT_VERSION: printf("postern-client %s\n", POSTERN_VERSION); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	}
	if (argc - optind < 2) {
		fprintf(stderr, "postern-client: need a HOST and a COMMAND (postern offers no interactive login)\n");
		usage(stderr);
		return -EINVAL;
	}
	if (split_destination(argv[optind], o) != 0)
		return -EINVAL;
	if (o->host[0] == '\0' || (o->user != NULL && o->user[0] == '\0')) {
		fprintf(stderr, "postern-client: %s: empty host or user name\n", argv[optind]);
		return -EINVAL;
	}
	o->command = join_words(argv + optind + 1, argc - optind - 1);
	return o->command != NULL ? 0 : -ENOMEM;
}

static int local_user(struct client_opts *o)
{
	struct passwd *pw = getpwuid(getuid());

	if (pw == NULL) {
		fprintf(stderr, "postern-client: who are you? uid %u has no passwd entry (use -l USER)\n",
			(unsigned)getuid());
		return -ENOENT;
	}
	o->user = pw->pw_name;
	return 0;
}

static int session_configure(ssh_session s, const struct client_opts *o, struct pst_err *e)
{
	/* Only what the command line says: no ~/.ssh/config surprises. */
	int no = 0;

	if (ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_HOST, o->host) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_USER, o->user) < 0 ||
	    ssh_options_set(s, SSH_OPTIONS_LOG_VERBOSITY, &o->verbosity) < 0)
		return pst_fail(e, EINVAL, "%s: %s", o->host, ssh_get_error(s));
	if (o->port != 0 && ssh_options_set(s, SSH_OPTIONS_PORT, &o->port) < 0)
		return pst_fail(e, EINVAL, "port %u: %s", o->port, ssh_get_error(s));
	if (o->known_hosts != NULL &&
	    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, o->known_hosts) < 0)
		return pst_fail(e, EINVAL, "%s: %s", o->known_hosts, ssh_get_error(s));
	return 0;
}

static int run(const struct client_opts *o, struct pst_err *e)
{
	ssh_session s = ssh_new();
	int rc;

	if (s == NULL)
		return pst_fail(e, ENOMEM, "cannot create an ssh session");
	rc = session_configure(s, o, e);
	if (rc == 0 && ssh_connect(s) != SSH_OK)
		rc = pst_fail(e, ECONNREFUSED, "%s: cannot connect: %s", o->host, ssh_get_error(s));
	if (rc == 0)
		rc = hostkey_verify(s, o, e);
	if (rc == 0)
		rc = auth_login(s, o, e);
	if (rc == 0)
		rc = relay_run(s, o->command, e);
	ssh_disconnect(s);
	ssh_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	struct client_opts o = { 0 };
	struct pst_err e = { "" };
	int rc;

	if (parse_args(argc, argv, &o) != 0)
		return CLIENT_EXIT_FAILURE;
	if (o.user == NULL && local_user(&o) != 0)
		return CLIENT_EXIT_FAILURE;
	rc = run(&o, &e);
	free(o.command);
	if (rc < 0) {
		fprintf(stderr, "postern-client: %s\n", e.msg);
		return CLIENT_EXIT_FAILURE;
	}
	return rc;
}
