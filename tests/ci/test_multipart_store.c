/*
 * multipart_store through a real libmicrohttpd connection (mhd_pair.h), in
 * the chunks the test means.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "mhd_pair.h"

#define BOUNDARY "xYzzYtestBoundary42"
#define BIG 6000

static struct mhd_pair pair;

struct buf {
	char *p;
	size_t len;
};

static void put(struct buf *b, const void *data, size_t len)
{
	b->p = realloc(b->p, b->len + len + 1);
	assert_non_null(b->p);
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void part(struct buf *b, const char *name, const char *filename, const void *data,
		 size_t len)
{
	char h[1024];

	if (filename != NULL)
		snprintf(h, sizeof(h), "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"%s\"; "
			 "filename=\"%s\"\r\nContent-Type: application/octet-stream\r\n\r\n",
			 name, filename);
	else
		snprintf(h, sizeof(h), "--" BOUNDARY "\r\nContent-Disposition: form-data; "
			 "name=\"%s\"\r\n\r\n", name);
	puts_(b, h);
	put(b, data, len);
	puts_(b, "\r\n");
}

static void end(struct buf *b)
{
	puts_(b, "--" BOUNDARY "--\r\n");
}

/* The request for body b (freed), with content type ct. */
static int post(struct buf *b, const char *ct, size_t chunk)
{
	struct buf req = { NULL, 0 };
	char h[512];
	int status;

	snprintf(h, sizeof(h), "POST /v1/release HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
		 "Content-Type: %s\r\nContent-Length: %zu\r\n\r\n", ct, b->len);
	puts_(&req, h);
	put(&req, b->p, b->len);
	status = mhd_pair_exchange(&pair, req.p, req.len, chunk);
	free(req.p);
	free(b->p);
	b->p = NULL;
	b->len = 0;
	return status;
}

static int post_form(struct buf *b, size_t chunk)
{
	return post(b, "multipart/form-data; boundary=" BOUNDARY, chunk);
}

/* Nothing in the staging directory: anonymous files never get a name. */
static void assert_staging_empty(void)
{
	DIR *d = opendir(pair.staging_path);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	assert_int_equal(n, 0);
}

static void run_reset(void)
{
	multipart_store_free(pair.run.store);
	memset(&pair.run, 0, sizeof(pair.run));
	pair.max_body = pair.max_file = 1 << 20;
	assert_staging_empty();
}

static void assert_file(const struct multipart_file *f, const char *name, const void *data,
			size_t len)
{
	unsigned char sha[32];
	char *back = malloc(len + 1);
	unsigned int slen = 0;

	assert_non_null(f);
	assert_non_null(back);
	assert_string_equal(f->name, name);
	assert_int_equal(f->size, len);
	assert_int_equal(read(f->fd, back, len + 1), (ssize_t)len);
	assert_memory_equal(back, data, len);
	assert_int_equal(EVP_Digest(data, len, sha, &slen, EVP_sha256(), NULL), 1);
	assert_memory_equal(f->sha256, sha, sizeof(sha));
	free(back);
}

/* Bytes that look like the framing: CRLF, dashes, part of the boundary. */
static void hostile_bytes(unsigned char *p, size_t len)
{
	static const char near[] = "\r\n--" BOUNDARY;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + 7);
	for (i = 100; i + sizeof(near) < len; i += 997)
		memcpy(p + i, near, sizeof(near) - 2);
}

static void two_files_in_small_chunks(void **state)
{
	static unsigned char tar[BIG];
	static const char sig[] = "-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP SIGNATURE-----\n";
	struct buf b = { NULL, 0 };

	(void)state;
	hostile_bytes(tar, sizeof(tar));
	part(&b, "file", "gtk-4.16.0.tar.xz", tar, sizeof(tar));
	part(&b, "file", "gtk-4.16.0.tar.xz.asc", sig, strlen(sig));
	end(&b);
	assert_int_equal(post_form(&b, 7), 200);
	assert_int_equal(pair.run.rc, 0);
	assert_int_equal(multipart_store_count(pair.run.store), 2);
	assert_file(multipart_store_file(pair.run.store, 0), "gtk-4.16.0.tar.xz", tar, sizeof(tar));
	assert_file(multipart_store_file(pair.run.store, 1), "gtk-4.16.0.tar.xz.asc", sig, strlen(sig));
	assert_null(multipart_store_file(pair.run.store, 2));
	run_reset();
}

static void one_file_in_one_piece(void **state)
{
	static const char data[] = "hello\r\n--not-the-boundary\r\n";
	struct buf b = { NULL, 0 };

	(void)state;
	part(&b, "file", "a-1.0.tar.gz", data, strlen(data));
	end(&b);
	assert_int_equal(post_form(&b, 1 << 16), 200);
	assert_int_equal(multipart_store_count(pair.run.store), 1);
	assert_file(multipart_store_file(pair.run.store, 0), "a-1.0.tar.gz", data, strlen(data));
	run_reset();
}

/* A Content-Length over the cap is refused before the store exists. */
static void oversize_refused_before_reading(void **state)
{
	static unsigned char tar[BIG];
	struct buf b = { NULL, 0 };

	(void)state;
	pair.max_body = 1000;
	part(&b, "file", "gtk-4.16.0.tar.xz", tar, sizeof(tar));
	end(&b);
	assert_int_equal(post_form(&b, 1 << 16), 413);
	assert_int_equal(pair.run.rc, -EFBIG);
	assert_null(pair.run.store);
	assert_non_null(strstr(pair.run.e.msg, "larger than"));
	run_reset();
}

