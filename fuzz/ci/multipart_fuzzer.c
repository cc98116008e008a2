/*
 * A CI upload's body on any bytes: the first byte picks the size of the
 * chunks the rest arrives in, as the body of a POST with a fixed boundary,
 * through a real libmicrohttpd connection (tests/ci/mhd_pair.h). No
 * crash, no leak, no internal error; a refusal keeps no file and says why;
 * what is kept is at most 16 files of plain names whose bytes are all on
 * disk and fit in the body.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mhd_pair.h"
#include "text.h"

#define BOUNDARY "fuzzBoundary"
#define BODY_MAX (64 * 1024)
/* Smaller than the body, so that the fuzzer meets the file cap too. */
#define FILE_MAX (16 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mhd_pair pair;
static bool started;

static void cleanup(void)
{
	mhd_pair_stop(&pair);
}

static void check(void)
{
	const struct multipart_file *f;
	uint64_t total = 0;
	struct stat st;
	size_t i, n;

	if (pair.run.rc != 0) {
		if (multipart_http_status(pair.run.rc) == 500 || pair.run.e.msg[0] == '\0' ||
		    (pair.run.store != NULL && multipart_store_count(pair.run.store) != 0))
			abort();
		return;
	}
	n = multipart_store_count(pair.run.store);
	if (n == 0 || n > MULTIPART_FILES_MAX)
		abort();
	for (i = 0; i < n; i++) {
		f = multipart_store_file(pair.run.store, i);
		if (f == NULL || f->name[0] == '.' || strchr(f->name, '/') != NULL ||
		    !str_is_printable(f->name) || fstat(f->fd, &st) != 0 ||
		    (uint64_t)st.st_size != f->size)
			abort();
		if (f->size > FILE_MAX)
			abort();
		total += f->size;
	}
	if (total > pair.run.body)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char head[] = "POST /v1/release HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n"
				   "Content-Type: multipart/form-data; boundary=" BOUNDARY "\r\n"
				   "Content-Length: %zu\r\n\r\n";
	char *req;
	size_t chunk, hl, body;

	if (size < 1 || size > BODY_MAX)
		return 0;
	if (!started) {
		if (mhd_pair_start(&pair, BODY_MAX, FILE_MAX) != 0)
			abort();
		started = true;
		atexit(cleanup);
	}
	chunk = 1 + data[0] % 97;
	body = size - 1;
	req = malloc(sizeof(head) + 24 + body);
	if (req == NULL)
		abort();
	hl = (size_t)snprintf(req, sizeof(head) + 24, head, body);
	memcpy(req + hl, data + 1, body);
	if (mhd_pair_exchange(&pair, req, hl + body, chunk) < 0)
		abort();
	free(req);
	check();
	multipart_store_free(pair.run.store);
	pair.run.store = NULL;
	return 0;
}
