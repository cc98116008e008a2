/*
 * postern-ci's HTTP front-end: POST /v1/release with a CI job's OIDC ID
 * token (Authorization: Bearer) and a multipart/form-data body of files
 * named "file", answered in JSON, one entry per file. Each tarball (with
 * the .asc, .sig or .tar.sign beside it) is decided by ci_release_decide and
 * handed to postern-installd, which decides again and installs.
 *
 * MUST: refuse before reading the body whatever can be refused from the
 * headers (path, method, token, replay, Content-Length); verify the token
 * strictly against the issuer its unverified "iss" names, and only then
 * record its jti; fail closed on every internal error.
 * MUST NOT: trust anything of the token before oidc_token_verify accepted
 * it, or give a file a name on disk (multipart_store.h).
 */
#ifndef POSTERN_CI_HTTP_RELEASE_H
#define POSTERN_CI_HTTP_RELEASE_H

#include <stdint.h>

#include "errmsg.h"
#include "jti_store.h"
#include "policy.h"

/* Clock difference allowed between the forge and this host. */
#define CI_CLOCK_SKEW 60
/* The whole request, however slowly it comes: a slow body ends here. */
#define CI_REQUEST_SECONDS 1800
/* Idle seconds after which a connection is closed. */
#define CI_IDLE_SECONDS 30
/* Room for signatures and the multipart framing beside a tarball of
 * limits.max_compressed bytes. */
#define CI_BODY_SLACK (1024 * 1024)

struct http_release;

struct http_release_config {
	const struct policy *policy;   /* loaded with its modules */
	struct jti_store *jti;
	int staging_fd;                /* the directory of the anonymous uploads */
	const char *listen;            /* ci.listen: ADDR:PORT, or [ADDR6]:PORT */
};

/* Listen and serve in threads of libmicrohttpd until http_release_stop. */
int http_release_start(const struct http_release_config *cfg, struct http_release **out,
		       struct pst_err *e);
void http_release_stop(struct http_release *h);

#endif