/* A file over its cap in a body within the cap: refused as it arrives. */
static void oversize_file_refused(void **state)
{
	static unsigned char tar[BIG];
	struct buf b = { NULL, 0 };

	(void)state;
	pair.max_file = BIG - 1;
	part(&b, "file", "gtk-4.16.0.tar.xz", tar, sizeof(tar));
	end(&b);
	assert_int_equal(post_form(&b, 512), 413);
	assert_int_equal(pair.run.rc, -EFBIG);
	assert_int_equal(multipart_store_count(pair.run.store), 0);
	run_reset();

	pair.max_file = BIG;
	part(&b, "file", "gtk-4.16.0.tar.xz", tar, sizeof(tar));
	end(&b);
	assert_int_equal(post_form(&b, 512), 200);
	run_reset();
}

static void too_many_files(void **state)
{
	struct buf b = { NULL, 0 };
	char name[32];
	int i;

	(void)state;
	for (i = 0; i <= MULTIPART_FILES_MAX; i++) {
		snprintf(name, sizeof(name), "f%d.tar.xz", i);
		part(&b, "file", name, "x", 1);
	}
	end(&b);
	assert_int_equal(post_form(&b, 512), 413);
	assert_int_equal(pair.run.rc, -EFBIG);
	assert_int_equal(multipart_store_count(pair.run.store), 0);
	run_reset();
}

static void other_part_name_refused(void **state)
{
	struct buf b = { NULL, 0 };

	(void)state;
	part(&b, "file", "a-1.0.tar.gz", "x", 1);
	part(&b, "comment", NULL, "hi", 2);
	end(&b);
	assert_int_equal(post_form(&b, 64), 400);
	assert_int_equal(pair.run.rc, -EBADMSG);
	assert_non_null(strstr(pair.run.e.msg, "named \"file\""));
	assert_int_equal(multipart_store_count(pair.run.store), 0);
	run_reset();

	part(&b, "files", "a-1.0.tar.gz", "x", 1);
	end(&b);
	assert_int_equal(post_form(&b, 64), 400);
	run_reset();
}

static void bad_file_names_refused(void **state)
{
	static const char *const bad[] = {
		"../a-1.0.tar.gz", "a/b.tar.gz", ".hidden.tar.gz", "..", "tab\there.tar.gz",
		"esc\x1b[31m.tar.gz", "",
	};
	char longname[300];
	struct buf b = { NULL, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		part(&b, "file", bad[i], "x", 1);
		end(&b);
		assert_int_equal(post_form(&b, 64), 422);
		assert_int_equal(pair.run.rc, -EINVAL);
		assert_int_equal(multipart_store_count(pair.run.store), 0);
		run_reset();
	}
	memset(longname, 'a', 256);
	strcpy(longname + 256, ".gz");
	part(&b, "file", longname, "x", 1);
	end(&b);
	assert_int_equal(post_form(&b, 64), 422);
	run_reset();

	part(&b, "file", NULL, "x", 1);    /* a file part without a file name */
	end(&b);
	assert_int_equal(post_form(&b, 64), 422);
	run_reset();
}

static void duplicate_name_refused(void **state)
{
	struct buf b = { NULL, 0 };

	(void)state;
	part(&b, "file", "a-1.0.tar.gz", "x", 1);
	part(&b, "file", "a-1.0.tar.gz", "y", 1);
	end(&b);
	assert_int_equal(post_form(&b, 64), 400);
	assert_int_equal(pair.run.rc, -EBADMSG);
	run_reset();
}

static void malformed_refused(void **state)
{
	struct buf b = { NULL, 0 };

	(void)state;
	/* No closing boundary: the body ends inside a part. */
	part(&b, "file", "a-1.0.tar.gz", "x", 1);
	assert_int_equal(post_form(&b, 64), 400);
	assert_int_equal(pair.run.rc, -EBADMSG);
	assert_int_equal(multipart_store_count(pair.run.store), 0);
	run_reset();

	/* Not multipart at all. */
	puts_(&b, "file=a-1.0.tar.gz");
	assert_int_equal(post(&b, "application/x-www-form-urlencoded", 64), 400);
	assert_null(pair.run.store);
	run_reset();

	/* multipart without a boundary. */
	part(&b, "file", "a-1.0.tar.gz", "x", 1);
	end(&b);
	assert_int_equal(post(&b, "multipart/form-data", 64), 400);
	run_reset();

	/* No part at all. */
	end(&b);
	assert_int_equal(post_form(&b, 64), 400);
	run_reset();

	/* A part with a transfer encoding the store does not decode. */
	puts_(&b, "--" BOUNDARY "\r\nContent-Disposition: form-data; name=\"file\"; "
	      "filename=\"a-1.0.tar.gz\"\r\nContent-Transfer-Encoding: base64\r\n\r\neA==\r\n");
	end(&b);
	assert_int_equal(post_form(&b, 64), 400);
	run_reset();
}

static int setup(void **state)
{
	(void)state;
	return mhd_pair_start(&pair, 1 << 20, 1 << 20);
}

static int teardown(void **state)
{
	(void)state;
	mhd_pair_stop(&pair);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_files_in_small_chunks),
		cmocka_unit_test(one_file_in_one_piece),
		cmocka_unit_test(oversize_refused_before_reading),
		cmocka_unit_test(oversize_file_refused),
		cmocka_unit_test(too_many_files),
		cmocka_unit_test(other_part_name_refused),
		cmocka_unit_test(bad_file_names_refused),
		cmocka_unit_test(duplicate_name_refused),
		cmocka_unit_test(malformed_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
