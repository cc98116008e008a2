/*
 * Moving wire.h messages over a Unix stream socket: the request with the
 * upload's fd attached (SCM_RIGHTS), and the response frames.
 */
#ifndef POSTERN_WIRE_IO_H
#define POSTERN_WIRE_IO_H

#include <stddef.h>

#include "errmsg.h"
#include "wire.h"

/* The fds passed with a request; -1 when none. */
struct wire_fds {
	int upload;     /* the opened upload (install) */
	int sig;        /* its opened detached signature (r->sig != WIRE_SIG_NONE) */
};

/*
 * Connect to the daemon's socket at path (paths.socket). A failure's message
 * names the path and the cause, then what_to_do, which tells the one who
 * reads it what to do next.
 */
int wire_connect(const char *path, const char *what_to_do, struct pst_err *e);

/*
 * Send r in one message; passfd (or -1) rides along with it, and sigfd
 * after it when r->sig says a signature is sent (it must then be >= 0).
 */
int wire_send_request(int sock, const struct wire_request *r, int passfd, int sigfd,
		      struct pst_err *e);

/*
 * Receive and decode one request, all of it within timeout_sec (a client
 * trickling a byte at a time is cut off too). fds gets the passed fds
 * (close-on-exec) or -1: an unsigned request takes at most one, a signed
 * install exactly two (upload, signature). Any other count, truncated
 * control data, a short, late or malformed request: -EPROTO and every
 * received fd closed.
 */
int wire_recv_request(int sock, struct wire_request *r, struct wire_fds *fds,
		      unsigned timeout_sec, struct pst_err *e);

/* Send one frame; text is cut at WIRE_TEXT_MAX. Never raises SIGPIPE. */
int wire_send_msg(int sock, enum wire_msg type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Receive one frame into text (NUL-terminated; every character that is not
 * printable by text_show.h's rule, C0, C1, invalid UTF-8 and bidi or
 * invisible ones, replaced by '?', so nothing the daemon echoes, a member
 * name the checker quotes included, can drive the terminal).
 * Returns 0, -ECONNRESET at a clean end of stream, or another -errno.
 */
int wire_recv_msg(int sock, int *type, char *text, size_t cap, struct pst_err *e);

#endif
