/*
 * Tar headers that libarchive and GNU tar could read differently: each is
 * refused, so that what postern checked is what a user's tar extracts.
 * The archives are written block by block here, since no archiver makes
 * them on purpose.
 */
#include <archive.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tarball_maker.h"
#include "tarball_run.h"

static const struct maker_member small[] = SMALL_MEMBERS;

/* The rest of a small tar after the crafted blocks in fd, all in xz. */
static int finish_xz(int fd, unsigned char *rest, size_t rest_len)
{
	assert_int_equal(write(fd, rest, rest_len), (ssize_t)rest_len);
	free(rest);
	fd = maker_compress(fd, ARCHIVE_FILTER_XZ);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void refused_with(int upload, const char *why)
{
	struct run r;

	check_fd(upload, &r);
	if (r.rc != -EBADMSG || strstr(r.e.msg, why) == NULL)
		fail_msg("got %d '%s', want a refusal with '%s'", r.rc, r.e.msg, why);
}

/* what: the case, for the message when it is refused after all. */
static void accepted(int upload, const char *what)
{
	struct run r;

	check_fd(upload, &r);
	if (r.rc != 0)
		fail_msg("%s: %s", what, r.e.msg);
}

/* Fill in the checksum of the raw tar header block blk. */
static void raw_sum(unsigned char *blk)
{
	unsigned sum = 0;
	size_t i;

	memset(blk + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += blk[i];
	snprintf((char *)blk + 148, 8, "%06o", sum);
}

/* One raw tar header block of type type whose body (one block, or none) is body. */
static size_t raw_header(unsigned char *blk, const char *name, char type, const char *body)
{
	size_t len = body != NULL ? strlen(body) : 0;

	memset(blk, 0, 2 * 512);
	strcpy((char *)blk, name);
	memcpy(blk + 100, "0000644\0" "0000000\0" "0000000", 23);
	snprintf((char *)blk + 124, 12, "%011o", (unsigned)len & 0777u);
	memcpy(blk + 136, "00000000000", 11);
	blk[156] = (unsigned char)type;
	memcpy(blk + 257, "ustar\0" "00", 8);
	raw_sum(blk);
	if (body != NULL)
		memcpy(blk + 512, body, len);
	return body != NULL ? 2 * 512 : 512;
}

/*
 * In xz: the top directory, then the extension headers types[i] with
 * bodies[i], then a file member "demo-1.0/file", then a small tar.
 */
static int with_headers(const char *types, const char *const *bodies)
{
	unsigned char blk[2 * 512];
	int tar = maker_build(&(struct maker_spec){ small, N(small), 0, 0, { ARCHIVE_FILTER_NONE } });
	unsigned char *rest;
	size_t rest_len, n, i;
	int fd = maker_memfd("headers");

	rest = maker_slurp(tar, &rest_len);
	close(tar);
	n = raw_header(blk, "demo-1.0/", '5', NULL);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	for (i = 0; types[i] != '\0'; i++) {
		n = raw_header(blk, "././@LongLink", types[i], bodies[i]);
		assert_int_equal(write(fd, blk, n), (ssize_t)n);
	}
	n = raw_header(blk, "demo-1.0/file", '0', NULL);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	return finish_xz(fd, rest, rest_len);
}

/*
 * libarchive ignores pax global headers; GNU tar applies their path and
 * linkpath to every later member, which would rename members outside the
 * top directory or point symlinks anywhere. git archive's comment is fine.
 */
static void test_global_header(void **state)
{
	const char *path[] = { "20 path=other/thing\n" };
	const char *link[] = { "24 linkpath=/etc/passwd\n" };
	const char *bad[] = { "12 path=x\nxx" };
	const char *comment[] = { "52 comment=0123456789abcdef0123456789abcdef01234567\n" };

	(void)state;
	refused_with(with_headers("g", path), "pax global header that sets 'path'");
	refused_with(with_headers("g", link), "pax global header that sets 'linkpath'");
	refused_with(with_headers("g", bad), "");
	accepted(with_headers("g", comment), "git archive's global comment refused");
}

/*
 * A GNU long name ('L') before a pax header ('x') for the same member:
 * libarchive takes the long name, GNU tar the pax path (here outside the
 * top directory). The other order, and either kind alone, agree.
 */
static void test_long_name_and_pax(void **state)
{
	const char *long_then_pax[] = { "demo-1.0/fine", "22 path=other/escaped\n" };
	const char *pax_then_long[] = { "22 path=demo-1.0/okay\n", "demo-1.0/fine" };
	const char *long_global_pax[] = { "demo-1.0/fine", "12 mtime=10\n",
					  "22 path=other/escaped\n" };
	const char *two_long[] = { "demo-1.0/fine", "demo-1.0/fine" };

	(void)state;
	refused_with(with_headers("Lx", long_then_pax), "both a GNU long name or link and a pax extended header");
	refused_with(with_headers("Lgx", long_global_pax), "both a GNU long name or link and a pax extended header");
	accepted(with_headers("xL", pax_then_long), "pax then long name refused");
	accepted(with_headers("LL", two_long), "two long names refused");
}

/*
 * A member header with prefix "demo-1.0" and name ".bashrc" under the
 * magic magic, in xz: libarchive reads "demo-1.0/.bashrc" whenever the
 * magic starts with "ustar", GNU tar only under exactly "ustar\0".
 */
static int with_prefixed_member(const char *magic)
{
	unsigned char blk[2 * 512];
	int tar = maker_build(&(struct maker_spec){ small, N(small), 0, 0, { ARCHIVE_FILTER_NONE } });
	unsigned char *rest;
	size_t rest_len, n;
	int fd = maker_memfd("prefixed");

	rest = maker_slurp(tar, &rest_len);
	close(tar);
	n = raw_header(blk, "demo-1.0/", '5', NULL);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	n = raw_header(blk, ".bashrc", '0', NULL);
	memcpy(blk + 257, magic, 8);
	memcpy(blk + 345, "demo-1.0", 8);
	raw_sum(blk);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	return finish_xz(fd, rest, rest_len);
}

static void test_damaged_magic(void **state)
{

	(void)state;
	refused_with(with_prefixed_member("ustar 00"), "ustar magic is damaged");
	refused_with(with_prefixed_member("ustarX00"), "");
	accepted(with_prefixed_member("ustar\0" "00"), "a POSIX ustar prefix refused");
}

/*
 * "demo-1.0/data" whose size field is size (12 bytes), then a block that is
 * a header of ".bashrc", in xz. libarchive reads "0000001000X" as 512 bytes
 * of data; GNU tar calls the header damaged and reads .bashrc as a member.
 */
static int with_size_field(const char *size)
{
	unsigned char blk[2 * 512];
	int tar = maker_build(&(struct maker_spec){ small, N(small), 0, 0, { ARCHIVE_FILTER_NONE } });
	unsigned char *rest;
	size_t rest_len, n;
	int fd = maker_memfd("size-field");

	rest = maker_slurp(tar, &rest_len);
	close(tar);
	n = raw_header(blk, "demo-1.0/", '5', NULL);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	n = raw_header(blk, "demo-1.0/data", '0', NULL);
	memcpy(blk + 124, size, 12);
	raw_sum(blk);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	n = raw_header(blk, ".bashrc", '0', NULL);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	return finish_xz(fd, rest, rest_len);
}

static void test_numbers_not_plain(void **state)
{

	(void)state;
	refused_with(with_size_field("0000001000X"), "checksum or size is not a plain octal number");
	refused_with(with_size_field("+0000001000"), "");
	accepted(with_size_field("0000001000 "), "a size ending in a space refused");
}

/* In xz: the top directory, an old GNU sparse member (no holes) "demo-1.0/s", a small tar. */
static int with_old_sparse(void)
{
	unsigned char blk[2 * 512];
	int tar = maker_build(&(struct maker_spec){ small, N(small), 0, 0, { ARCHIVE_FILTER_NONE } });
	unsigned char *rest;
	size_t rest_len, n;
	int fd = maker_memfd("sparse");

	rest = maker_slurp(tar, &rest_len);
	close(tar);
	n = raw_header(blk, "demo-1.0/", '5', NULL);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	n = raw_header(blk, "demo-1.0/s", 'S', NULL);
	memcpy(blk + 257, "ustar  \0", 8);
	raw_sum(blk);
	assert_int_equal(write(fd, blk, n), (ssize_t)n);
	return finish_xz(fd, rest, rest_len);
}

/*
 * A pax size= that is not plain decimal: libarchive reads "512X" as 512
 * bytes of data, GNU tar ignores it and reads those blocks as headers.
 */
static void test_pax_size_not_decimal(void **state)
{
	const char *bad[] = { "13 size=512X\n" };
	const char *sparse[] = { "21 GNU.sparse.size=0\n" };
	const char *good[] = { "10 size=0\n" };
	struct run r;

	(void)state;
	refused_with(with_headers("x", bad), "size is not a plain decimal number");
	refused_with(with_headers("x", sparse), "sparse file");
	accepted(with_headers("x", good), "a plain pax size refused");
	check_fd(with_size_field("00000000000"), &r);
	if (r.rc == 0 || strstr(r.e.msg, "member .bashrc") == NULL)
		fail_msg("the hidden member was not what refused it: %s", r.e.msg);
	refused_with(with_old_sparse(), "old GNU sparse header");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_header),
		cmocka_unit_test(test_long_name_and_pax),
		cmocka_unit_test(test_damaged_magic),
		cmocka_unit_test(test_numbers_not_plain),
		cmocka_unit_test(test_pax_size_not_decimal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
