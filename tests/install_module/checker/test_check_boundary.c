/*
 * The daemon's side of the checker boundary, without root: the staging
 * copy and its hash (upload_stage.c), the request and verdict records
 * (check_wire.c, strict both ways), and check_spawn_upload() against the
 * real postern-check, started here the way postern-check.socket starts it
 * (one per connection, the connection on fd 0), but as the test's own user.
 * Usage: test_check_boundary /path/to/postern-check
 */
#define _GNU_SOURCE
#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "check_spawn.h"
#include "check_wire.h"
#include "tarball_maker.h"
#include "upload_stage.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *checker;

/* ASan reserves terabytes of shadow memory: under it, the checker's RLIMIT_AS must leave room. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_CHECK_MEMORY (64ull << 40)
#else
#define TEST_CHECK_MEMORY (512ull << 20)
#endif

static const struct upload_limits limits = {
	.max_compressed = 1 << 20, .max_uncompressed = 8 << 20, .max_members = 1000,
	.max_ratio = 100, .time_limit = 60, .check_memory = TEST_CHECK_MEMORY,
};

static int memfd_with(const void *data, size_t len)
{
	int fd = maker_memfd("upload");

	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void test_stage_copies_and_hashes(void **state)
{
	static unsigned char data[300 * 1024];
	unsigned char md[32], *copy;
	char want[65];
	struct upload_staged st;
	struct pst_err e;
	unsigned n = 0, i;
	size_t len;
	int up, staging;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 251);
	up = memfd_with(data, sizeof(data));
	staging = maker_memfd("staging");
	assert_int_equal(upload_stage(up, staging, sizeof(data), &st, &e), 0);
	assert_int_equal(st.size, sizeof(data));
	copy = maker_slurp(staging, &len);
	assert_int_equal(len, sizeof(data));
	assert_memory_equal(copy, data, len);
	assert_int_equal(EVP_Digest(data, sizeof(data), md, &n, EVP_sha256(), NULL), 1);
	for (i = 0; i < n; i++)
		snprintf(want + 2 * i, 3, "%02x", md[i]);
	assert_string_equal(st.sha256, want);
	free(copy);
	close(up);
	close(staging);
}

static void test_stage_cap(void **state)
{
	static unsigned char data[4096];
	struct upload_staged st;
	struct pst_err e;
	int up = memfd_with(data, sizeof(data)), staging = maker_memfd("staging");

	(void)state;
	assert_int_equal(upload_stage(up, staging, sizeof(data) - 1, &st, &e), -EFBIG);
	assert_non_null(strstr(e.msg, "larger than the limit of 4095 bytes"));
	close(up);
	close(staging);
}

static void test_reopen_is_read_only(void **state)
{
	struct pst_err e;
	int staging = memfd_with("abc", 3);
	int ro = upload_stage_reopen_readonly(staging, &e);
	char c;

	(void)state;
	assert_true(ro >= 0);
	assert_int_equal(fcntl(ro, F_GETFL) & O_ACCMODE, O_RDONLY);
	assert_int_equal(write(ro, "x", 1), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(read(ro, &c, 1), 1);
	assert_int_equal(c, 'a');
	close(ro);
	close(staging);
}

static void a_request(struct check_request *r)
{
	memset(r, 0, sizeof(*r));
	strcpy(r->module, "demo");
	strcpy(r->version, "1.0");
	r->compression = RELEASE_ZST;
	r->limits = limits;
}

static void test_request_round_trip_and_refusals(void **state)
{
	unsigned char buf[CHECK_REQUEST_SIZE];
	struct check_request r, back;
	struct pst_err e;

	(void)state;
	a_request(&r);
	assert_true(check_request_encode(&r, buf));
	assert_int_equal(check_request_parse(buf, sizeof(buf), &back, &e), 0);
	assert_string_equal(back.module, "demo");
	assert_string_equal(back.version, "1.0");
	assert_int_equal(back.compression, RELEASE_ZST);
	assert_memory_equal(&back.limits, &r.limits, sizeof(r.limits));
	assert_int_equal(check_request_parse(buf, sizeof(buf) - 1, &back, &e), -EBADMSG);
	strcpy(r.module, "../etc");
	assert_true(check_request_encode(&r, buf));
	assert_int_equal(check_request_parse(buf, sizeof(buf), &back, &e), -EBADMSG);
	a_request(&r);
	r.limits.check_memory = 0;
	assert_true(check_request_encode(&r, buf));
	assert_int_equal(check_request_parse(buf, sizeof(buf), &back, &e), -EBADMSG);
	a_request(&r);
	r.sig_kind = CHECK_SIG_TAR;
	assert_true(check_request_encode(&r, buf));
	assert_int_equal(check_request_parse(buf, sizeof(buf), &back, &e), 0);
	assert_int_equal(back.sig_kind, CHECK_SIG_TAR);
	r.sig_max_age = 604800;
	assert_true(check_request_encode(&r, buf));
	assert_int_equal(check_request_parse(buf, sizeof(buf), &back, &e), 0);
	assert_int_equal(back.sig_max_age, 604800);
	buf[CHECK_REQUEST_SIZE - 5] = 3;   /* sig_kind's last byte, before sig_max_age */
	assert_int_equal(check_request_parse(buf, sizeof(buf), &back, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "signature kind"));
	memcpy(buf, "PSTCHKQ2", CHECK_MAGIC_LEN);    /* the format before sig_max_age */
	assert_int_equal(check_request_parse(buf, sizeof(buf), &back, &e), -EBADMSG);
}

