/*
 * The daemon's release log writer against the real postern-logsign, run per
 * connection behind a SOCK_SEQPACKET socket as its unit runs it. argv[1] is
 * the signer binary.
 */
#define _XOPEN_SOURCE 700
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "logsign.h"
#include "release_log.h"
#include "tlog_note.h"

static const char *signer_bin;

struct fixture {
	char top[40], tree[64], signer[64], sock[80];
	int tree_fd;
	pid_t server;
	char vkey[TLOG_VKEY_MAX];
};

/* Accepts connections and runs the signer for each, fd 0 and 1 on the connection. */
static void serve(int listen_fd, const char *dir)
{
	int c;

	for (;;) {
		c = accept(listen_fd, NULL, NULL);
		if (c < 0)
			_exit(1);
		if (fork() == 0) {
			dup2(c, 0);
			dup2(c, 1);
			execl(signer_bin, signer_bin, "--dir", dir, (char *)NULL);
			_exit(127);
		}
		close(c);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

static void start_signer(struct fixture *f)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->sock);
	unlink(f->sock);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	f->server = fork();
	if (f->server == 0)
		serve(fd, f->signer);
	close(fd);
}

static void stop_signer(struct fixture *f)
{
	if (f->server > 0) {
		kill(f->server, SIGTERM);
		waitpid(f->server, NULL, 0);
	}
	f->server = -1;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int dfd;

	snprintf(f->top, sizeof(f->top), "/tmp/test-release-log.XXXXXX");
	assert_non_null(mkdtemp(f->top));
	snprintf(f->tree, sizeof(f->tree), "%s/tree", f->top);
	snprintf(f->signer, sizeof(f->signer), "%s/signer", f->top);
	snprintf(f->sock, sizeof(f->sock), "%s/logsign.sock", f->top);
	assert_int_equal(mkdir(f->tree, 0755), 0);
	assert_int_equal(mkdir(f->signer, 0700), 0);
	f->tree_fd = open(f->tree, O_RDONLY | O_DIRECTORY);
	dfd = open(f->signer, O_RDONLY | O_DIRECTORY);
	assert_int_equal(logsign_keygen(dfd, "releases.test/log", f->vkey, sizeof(f->vkey), NULL), 0);
	close(dfd);
	start_signer(f);
	*state = f;
	return 0;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	stop_signer(f);
	close(f->tree_fd);
	nftw(f->top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static int append(struct fixture *f, uint64_t expect, size_t n, struct pst_err *e)
{
	struct tlog_entry batch[8];
	static char text[8][32];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(text[i], sizeof(text[i]), "entry %llu\n", (unsigned long long)(expect + i));
		batch[i] = (struct tlog_entry){text[i], strlen(text[i])};
	}
	return release_log_append(f->tree_fd, f->sock, expect, batch, n, e);
}

static char *slurp(struct fixture *f, const char *name)
{
	static char buf[TLOG_NOTE_MAX + 1];
	int fd = openat(f->tree_fd, name, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static void test_appends_published(void **state)
{
	struct fixture *f = *state;
	struct pst_err e = {{0}};
	struct tlog_vkey k;
	struct tlog_checkpoint cp;
	uint64_t size;
	char *note;
	int body;

	if (append(f, 0, 3, &e) < 0 || append(f, 3, 1, &e) < 0 || append(f, 4, 8, &e) < 0)
		fail_msg("%s", e.msg);
	note = slurp(f, "log/vkey");
	assert_int_equal(strlen(note), strlen(f->vkey) + 1);
	assert_memory_equal(note, f->vkey, strlen(f->vkey));
	note = slurp(f, "log/checkpoint");
	assert_int_equal(tlog_vkey_parse(f->vkey, strlen(f->vkey), &k, NULL), 0);
	body = tlog_note_open(&k, note, strlen(note), NULL);
	assert_true(body > 0);
	assert_int_equal(tlog_checkpoint_parse(note, (size_t)body, &cp, NULL), 0);
	assert_int_equal(cp.size, 12);
	assert_int_equal(release_log_size(f->tree_fd, &size, NULL), 0);
	assert_int_equal(size, 12);
}

static void test_disagreement_changes_nothing(void **state)
{
	struct fixture *f = *state;
	struct pst_err e = {{0}};
	char before[TLOG_NOTE_MAX + 1];

	assert_int_equal(append(f, 0, 2, NULL), 0);
	strcpy(before, slurp(f, "log/checkpoint"));
	assert_true(append(f, 5, 1, &e) < 0);
	assert_non_null(strstr(e.msg, "the release log has 2 entries but the state says 5"));
	assert_string_equal(slurp(f, "log/checkpoint"), before);
	/* A log that vanished is never restarted. */
	assert_int_equal(renameat(f->tree_fd, "log", f->tree_fd, "log.gone"), 0);
	assert_true(append(f, 2, 1, &e) < 0);
	assert_non_null(strstr(e.msg, "has vanished"));
	assert_int_equal(faccessat(f->tree_fd, "log", F_OK, 0), -1);
}

static void test_signer_refusals(void **state)
{
	struct fixture *f = *state;
	struct pst_err e = {{0}};
	char before[TLOG_NOTE_MAX + 1];
	int fd;

	assert_int_equal(append(f, 0, 3, NULL), 0);
	strcpy(before, slurp(f, "log/checkpoint"));
	/* A history rewritten under the daemon: the tiles no longer extend what was signed. */
	fd = openat(f->tree_fd, "log/tile/entries/000.p/3", O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\0\x02x\n\0\x02y\n\0\x02z\n", 12), 12);
	close(fd);
	fd = openat(f->tree_fd, "log/tile/0/000.p/3", O_WRONLY);
	assert_int_equal(pwrite(fd, "\xff\xff\xff\xff", 4, 0), 4);
	close(fd);
	assert_true(append(f, 3, 1, &e) < 0);
	assert_non_null(strstr(e.msg, "signer refused"));
	assert_non_null(strstr(e.msg, "rewrites history"));
	assert_string_equal(slurp(f, "log/checkpoint"), before);

	/* The signer down: refused with what to start, nothing published. */
	stop_signer(f);
	assert_true(append(f, 3, 1, &e) < 0);
	assert_non_null(strstr(e.msg, "postern-logsign.socket"));
	assert_string_equal(slurp(f, "log/checkpoint"), before);
}

/* What the signer signed last, re-signed with its current key (as a restore would leave it). */
static void resign_state(struct fixture *f, int dfd)
{
	struct tlog_vkey old;
	struct tlog_skey k;
	struct tlog_checkpoint cp;
	char *note, body[256], out[TLOG_NOTE_MAX], skey[TLOG_SKEY_MAX + 2];
	int fd, n;

	fd = openat(dfd, "key", O_RDONLY);
	n = (int)read(fd, skey, sizeof(skey) - 1);
	close(fd);
	skey[n] = '\0';
	assert_int_equal(tlog_skey_parse(skey, strcspn(skey, "\n"), &k, NULL), 0);
	{
		char *v = slurp(f, "log/vkey");

		assert_int_equal(tlog_vkey_parse(v, strcspn(v, "\n"), &old, NULL), 0);
	}
	note = slurp(f, "log/checkpoint");
	n = tlog_note_open(&old, note, strlen(note), NULL);
	assert_int_equal(tlog_checkpoint_parse(note, (size_t)n, &cp, NULL), 0);
	n = tlog_checkpoint_format(&cp, body, sizeof(body), NULL);
	n = tlog_note_sign(&k, body, (size_t)n, out, sizeof(out), NULL);
	fd = openat(dfd, "signed", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(write(fd, out, (size_t)n), n);
	close(fd);
	tlog_skey_wipe(&k);
}

static void test_other_key_refused(void **state)
{
	struct fixture *f = *state;
	struct pst_err e = {{0}};
	char before[TLOG_NOTE_MAX + 1];
	int dfd;

	assert_int_equal(append(f, 0, 1, NULL), 0);
	strcpy(before, slurp(f, "log/checkpoint"));
	/* The signer's key replaced and its state lost: it refuses, the log and it disagree. */
	dfd = open(f->signer, O_RDONLY | O_DIRECTORY);
	assert_int_equal(unlinkat(dfd, "key", 0), 0);
	assert_int_equal(unlinkat(dfd, "vkey", 0), 0);
	assert_int_equal(unlinkat(dfd, "signed", 0), 0);
	assert_int_equal(logsign_keygen(dfd, "releases.test/log", f->vkey, sizeof(f->vkey), NULL), 0);
	assert_true(append(f, 1, 1, &e) < 0);
	assert_non_null(strstr(e.msg, "the log and the signer disagree"));
	/* With its state restored it signs, but with a key the published log/vkey is not: refused. */
	resign_state(f, dfd);
	close(dfd);
	assert_true(append(f, 1, 1, &e) < 0);
	assert_non_null(strstr(e.msg, "not the one <tree>/log/vkey publishes"));
	assert_string_equal(slurp(f, "log/checkpoint"), before);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_appends_published, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disagreement_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signer_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_key_refused, setup, teardown),
	};

	if (argc != 2)
		return fprintf(stderr, "usage: test_release_log POSTERN-LOGSIGN\n"), 2;
	signer_bin = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
