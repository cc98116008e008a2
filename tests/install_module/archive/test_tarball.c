/*
 * The one-pass tarball check: every refusal rule with a tarball crafted
 * here, the caps, and a good tarball read to its last byte. Every run also
 * checks that the upload itself was not changed. (Hashing and the staging
 * copy are the daemon's: test_installd_parts.c.)
 */
#include <archive.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tarball.h"
#include "tarball_maker.h"
#include "tarball_run.h"
#include "text_show.h"

#define MiB (1024 * 1024)

static void run_free(struct run *r)
{
	free(r->upload);
}

/* Build spec, check it as demo-1.0.<c>, and verify the upload was left alone. */
static void run_check(const struct maker_spec *spec, enum release_compression c,
		      const struct upload_limits *lim, struct run *r)
{
	struct tarball_expect x = { "demo", "1.0", c, lim != NULL ? lim : &run_defaults };
	int upload = maker_build(spec);
	unsigned char *after;
	size_t after_len;

	memset(r, 0, sizeof(*r));
	r->upload = maker_slurp(upload, &r->upload_len);
	r->rc = tarball_check(upload, &x, &r->res, &r->e);
	after = maker_slurp(upload, &after_len);
	assert_int_equal(after_len, r->upload_len);
	assert_memory_equal(after, r->upload, after_len);
	free(after);
	close(upload);
}

static void expect_refused(const struct maker_spec *spec, enum release_compression c,
			   const struct upload_limits *lim, int rc, const char *why)
{
	struct run r;

	run_check(spec, c, lim, &r);
	if (r.rc != rc || strstr(r.e.msg, why) == NULL)
		fail_msg("got %d '%s', want %d '%s'", r.rc, r.rc != 0 ? r.e.msg : "", rc, why);
	run_free(&r);
}

static void expect_accepted(const struct maker_spec *spec, enum release_compression c,
			    const struct upload_limits *lim, struct run *r)
{
	run_check(spec, c, lim, r);
	if (r->rc != 0)
		fail_msg("refused: %d %s", r->rc, r->e.msg);
	assert_int_equal(r->res.compressed_size, r->upload_len);
}

/* Refuse one small archive, built from members, in xz. */
static void refuse_members(const struct maker_member *m, size_t n, const char *why)
{
	struct maker_spec spec = { m, n, 0, 0, { ARCHIVE_FILTER_XZ } };

	expect_refused(&spec, RELEASE_XZ, NULL, -EBADMSG, why);
}

static const struct maker_member small[] = SMALL_MEMBERS;

static char *news_text(unsigned lines)
{
	char *s = calloc(lines, 16);
	size_t len = 0;
	unsigned i;

	assert_non_null(s);
	for (i = 1; i <= lines; i++)
		len += (size_t)sprintf(s + len, "line %u\n", i);
	return s;
}

static void test_good_tarball(void **state)
{
	char *news = news_text(60), *cut;
	const struct maker_member m[] = {
		TOP,
		{ "demo-1.0/NEWS", 'f', NULL, news, 0 },
		{ "demo-1.0/src/", 'd', NULL, NULL, 0 },
		FILE_("demo-1.0/src/main.c"),
		{ "demo-1.0/src/NEWS", 'l', "../NEWS", NULL, 0 },
		{ "demo-1.0/src/same", 'l', "./main.c", NULL, 0 },
		{ "demo-1.0/top", 'l', ".", NULL, 0 },
		{ "demo-1.0/main-again.c", 'h', "demo-1.0/src/main.c", NULL, 0 },
		FILE_("demo-1.0/po/caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.txt"),
	};
	struct maker_spec spec = { m, N(m), 0, 0, { ARCHIVE_FILTER_XZ } };
	struct run r;

	(void)state;
	expect_accepted(&spec, RELEASE_XZ, NULL, &r);
	assert_int_equal(r.res.members, N(m));
	assert_int_equal(r.res.uncompressed_size, maker_last_tar_size());
	assert_true(r.res.has_news);
	cut = strstr(news, "line 41\n");
	assert_non_null(cut);
	*cut = '\0';
	assert_string_equal(r.res.news_head, news);
	run_free(&r);
	free(news);
}

static void test_each_compression(void **state)
{
	static const struct {
		enum release_compression c;
		int filter;
	} table[] = {
		{ RELEASE_XZ, ARCHIVE_FILTER_XZ },
		{ RELEASE_GZ, ARCHIVE_FILTER_GZIP },
		{ RELEASE_BZ2, ARCHIVE_FILTER_BZIP2 },
		{ RELEASE_ZST, ARCHIVE_FILTER_ZSTD },
	};
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < N(table); i++) {
		struct maker_spec spec = { small, N(small), 0, 0, { table[i].filter } };

		expect_accepted(&spec, table[i].c, NULL, &r);
		assert_int_equal(r.res.members, 2);
		assert_false(r.res.has_news);
		assert_string_equal(r.res.news_head, "");
		run_free(&r);
	}
}