static void a_verdict(struct check_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->outcome = CHECK_PASS;
	v->compressed = 1234;
	v->members = 3;
	v->has_news = true;
	strcpy(v->news, "Version 1.0\n\n- caf\xc3\xa9\n");
}

/* Encode v, apply the damage, and expect the parser to refuse it saying why. */
static void verdict_refused(const struct check_verdict *v, size_t at, int byte, const char *why)
{
	static unsigned char buf[CHECK_VERDICT_SIZE];
	static struct check_verdict back;
	struct pst_err e;

	assert_true(check_verdict_encode(v, buf));
	if (at < sizeof(buf))
		buf[at] = (unsigned char)byte;
	assert_int_equal(check_verdict_parse(buf, sizeof(buf), &back, &e), -EBADMSG);
	if (strstr(e.msg, why) == NULL)
		fail_msg("'%s' does not say '%s'", e.msg, why);
}

static void test_verdict_round_trip_and_refusals(void **state)
{
	static unsigned char buf[CHECK_VERDICT_SIZE + 1];
	static struct check_verdict v, back;
	const size_t msg_at = CHECK_MAGIC_LEN + 4 + 8 + 8 + 8 + 4, news_at = msg_at + CHECK_MESSAGE_MAX;
	struct pst_err e;

	(void)state;
	a_verdict(&v);
	assert_true(check_verdict_encode(&v, buf));
	assert_int_equal(check_verdict_parse(buf, CHECK_VERDICT_SIZE, &back, &e), 0);
	assert_int_equal(back.outcome, CHECK_PASS);
	assert_int_equal(back.compressed, 1234);
	assert_true(back.has_news);
	assert_string_equal(back.news, v.news);
	assert_int_equal(check_verdict_parse(buf, CHECK_VERDICT_SIZE + 1, &back, &e), -EBADMSG);
	assert_int_equal(check_verdict_parse(buf, CHECK_VERDICT_SIZE - 1, &back, &e), -EBADMSG);
	verdict_refused(&v, 0, 'X', "magic");
	verdict_refused(&v, CHECK_MAGIC_LEN + 3, 9, "unknown outcome");
	verdict_refused(&v, msg_at, 'x', "does not match its outcome");
	verdict_refused(&v, news_at + 1, 0x1b, "NEWS excerpt");
	verdict_refused(&v, news_at + RELEASE_NEWS_MAX - 1, 'x', "NEWS excerpt");
	v.outcome = CHECK_REFUSED;
	strcpy(v.message, "member demo-1.0/x: not allowed");
	verdict_refused(&v, msg_at + 2, '\n', "not clean text");
	verdict_refused(&v, msg_at + CHECK_MESSAGE_MAX - 1, 'x', "not clean text");
	verdict_refused(&v, msg_at + 40, 'x', "not clean text");
	v.has_news = false;
	verdict_refused(&v, SIZE_MAX, 0, "NEWS excerpt");
}

