#define _GNU_SOURCE
#include "mhd_pair.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Enough for the largest request the test or the fuzzer sends, one byte a round. */
#define MHD_PAIR_ROUNDS 200000

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
	struct mhd_pair *p = cls;
	struct mhd_pair_run *run = &p->run;

	(void)url; (void)method; (void)version;
	if (*con_cls == NULL) {
		*con_cls = run;
		run->rc = multipart_store_open(c, p->staging_fd, p->max_body, p->max_file,
					       &run->store, &run->e);
		return run->rc < 0 ? reply(c, multipart_http_status(run->rc)) : MHD_YES;
	}
	if (*size != 0) {
		run->body += *size;
		if (run->rc == 0)
			run->rc = multipart_store_feed(run->store, data, *size, &run->e);
		*size = 0;
		return MHD_YES;
	}
	if (run->rc == 0)
		run->rc = multipart_store_finish(run->store, &run->e);
	return reply(c, multipart_http_status(run->rc));
}

int mhd_pair_start(struct mhd_pair *p, uint64_t max_body, uint64_t max_file)
{
	memset(p, 0, sizeof(*p));
	p->staging_fd = -1;
	p->max_body = max_body;
	p->max_file = max_file;
	snprintf(p->staging_path, sizeof(p->staging_path), "/tmp/postern-mhd-pair.XXXXXX");
	if (mkdtemp(p->staging_path) == NULL)
		return -1;
	p->staging_fd = open(p->staging_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	p->daemon = MHD_start_daemon(MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, on_request, p,
				     MHD_OPTION_END);
	return p->staging_fd >= 0 && p->daemon != NULL ? 0 : -1;
}

void mhd_pair_stop(struct mhd_pair *p)
{
	if (p->daemon != NULL)
		MHD_stop_daemon(p->daemon);
	if (p->staging_fd >= 0)
		close(p->staging_fd);
	rmdir(p->staging_path);
	p->daemon = NULL;
	p->staging_fd = -1;
}

int mhd_pair_exchange(struct mhd_pair *p, const char *req, size_t len, size_t chunk)
{
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	char resp[4096];
	size_t sent = 0, got = 0;
	int sv[2], status = 0, rounds;
	ssize_t n;

	memset(&p->run, 0, sizeof(p->run));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	if (MHD_add_connection(p->daemon, sv[1], (struct sockaddr *)&peer, sizeof(peer)) != MHD_YES) {
		close(sv[0]);
		return -1;
	}
	for (rounds = 0; rounds < MHD_PAIR_ROUNDS; rounds++) {
		if (sent < len) {
			n = send(sv[0], req + sent, len - sent < chunk ? len - sent : chunk,
				 MSG_NOSIGNAL);
			if (n > 0)
				sent += (size_t)n;
			else if (n < 0 && errno != EAGAIN)
				sent = len;   /* the server closed: read its answer */
		}
		MHD_run(p->daemon);
		n = recv(sv[0], resp + got, sizeof(resp) - 1 - got, 0);
		/* 0 too when resp is full: what the tests look at is in its start. */
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
		if (n > 0)
			got += (size_t)n;
		else if (sent == len)
			poll(NULL, 0, 1);
	}
	close(sv[0]);
	/* The connection may still be open on the daemon's side: let it go. */
	MHD_run(p->daemon);
	resp[got] = '\0';
	if (got > 12 && strncmp(resp, "HTTP/1.1 ", 9) == 0)
		status = atoi(resp + 9);
	return status;
}
