/*
 * postern-logsign: the release log's signer (logsign.h). Started once per
 * connection as its own user (systemd's postern-logsign.socket with
 * Accept=yes): reads one request from fd 0 until the daemon shuts its side,
 * writes one answer to fd 1, exits. --keygen and --vkey are for the admin
 * (postinst runs --keygen once).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logsign.h"
#include "safefile.h"
#include "tlog_note.h"

#define PROG "postern-logsign"
#define DEFAULT_DIR "/var/lib/postern-logsign"

static void usage(FILE *to, int status)
{
	fprintf(to,
		"usage: " PROG " [--dir DIR]                serve one request on fd 0/1\n"
		"       " PROG " [--dir DIR] --keygen NAME  make the log's key pair once\n"
		"       " PROG " [--dir DIR] --vkey         print the verifier key\n"
		"Signs a release log checkpoint only when it extends the last one signed.\n"
		"DIR (default " DEFAULT_DIR ") holds the key; it must be this user's, mode 0700.\n");
	exit(status);
}

static int open_own_dir(const char *path)
{
	struct sf_rule r = {.type = S_IFDIR, .uid = geteuid(), .gid = SF_ANY_GID, .forbid = 077};
	struct pst_err e = {{0}};
	int fd = sf_open_dir_path(path, &r, 0, &e);

	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s (it must be owned by this user with mode 0700)\n",
			path, e.msg);
		exit(1);
	}
	return fd;
}

static int serve(int dir_fd)
{
	char req[LOGSIGN_REQUEST_MAX + 1], answer[LOGSIGN_ANSWER_MAX];
	size_t len = 0;
	ssize_t n;
	int w;

	while (len <= LOGSIGN_REQUEST_MAX &&
	       (n = read(0, req + len, sizeof(req) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": reading the request: %s\n", strerror(errno));
			return 1;
		}
		len += (size_t)n;
	}
	/* The daemon's readiness probe (connect, close) asks nothing: nothing to answer. */
	if (len == 0)
		return 0;
	w = logsign_answer(dir_fd, req, len, answer, sizeof(answer));
	if (w < 0 || sf_write_full(1, answer, (size_t)w) < 0) {
		fprintf(stderr, PROG ": cannot answer: %s\n", strerror(w < 0 ? -w : errno));
		return 1;
	}
	if (strncmp(answer, "refused ", 8) == 0)
		fprintf(stderr, PROG ": %s", answer);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"dir", required_argument, NULL, 'd'}, {"keygen", required_argument, NULL, 'k'},
		{"vkey", no_argument, NULL, 'v'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dir = DEFAULT_DIR, *keygen = NULL;
	char vkey[TLOG_VKEY_MAX];
	struct pst_err e = {{0}};
	bool print_vkey = false;
	int c, fd, rc;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'k': keygen = optarg; break;
		case 'v': print_vkey = true; break;
		case 'h': usage(stdout, 0); break;
		default: usage(stderr, 2); break;
		}
	}
	if (optind != argc || (keygen != NULL && print_vkey))
		usage(stderr, 2);
	fd = open_own_dir(dir);
	if (keygen == NULL && !print_vkey)
		return serve(fd);
	rc = keygen != NULL ? logsign_keygen(fd, keygen, vkey, sizeof(vkey), &e)
			    : logsign_vkey(fd, vkey, sizeof(vkey), &e);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		return 1;
	}
	printf("%s\n", vkey);
	return 0;
}
