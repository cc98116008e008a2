/*
 * postern-client [-p PORT] [-l USER] [-i KEY] [--code-command CMD |
 *                --code-file FILE] [--accept-new] [--known-hosts FILE]
 *                [-v] [USER@]HOST COMMAND...
 * postern-client [OPTIONS] --release [--dry-run] [-q] [USER@]HOST FILE...
 *
 * Without --release, options stop at HOST, so the remote command's own
 * options (rsync's "--server -logDtpre.iLsfxCIvu") are never read as ours.
 * With --release (given before HOST), options may also follow the files.
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
		"       postern-client [OPTIONS] --release [--dry-run] [-q] [USER@]HOST FILE...\n"
		"\n"
		"Logs in to a postern upload server with an SSH key and a one-time code, runs\n"
		"COMMAND there and passes on its input, output and exit status. Use it as\n"
		"rsync's transport: rsync -e 'postern-client -i ~/.ssh/id_ed25519' FILE HOST:\n"
		"With --release, it checks FILE... here, then uploads, installs and lists them\n"
		"on one login: postern-client --release HOST gtk-4.14.0.tar.xz\n"
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
		"  -v                   libssh debug output on stderr (repeat for more)\n"
		"\n"
		"  --release            release FILE... (<module>-<version>.tar.*) on one login:\n"
		"                       the server's checks here first, then rsync upload,\n"
		"                       install-module and list MODULE over one connection\n"
		"  --dry-run            with --release: upload and run install-module --dry-run\n"
		"  -q, --quiet          with --release: print only the results\n"
		"Exit status with --release: 0 released, 1 the server refused some file,\n"
		"2 refused here (nothing sent), 3 login failed, 4 upload failed.\n");
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
       OPT_VERSION, OPT_RELEASE, OPT_DRY_RUN };

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

static int parse_option(int c, struct client_opts *o)
{
	switch (c) {
	case 'p':
		if (parse_port(optarg, &o->port) != 0) {
			fprintf(stderr, "postern-client: -p %s: not a port number (1-65535)\n", optarg);
			return -EINVAL;
		}
		return 0;
	case 'l': o->user = optarg; return 0;
	case 'i': o->identity = optarg; return 0;
	case 'v': o->verbosity++; return 0;
	case 'q': o->quiet = true; return 0;
	case OPT_CODE_COMMAND: return set_code_source(o, CODE_FROM_COMMAND, optarg);
	case OPT_CODE_FILE: return set_code_source(o, CODE_FROM_FILE, optarg);
	case OPT_ACCEPT_NEW: o->accept_new = true; return 0;
	case OPT_KNOWN_HOSTS: o->known_hosts = optarg; return 0;
	case OPT_RELEASE: o->release = true; return 0;
	case OPT_DRY_RUN: o->dry_run = true; return 0;
	case OPT_HELP: usage(stdout); exit(0);
	case OPT_VERSION: printf("postern-client %s\n", POSTERN_VERSION); exit(0);
	default: usage(stderr); return -EINVAL;
	}
}

/*
 * In-order scanning ("-" in the option string): each operand comes back as
 * option 1. Without --release the first operand, HOST, ends our options;
 * with it every operand is a file and options may follow them.
 */
static int scan_args(int argc, char **argv, struct client_opts *o, char **dest)
{
	static const struct option longopts[] = {
		{ "code-command", required_argument, NULL, OPT_CODE_COMMAND },
		{ "code-file", required_argument, NULL, OPT_CODE_FILE },
		{ "accept-new", no_argument, NULL, OPT_ACCEPT_NEW },
		{ "known-hosts", required_argument, NULL, OPT_KNOWN_HOSTS },
		{ "release", no_argument, NULL, OPT_RELEASE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "-p:l:i:vq", longopts, NULL)) != -1) {
		if (c != 1) {
			if (parse_option(c, o) != 0)
				return -EINVAL;
			continue;
		}
		if (*dest == NULL) {
			*dest = optarg;
			if (!o->release)
				break;
		} else {
			o->files[o->n_files++] = optarg;
		}
	}
	/* After "--" (or HOST without --release) the rest are operands as they are. */
	if (*dest == NULL && optind < argc)
		*dest = argv[optind++];
	if (o->release)
		for (; optind < argc; optind++)
			o->files[o->n_files++] = argv[optind];
	return 0;
}

static int check_mode(const struct client_opts *o, const char *dest, int n_command)
{
	if (dest == NULL) {
		fprintf(stderr, "postern-client: need a HOST and %s\n", o->release ? "FILEs to release" :
			"a COMMAND (postern offers no interactive login)");
		usage(stderr);
		return -EINVAL;
	}
	if (o->release && o->n_files == 0) {
		fprintf(stderr, "postern-client: --release: give the release tarballs after HOST\n");
		return -EINVAL;
	}
	if (!o->release && n_command == 0) {
		fprintf(stderr, "postern-client: need a COMMAND after HOST (postern offers no "
			"interactive login), or --release before HOST\n");
		return -EINVAL;
	}
	if (!o->release && (o->dry_run || o->quiet)) {
		fprintf(stderr, "postern-client: --dry-run and --quiet go with --release\n");
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct client_opts *o)
{
	char *dest = NULL;

	o->files = calloc((size_t)argc, sizeof(*o->files));
	if (o->files == NULL)
		return -ENOMEM;
	if (scan_args(argc, argv, o, &dest) != 0 ||
	    check_mode(o, dest, o->release ? 0 : argc - optind) != 0)
		return -EINVAL;
	if (split_destination(dest, o) != 0)
		return -EINVAL;
	if (o->host[0] == '\0' || (o->user != NULL && o->user[0] == '\0')) {
		fprintf(stderr, "postern-client: %s: empty host or user name\n", dest);
		return -EINVAL;
	}
	if (o->release)
		return 0;
	o->command = join_words(argv + optind, argc - optind);
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

static int run(const struct client_opts *o, struct pst_err *e)
{
	ssh_session s;
	int rc = session_login(o, &s, e);

	if (rc < 0)
		return rc;
	rc = relay_run(s, o->command, e);
	session_end(s);
	return rc;
}

int main(int argc, char **argv)
{
	struct client_opts o = { 0 };
	struct pst_err e = { "" };
	int rc;

	/* rsync runs us as its remote shell: its arguments are not ours. */
	if (argc >= 2 && strcmp(argv[1], "--rsync-relay") == 0)
		return rsync_relay_child(argc - 2, argv + 2);
	if (parse_args(argc, argv, &o) != 0 || (o.user == NULL && local_user(&o) != 0)) {
		free(o.command);
		free(o.files);
		return CLIENT_EXIT_FAILURE;
	}
	if (o.release) {
		rc = release_main(&o);
		free(o.files);
		return rc;
	}
	rc = run(&o, &e);
	free(o.command);
	free(o.files);
	if (rc < 0) {
		fprintf(stderr, "postern-client: %s\n", e.msg);
		return CLIENT_EXIT_FAILURE;
	}
	return rc;
}
