/*
 * Test driver: one upload, signed or not, through check_spawn_upload() and
 * the real postern-check (started the way postern-check.socket starts it,
 * as this process's user), with the real sqv. Prints what the daemon would
 * act on; the shell test (test-check-signatures.sh) asserts it.
 * Usage: check-signed-drive CHECKER UPLOAD none|file|tar [SIGNATURE KEYRING [MAX_AGE]]
 * (MAX_AGE: signatures.max_age in seconds, default 7 days as in production)
 * Output: "pass SIGNER" or "refused MESSAGE" or "error MESSAGE"; exit 0 for
 * a pass, 1 for a refusal, 2 for an internal error, 3 for a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_spawn.h"
#include "upload_stage.h"

static const struct upload_limits limits = {
	.max_compressed = 1ull << 30, .max_uncompressed = 4ull << 30, .max_members = 100000,
	.max_ratio = 1000, .time_limit = 120,
#if defined(__SANITIZE_ADDRESS__)
	.check_memory = 64ull << 40,
#else
	.check_memory = 512ull << 20,
#endif
};

static void die(const char *what)
{
	fprintf(stderr, "check-signed-drive: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* What postern-check.socket does for one connection: accept, exec the checker on it. */
static pid_t activator(const char *checker, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), c;
	pid_t pid;

	if (l < 0 || strlen(path) >= sizeof(a.sun_path))
		die("socket");
	strcpy(a.sun_path, path);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 1) != 0)
		die("bind");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		c = accept(l, NULL, NULL);
		if (c < 0 || dup2(c, 0) != 0 || dup2(c, 1) != 1)
			_exit(126);
		execve(checker, (char *const[]){ (char *)checker, NULL }, (char *const[]){ NULL });
		_exit(127);
	}
	close(l);
	return pid;
}

static int open_ro(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die(path);
	return fd;
}

static enum check_signature_kind kind_of(const char *s)
{
	if (strcmp(s, "none") == 0)
		return CHECK_SIG_NONE;
	if (strcmp(s, "file") == 0)
		return CHECK_SIG_FILE;
	if (strcmp(s, "tar") == 0)
		return CHECK_SIG_TAR;
	fprintf(stderr, "check-signed-drive: unknown kind %s\n", s);
	exit(3);
}

int main(int argc, char **argv)
{
	static struct check_verdict v;
	struct check_signature sig = { CHECK_SIG_NONE, -1, -1, 7 * 86400 };
	struct release_name rn;
	struct upload_staged st;
	struct pst_err e;
	char dir[] = "/tmp/check-signed-XXXXXX", path[64], *copy;
	int up, staging, rc, status;
	pid_t pid;

	if (argc < 4 || (kind_of(argv[3]) != CHECK_SIG_NONE && argc != 6 && argc != 7)) {
		fprintf(stderr, "usage: check-signed-drive CHECKER UPLOAD none|file|tar "
			"[SIGNATURE KEYRING]\n");
		return 3;
	}
	copy = strdup(argv[2]);
	if (copy == NULL || release_name_parse(basename(copy), &rn, &e) < 0) {
		fprintf(stderr, "check-signed-drive: %s\n", copy == NULL ? "no memory" : e.msg);
		free(copy);
		return 3;
	}
	free(copy);
	sig.kind = kind_of(argv[3]);
	if (sig.kind != CHECK_SIG_NONE) {
		sig.sig_fd = open_ro(argv[4]);
		sig.keyring_fd = open_ro(argv[5]);
		if (argc == 7)
			sig.max_age = (unsigned)strtoul(argv[6], NULL, 10);
	}
	up = open_ro(argv[2]);
	staging = memfd_create("staging", MFD_CLOEXEC);
	if (staging < 0 || upload_stage(up, staging, limits.max_compressed, &st, &e) < 0)
		die("staging");
	if (mkdtemp(dir) == NULL)
		die("mkdtemp");
	snprintf(path, sizeof(path), "%s/check.sock", dir);
	pid = activator(argv[1], path);
	rc = check_spawn_upload(path, staging, &rn, &limits, st.size, &sig, &v, &e);
	waitpid(pid, &status, 0);
	unlink(path);
	rmdir(dir);
	if (rc == 0) {
		printf("pass %s\n", v.signer);
		return 0;
	}
	printf("%s %s\n", rc == -EBADMSG ? "refused" : "error", e.msg);
	return rc == -EBADMSG ? 1 : 2;
}