static void test_verdict_signer(void **state)
{
	static unsigned char buf[CHECK_VERDICT_SIZE];
	static struct check_verdict v, back;
	const size_t signer_at = CHECK_VERDICT_SIZE - (CHECK_FINGERPRINT_MAX + 1);
	struct pst_err e;

	(void)state;
	a_verdict(&v);
	strcpy(v.signer, "AC41FE3C978C0C53F0EF39BE03DF467CD8144DA0");
	assert_true(check_verdict_encode(&v, buf));
	assert_int_equal(check_verdict_parse(buf, sizeof(buf), &back, &e), 0);
	assert_string_equal(back.signer, v.signer);
	strcpy(v.signer, "AC41FE3C978C0C53F0EF39BE03DF467CD8144DA0AC41FE3C978C0C53F0EF39BE");
	assert_true(check_verdict_encode(&v, buf));
	assert_int_equal(check_verdict_parse(buf, sizeof(buf), &back, &e), 0);
	verdict_refused(&v, signer_at + 64, 'A', "signer");          /* no terminating NUL */
	strcpy(v.signer, "AC41FE3C978C0C53F0EF39BE03DF467CD8144DA0");
	verdict_refused(&v, signer_at, 'a', "signer");               /* lower case */
	verdict_refused(&v, signer_at + 40, 'A', "signer");          /* 41 digits */
	verdict_refused(&v, signer_at + 39, '\0', "signer");         /* 39 digits */
	verdict_refused(&v, signer_at + 50, 'A', "signer");          /* padding */
	verdict_refused(&v, signer_at + 3, 'G', "signer");
	v.outcome = CHECK_REFUSED;
	strcpy(v.message, "refused");
	verdict_refused(&v, SIZE_MAX, 0, "no pass");
}