static void test_wrong_compression(void **state)
{
	struct maker_spec gz = { small, N(small), 0, 0, { ARCHIVE_FILTER_GZIP } };
	struct maker_spec plain = { small, N(small), 0, 0, { ARCHIVE_FILTER_NONE } };
	struct maker_spec twice = { small, N(small), 0, 0,
				    { ARCHIVE_FILTER_GZIP, ARCHIVE_FILTER_XZ } };
	struct maker_spec bz2 = { small, N(small), 0, 0, { ARCHIVE_FILTER_BZIP2 } };

	(void)state;
	expect_refused(&gz, RELEASE_XZ, NULL, -EBADMSG,
		       "compressed with gzip, but its name ends in .tar.xz");
	expect_refused(&bz2, RELEASE_ZST, NULL, -EBADMSG,
		       "compressed with bzip2, but its name ends in .tar.zst");
	expect_refused(&plain, RELEASE_GZ, NULL, -EBADMSG, "the file is not compressed");
	expect_refused(&twice, RELEASE_XZ, NULL, -EBADMSG, "compressed twice (gzip inside xz)");
}

static void test_unreadable(void **state)
{
	char *text = news_text(40000);
	const struct maker_member long_file[] = { TOP, { "demo-1.0/long", 'f', NULL, text, 0 } };
	struct maker_spec spec = { small, N(small), 0, 0, { ARCHIVE_FILTER_XZ } };
	struct maker_spec long_spec = { long_file, N(long_file), 0, 0, { ARCHIVE_FILTER_XZ } };
	int fd, cut, i;
	unsigned char *buf;
	size_t len;
	struct run r;

	(void)state;
	/* Not a tar inside the xz: a tar whose first 600 bytes are gone. */
	fd = maker_build(&(struct maker_spec){ small, N(small), 0, 0, { ARCHIVE_FILTER_NONE } });
	buf = maker_slurp(fd, &len);
	close(fd);
	fd = maker_memfd("garbage-tar");
	assert_int_equal(write(fd, buf + 600, len - 600), (ssize_t)(len - 600));
	free(buf);
	fd = maker_compress(fd, ARCHIVE_FILTER_XZ);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	check_fd(fd, &r);
	assert_int_equal(r.rc, -EBADMSG);
	assert_non_null(strstr(r.e.msg, "not a readable tar archive"));

	/* xz streams cut in half: in the header, and in the middle of a member. */
	for (i = 0; i < 2; i++) {
		fd = maker_build(i == 0 ? &spec : &long_spec);
		buf = maker_slurp(fd, &len);
		close(fd);
		fd = maker_memfd("cut");
		cut = (int)len / 2;
		assert_int_equal(write(fd, buf, (size_t)cut), cut);
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		free(buf);
		check_fd(fd, &r);
		assert_int_equal(r.rc, -EBADMSG);
		assert_non_null(strstr(r.e.msg, "the compressed data is damaged, cut short or "
					   "followed by other data"));
	}

	/* A tar with no member at all, only its end-of-archive blocks. */
	check_fd(maker_build(&(struct maker_spec){ small, 0, 0, 0, { ARCHIVE_FILTER_XZ } }), &r);
	assert_int_equal(r.rc, -EBADMSG);
	assert_non_null(strstr(r.e.msg, "the tar archive is empty"));

	/* An empty file. */
	check_fd(maker_memfd("empty"), &r);
	assert_int_equal(r.rc, -EBADMSG);
	assert_non_null(strstr(r.e.msg, "not compressed"));
	free(text);
}

static void test_member_outside_top(void **state)
{
	const struct maker_member other[] = { TOP, FILE_("other-1.0/README") };
	const struct maker_member prefix[] = { TOP, FILE_("demo-1.0x/README") };
	const struct maker_member version[] = { FILE_("demo-1.1/README") };
	const struct maker_member dot[] = { FILE_("./demo-1.0/README") };
	const struct maker_member bare[] = { FILE_("README") };

	(void)state;
	refuse_members(other, N(other), "its name is not inside demo-1.0/");
	refuse_members(prefix, N(prefix), "its name is not inside demo-1.0/");
	refuse_members(version, N(version), "its name is not inside demo-1.0/");
	refuse_members(dot, N(dot), "'.' components are not allowed");
	refuse_members(bare, N(bare), "its name is not inside demo-1.0/");
}

