/*
 * A log read over HTTP(S) with libcurl: a tlog_read_fn whose paths are
 * appended to the log's URL. Only http and https, also after redirects; a
 * 404 is -ENOENT (so a missing partial tile falls back to the full one);
 * every answer is capped at what the caller expects. Integrity comes from
 * the signed checkpoint, not from the transport: plain HTTP mirrors are fine.
 */
#ifndef POSTERN_HTTP_LOG_H
#define POSTERN_HTTP_LOG_H

#include <stddef.h>

#include "errmsg.h"

struct http_log;

int http_log_open(const char *url, struct http_log **out, struct pst_err *e);
void http_log_close(struct http_log *h);
int http_log_read(void *h, const char *path, size_t max, unsigned char **data, size_t *len,
		  struct pst_err *e);

#endif
