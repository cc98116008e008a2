/*
 * multipart_store behind a real libmicrohttpd connection, for its unit test
 * and its fuzz target: a daemon without a listening socket is handed one end
 * of a socketpair per request and run by hand (MHD_run), so the caller sends
 * exactly the bytes it means, in the chunks it means, and no port is used.
 */
#ifndef POSTERN_TESTS_MHD_PAIR_H
#define POSTERN_TESTS_MHD_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "multipart_store.h"

/* What the last request left: the store, its last result, the body size. */
struct mhd_pair_run {
	struct multipart_store *store;
	int rc;
	struct pst_err e;
	uint64_t body;
};

struct mhd_pair {
	struct MHD_Daemon *daemon;
	int staging_fd;
	char staging_path[64];
	uint64_t max_body, max_file;   /* read at each request */
	struct mhd_pair_run run;
};

/* A daemon and a fresh staging directory under /tmp; 0, or -1. */
int mhd_pair_start(struct mhd_pair *p, uint64_t max_body, uint64_t max_file);
void mhd_pair_stop(struct mhd_pair *p);

/*
 * Send req (a whole HTTP request) in chunks of chunk bytes while running the
 * daemon, until it answers and closes or gives up. p->run is reset first;
 * the caller frees p->run.store. Returns the answer's status, or 0 (none),
 * or -1 when the connection could not be made.
 */
int mhd_pair_exchange(struct mhd_pair *p, const char *req, size_t len, size_t chunk);

#endif