static void test_absolute_and_dotdot(void **state)
{
	const struct maker_member abs[] = { TOP, FILE_("/etc/cron.d/evil") };
	const struct maker_member dotdot[] = { TOP, FILE_("demo-1.0/../../evil") };
	const struct maker_member inner[] = { TOP, FILE_("demo-1.0/a/../b") };

	(void)state;
	refuse_members(abs, N(abs), "absolute path");
	refuse_members(dotdot, N(dotdot), "'..' components are not allowed");
	refuse_members(inner, N(inner), "'..' components are not allowed");
}

static void test_special_files(void **state)
{
	const struct maker_member chr[] = { TOP, { "demo-1.0/null", 'c', NULL, NULL, 0 } };
	const struct maker_member blk[] = { TOP, { "demo-1.0/sda", 'b', NULL, NULL, 0 } };
	const struct maker_member fifo[] = { TOP, { "demo-1.0/pipe", 'p', NULL, NULL, 0 } };

	(void)state;
	refuse_members(chr, N(chr), "member demo-1.0/null is a character device");
	refuse_members(blk, N(blk), "member demo-1.0/sda is a block device");
	refuse_members(fifo, N(fifo), "member demo-1.0/pipe is a FIFO");
}

static void test_escaping_symlinks(void **state)
{
	const struct maker_member up[] = { TOP, { "demo-1.0/l", 'l', "../x", NULL, 0 } };
	const struct maker_member deep[] = {
		TOP, { "demo-1.0/a/b/l", 'l', "../../../etc/passwd", NULL, 0 } };
	const struct maker_member abs[] = { TOP, { "demo-1.0/l", 'l', "/etc/passwd", NULL, 0 } };
	const struct maker_member mid[] = { TOP, { "demo-1.0/a/l", 'l', "b/../../x", NULL, 0 } };
	const struct maker_member through[] = {
		TOP,
		{ "demo-1.0/sub/", 'd', NULL, NULL, 0 },
		{ "demo-1.0/d", 'l', "sub", NULL, 0 },
		FILE_("demo-1.0/d/evil"),
	};
	const struct maker_member dir_to_top[] = {
		TOP,
		{ "demo-1.0/d", 'l', ".", NULL, 0 },
		{ "demo-1.0/d/l", 'l', "../x", NULL, 0 },
	};

	(void)state;
	refuse_members(up, N(up), "symlink target ../x points outside the top directory");
	refuse_members(deep, N(deep), "points outside the top directory");
	refuse_members(abs, N(abs), "its link target is an absolute path");
	refuse_members(mid, N(mid), "has '..' after a directory name");
	refuse_members(through, N(through), "goes through the symlink demo-1.0/d");
	refuse_members(dir_to_top, N(dir_to_top), "goes through the symlink demo-1.0/d");
}

static void test_escaping_hardlinks(void **state)
{
	const struct maker_member abs[] = { TOP, { "demo-1.0/h", 'h', "/etc/shadow", NULL, 0 } };
	const struct maker_member dotdot[] = {
		TOP, { "demo-1.0/h", 'h', "demo-1.0/../x", NULL, 0 } };
	const struct maker_member other[] = { TOP, { "demo-1.0/h", 'h', "other/x", NULL, 0 } };
	const struct maker_member to_symlink[] = {
		TOP,
		{ "demo-1.0/a/", 'd', NULL, NULL, 0 },
		{ "demo-1.0/a/l", 'l', "../x", NULL, 0 },
		{ "demo-1.0/h", 'h', "demo-1.0/a/l", NULL, 0 },
	};

	(void)state;
	refuse_members(abs, N(abs), "its hard link target is an absolute path");
	refuse_members(dotdot, N(dotdot), "'..' components are not allowed");
	refuse_members(other, N(other), "its hard link target is not inside demo-1.0/");
	refuse_members(to_symlink, N(to_symlink), "goes through the symlink demo-1.0/a/l");
}

static void test_trailing_data(void **state)
{
	struct maker_spec over = { small, N(small), 12 * 1024, 0, { ARCHIVE_FILTER_XZ } };
	struct maker_spec under = { small, N(small), 4 * 1024, 0, { ARCHIVE_FILTER_XZ } };
	struct maker_spec gz_over = { small, N(small), 0, 11 * 1024, { ARCHIVE_FILTER_GZIP } };
	struct maker_spec gz_under = { small, N(small), 0, 2 * 1024, { ARCHIVE_FILTER_GZIP } };
	struct run r;

	(void)state;
	expect_refused(&over, RELEASE_XZ, NULL, -EBADMSG, "bytes after the end of the tar archive");
	expect_accepted(&under, RELEASE_XZ, NULL, &r);
	assert_int_equal(r.res.uncompressed_size, maker_last_tar_size());
	run_free(&r);
	expect_refused(&gz_over, RELEASE_GZ, NULL, -EBADMSG, "after the end of the tar archive");
	expect_accepted(&gz_under, RELEASE_GZ, NULL, &r);
	run_free(&r);
}