/* What postern-check.socket does for one connection: accept, exec the checker on it. */
static pid_t activator(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l = socket(AF_UNIX, SOCK_SEQPACKET, 0), c;
	pid_t pid;

	assert_true(l >= 0);
	strcpy(a.sun_path, path);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	pid = fork();
	assert_true(pid >= 0);
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

static int check_with_real_checker(const struct maker_spec *spec, struct check_verdict *v,
				   struct pst_err *e)
{
	char dir[] = "/tmp/test-check-XXXXXX", path[64];
	const struct release_name rn = { .module = "demo", .version = "1.0",
					 .compression = RELEASE_XZ };
	struct upload_staged st;
	int up = maker_build(spec), staging = maker_memfd("staging"), status, rc;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/check.sock", dir);
	pid = activator(path);
	assert_int_equal(upload_stage(up, staging, limits.max_compressed, &st, e), 0);
	rc = check_spawn_upload(path, staging, &rn, &limits, st.size, NULL, v, e);
	/* Only the verdict counts: how the checker ends after it is not the daemon's
	 * concern (under ASan, the sanitizer's own exit-time calls break the sandbox). */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	rmdir(dir);
	close(up);
	close(staging);
	return rc;
}

static void test_real_checker_passes(void **state)
{
	const struct maker_member m[] = {
		{ "demo-1.0/", 'd', NULL, NULL, 0 },
		{ "demo-1.0/NEWS", 'f', NULL, "Version 1.0\n\x1b[2Jescaped\n", 0 },
		{ "demo-1.0/README", 'f', NULL, "content\n", 0 },
	};
	struct maker_spec spec = { m, N(m), 0, 0, { ARCHIVE_FILTER_XZ } };
	static struct check_verdict v;
	struct pst_err e;
	int rc;

	(void)state;
	rc = check_with_real_checker(&spec, &v, &e);
	if (rc != 0)
		fail_msg("refused: %s", e.msg);
	assert_int_equal(v.outcome, CHECK_PASS);
	assert_int_equal(v.members, 3);
	assert_true(v.has_news);
	assert_string_equal(v.news, "Version 1.0\n?[2Jescaped\n");
}

static void test_real_checker_refuses(void **state)
{
	const struct maker_member m[] = {
		{ "demo-1.0/", 'd', NULL, NULL, 0 },
		{ "demo-1.0/../escape", 'f', NULL, "x\n", 0 },
	};
	struct maker_spec spec = { m, N(m), 0, 0, { ARCHIVE_FILTER_XZ } };
	static struct check_verdict v;
	struct pst_err e;

	(void)state;
	assert_int_equal(check_with_real_checker(&spec, &v, &e), -EBADMSG);
	assert_non_null(strstr(e.msg, "'..'"));
	assert_int_equal(v.outcome, CHECK_REFUSED);
}

/* A request with nfds copies of fd, straight to a real checker; its verdict. */
static void raw_request(const struct check_request *r, int fd, size_t nfds, struct check_verdict *v)
{
	char dir[] = "/tmp/test-check-XXXXXX", path[64];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	static unsigned char buf[CHECK_VERDICT_SIZE];
	union { struct cmsghdr h; char b[CMSG_SPACE(5 * sizeof(int))]; } ctl;
	struct iovec iov = { buf, CHECK_REQUEST_SIZE };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			    .msg_controllen = CMSG_SPACE(nfds * sizeof(int)) };
	struct cmsghdr *c;
	struct pst_err e;
	int fds[5] = { fd, fd, fd, fd, fd }, s, status;
	ssize_t n;
	pid_t pid;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/check.sock", dir);
	pid = activator(path);
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	strcpy(a.sun_path, path);
	assert_int_equal(connect(s, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_true(check_request_encode(r, buf));
	memset(ctl.b, 0, sizeof(ctl.b));
	c = CMSG_FIRSTHDR(&m);
	assert_non_null(c);
	if (c == NULL)
		return;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	assert_int_equal(sendmsg(s, &m, 0), CHECK_REQUEST_SIZE);
	n = recv(s, buf, sizeof(buf), 0);
	assert_int_equal(n, CHECK_VERDICT_SIZE);
	assert_int_equal(check_verdict_parse(buf, (size_t)n, v, &e), 0);
	close(s);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	unlink(path);
	rmdir(dir);
}

static void test_checker_counts_fds(void **state)
{
	static struct check_verdict v;
	struct check_request r;
	int fd = memfd_with("abc", 3), ro = upload_stage_reopen_readonly(fd, NULL);
	const struct { enum check_signature_kind kind; size_t nfds; } wrong[] = {
		{ CHECK_SIG_NONE, 2 }, { CHECK_SIG_NONE, 3 }, { CHECK_SIG_FILE, 1 },
		{ CHECK_SIG_FILE, 2 }, { CHECK_SIG_TAR, 4 }, { CHECK_SIG_TAR, 5 },
	};
	size_t i;

	(void)state;
	a_request(&r);
	for (i = 0; i < N(wrong); i++) {
		r.sig_kind = wrong[i].kind;
		raw_request(&r, ro, wrong[i].nfds, &v);
		assert_int_equal(v.outcome, CHECK_INTERNAL);
		if (strstr(v.message, "fd") == NULL)
			fail_msg("%zu fds for kind %d: '%s'", wrong[i].nfds, wrong[i].kind, v.message);
	}
	r.sig_kind = CHECK_SIG_FILE;
	raw_request(&r, fd, 3, &v);      /* read-write: refused */
	assert_int_equal(v.outcome, CHECK_INTERNAL);
	assert_non_null(strstr(v.message, "read-only"));
	close(ro);
	close(fd);
}

static void test_no_checker_is_an_internal_error(void **state)
{
	const struct release_name rn = { .module = "demo", .version = "1.0" };
	static struct check_verdict v;
	struct pst_err e;
	int staging = memfd_with("abc", 3);
	int rc = check_spawn_upload("/nonexistent/check.sock", staging, &rn, &limits, 3, NULL, &v, &e);

	(void)state;
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(e.msg, "cannot reach the archive checker"));
	close(staging);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage_copies_and_hashes),
		cmocka_unit_test(test_stage_cap),
		cmocka_unit_test(test_reopen_is_read_only),
		cmocka_unit_test(test_request_round_trip_and_refusals),
		cmocka_unit_test(test_verdict_round_trip_and_refusals),
		cmocka_unit_test(test_verdict_signer),
		cmocka_unit_test(test_checker_counts_fds),
		cmocka_unit_test(test_real_checker_passes),
		cmocka_unit_test(test_real_checker_refuses),
		cmocka_unit_test(test_no_checker_is_an_internal_error),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_check_boundary /path/to/postern-check\n");
		return 2;
	}
	checker = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
