/*
 * A CI upload's body on any bytes: the first byte picks the size of the
 * chunks the rest arrives in, as the body of a POST with a fixed boundary,
 * through a real libmicrohttpd connection (a socketpair, the daemon run by
 * hand). No crash, no leak, no internal error; a refusal keeps no file
 * and says why; what is kept is at most 16 files of plain names whose
 * bytes are all on disk and fit in the body.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "multipart_store.h"
#include "text.h"

#define BOUNDARY "fuzzBoundary"
#define BODY_MAX (64 * 1024)
/* Smaller than the body, so that the fuzzer meets the file cap too. */
#define FILE_MAX (16 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
	struct multipart_store *store;
	int rc;
	struct pst_err e;
	uint64_t body;
};

static struct MHD_Daemon *daemon_;
static struct run run_;
static int staging_fd = -1;
static char staging_path[64];

static void cleanup(void)
{
	MHD_stop_daemon(daemon_);
	rmdir(staging_path);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc = MHD_queue_response(c, status, r);

	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *size, void **con_cls)
{
	(void)cls; (void)url; (void)method; (void)version;
	if (*con_cls == NULL) {
		*con_cls = &run_;
		run_.rc = multipart_store_open(c, staging_fd, BODY_MAX, FILE_MAX, &run_.store, &run_.e);
		return run_.rc < 0 ? reply(c, multipart_http_status(run_.rc)) : MHD_YES;
	}
	if (*size != 0) {
		run_.body += *size;
		if (run_.rc == 0)
			run_.rc = multipart_store_feed(run_.store, data, *size, &run_.e);
		*size = 0;
		return MHD_YES;
	}
	if (run_.rc == 0)
		run_.rc = multipart_store_finish(run_.store, &run_.e);
	return reply(c, multipart_http_status(run_.rc));
}

static void start(void)
{
	snprintf(staging_path, sizeof(staging_path), "/tmp/fuzz_multipart.XXXXXX");
	if (mkdtemp(staging_path) == NULL)
		abort();
	staging_fd = open(staging_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	daemon_ = MHD_start_daemon(MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, on_request, NULL,
				   MHD_OPTION_END);
	if (staging_fd < 0 || daemon_ == NULL)
		abort();
	atexit(cleanup);
}

static void exchange(const char *req, size_t len, size_t chunk)
{
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	char resp[1024];
	size_t sent = 0;
	int sv[2], rounds;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0 ||
	    MHD_add_connection(daemon_, sv[1], (struct sockaddr *)&peer, sizeof(peer)) != MHD_YES)
		abort();
	for (rounds = 0; rounds < 200000; rounds++) {
		if (sent < len) {
			n = send(sv[0], req + sent, len - sent < chunk ? len - sent : chunk,
				 MSG_NOSIGNAL);
			if (n > 0)
				sent += (size_t)n;
			else if (n < 0 && errno != EAGAIN)
				sent = len;
		}
		MHD_run(daemon_);
		n = recv(sv[0], resp, sizeof(resp), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
		if (n < 0 && sent == len)
			poll(NULL, 0, 0);
	}
	close(sv[0]);
	/* The connection may still be open on the daemon's side: let it go. */
	MHD_run(daemon_);
}

static void check(void)
{
	const struct multipart_file *f;
	uint64_t total = 0;
	struct stat st;
	size_t i, n;

	if (run_.rc != 0) {
		if (multipart_http_status(run_.rc) == 500 || run_.e.msg[0] == '\0' ||
		    (run_.store != NULL && multipart_store_count(run_.store) != 0))
			abort();
		return;
	}
	n = multipart_store_count(run_.store);
	if (n == 0 || n > MULTIPART_FILES_MAX)
		abort();
	for (i = 0; i < n; i++) {
		f = multipart_store_file(run_.store, i);
		if (f == NULL || f->name[0] == '.' || strchr(f->name, '/') != NULL ||
		    !str_is_printable(f->name) || fstat(f->fd, &st) != 0 ||
		    (uint64_t)st.st_size != f->size)
			abort();
		if (f->size > FILE_MAX)
			abort();
		total += f->size;
	}
	if (total > run_.body)
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
	if (daemon_ == NULL)
		start();
	chunk = 1 + data[0] % 97;
	body = size - 1;
	req = malloc(sizeof(head) + 24 + body);
	if (req == NULL)
		abort();
	hl = (size_t)snprintf(req, sizeof(head) + 24, head, body);
	memcpy(req + hl, data + 1, body);
	memset(&run_, 0, sizeof(run_));
	exchange(req, hl + body, chunk);
	free(req);
	check();
	multipart_store_free(run_.store);
	run_.store = NULL;
	return 0;
}