static void test_caps(void **state)
{
	const struct maker_member many[] = {
		TOP, FILE_("demo-1.0/a"), FILE_("demo-1.0/b"), FILE_("demo-1.0/c"),
	};
	const struct maker_member big[] = { TOP, { "demo-1.0/zeros", 'f', NULL, NULL, 8 * MiB } };
	const struct maker_member half[] = { TOP, { "demo-1.0/zeros", 'f', NULL, NULL, MiB / 2 } };
	struct maker_spec spec_many = { many, N(many), 0, 0, { ARCHIVE_FILTER_XZ } };
	struct maker_spec spec_big = { big, N(big), 0, 0, { ARCHIVE_FILTER_XZ } };
	struct maker_spec spec_half = { half, N(half), 0, 0, { ARCHIVE_FILTER_XZ } };
	struct upload_limits lim = run_defaults;
	struct run r;

	(void)state;
	lim.max_members = 3;
	expect_refused(&spec_many, RELEASE_XZ, &lim, -EFBIG, "more than 3 members");
	lim.max_members = 4;
	expect_accepted(&spec_many, RELEASE_XZ, &lim, &r);
	run_free(&r);

	lim = run_defaults;
	lim.max_compressed = 100;
	expect_refused(&spec_many, RELEASE_XZ, &lim, -EFBIG, "larger than the limit of 100 bytes");

	lim = run_defaults;
	lim.max_uncompressed = 64 * 1024;
	lim.max_ratio = 1000000;
	expect_refused(&spec_big, RELEASE_XZ, &lim, -EFBIG,
		       "the tar inside is larger than the limit of 65536 bytes");

	/* 8 MiB of zeros compress more than 100:1; half a MiB is under the floor. */
	expect_refused(&spec_big, RELEASE_XZ, NULL, -EFBIG, "more than 100 times larger");
	expect_accepted(&spec_half, RELEASE_XZ, NULL, &r);
	assert_true(r.res.uncompressed_size / r.res.compressed_size > 100);
	run_free(&r);
}

static void test_limits_must_be_set(void **state)
{
	struct maker_spec spec = { small, N(small), 0, 0, { ARCHIVE_FILTER_XZ } };
	struct upload_limits lim = run_defaults;

	(void)state;
	lim.time_limit = 0;
	expect_refused(&spec, RELEASE_XZ, &lim, -EINVAL, "limits are not set");
}

struct trickle {
	int fd;
	const unsigned char *buf;
	size_t len;
};

/* A slow uploader: one byte every 200 ms, until the reader goes away. */
static void *trickle_write(void *arg)
{
	const struct timespec pause = { 0, 200 * 1000 * 1000 };
	struct trickle *t = arg;
	size_t i;

	for (i = 0; i < t->len; i++) {
		if (write(t->fd, t->buf + i, 1) != 1)
			break;
		nanosleep(&pause, NULL);
	}
	close(t->fd);
	return NULL;
}

static void test_time_limit(void **state)
{
	struct maker_spec spec = { small, N(small), 0, 0, { ARCHIVE_FILTER_XZ } };
	struct upload_limits lim = run_defaults;
	struct tarball_expect x = { "demo", "1.0", RELEASE_XZ, &lim };
	struct tarball_result res;
	struct trickle t;
	struct pst_err e;
	pthread_t writer;
	int fd = maker_build(&spec), pipefd[2];
	unsigned char *file;
	size_t len;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	file = maker_slurp(fd, &len);
	close(fd);
	assert_int_equal(pipe(pipefd), 0);
	t = (struct trickle){ pipefd[1], file, len };
	assert_int_equal(pthread_create(&writer, NULL, trickle_write, &t), 0);
	lim.time_limit = 1;
	assert_int_equal(tarball_check(pipefd[0], &x, &res, &e), -ETIMEDOUT);
	assert_non_null(strstr(e.msg, "took longer than the limit of 1 seconds"));
	close(pipefd[0]);
	pthread_join(writer, NULL);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_tarball),
		cmocka_unit_test(test_each_compression),
		cmocka_unit_test(test_wrong_compression),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_member_outside_top),
		cmocka_unit_test(test_absolute_and_dotdot),
		cmocka_unit_test(test_special_files),
		cmocka_unit_test(test_escaping_symlinks),
		cmocka_unit_test(test_escaping_hardlinks),
		cmocka_unit_test(test_trailing_data),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_limits_must_be_set),
		cmocka_unit_test(test_time_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
