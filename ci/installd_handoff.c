/* postern-ci hands a CI job's upload to postern-installd (installd_handoff.h). */
#include "installd_handoff.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "text.h"
#include "wire_io.h"

/* A session id of this request for the audit records: 16 random hex digits. */
static void new_session_id(char *out, size_t size)
{
	unsigned char r[8];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		memset(r, 0, sizeof(r));
	for (i = 0; i < sizeof(r) && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
}

static bool request_fill(const struct ci_handoff *h, const char *name, enum wire_signature sig,
			 struct wire_request *r)
{
	struct wire_ci_job *c = &r->ci;
	const struct oidc_claims *j = h->job;

	memset(r, 0, sizeof(*r));
	r->op = WIRE_OP_CI_INSTALL;
	r->flags = h->dry_run ? WIRE_FLAG_DRY_RUN : 0;
	r->sig = sig;
	new_session_id(r->sid, sizeof(r->sid));
	c->ref_protected = j->ref_protected;
	return str_copy(r->name, sizeof(r->name), name) &&
	       str_copy(r->from, sizeof(r->from), h->from && h->from[0] ? h->from : "::") &&
	       str_copy(r->port, sizeof(r->port), "-") &&
	       str_copy(c->issuer, sizeof(c->issuer), h->issuer) &&
	       str_copy(c->project, sizeof(c->project), j->project) &&
	       str_copy(c->ref, sizeof(c->ref), j->ref) &&
	       str_copy(c->ref_type, sizeof(c->ref_type), j->ref_type) &&
	       str_copy(c->pipeline, sizeof(c->pipeline), j->pipeline) &&
	       str_copy(c->job, sizeof(c->job), j->job) &&
	       str_copy(c->sha, sizeof(c->sha), j->sha) &&
	       str_copy(c->user, sizeof(c->user), j->user);
}

/* "installed as sources/M/D/F (sha256 HEX)...": the path and the hash. */
static void parse_installed(struct ci_handoff_answer *out)
{
	const char *p = strstr(out->text, "installed as ");
	const char *sp, *hash;

	if (p == NULL)
		return;
	p += strlen("installed as ");
	sp = strstr(p, " (sha256 ");
	if (sp == NULL || (size_t)(sp - p) >= sizeof(out->path))
		return;
	memcpy(out->path, p, (size_t)(sp - p));
	out->path[sp - p] = '\0';
	hash = sp + strlen(" (sha256 ");
	if (strspn(hash, "0123456789abcdef") == 64)
		memcpy(out->sha256, hash, 64);
	out->sha256[64] = '\0';
}

/* Read frames up to the final one; the status frame (ci-install) says the HTTP status. */
static int read_answer(int sock, struct ci_handoff_answer *out, struct pst_err *e)
{
	char text[WIRE_TEXT_MAX + 1];
	int type = 0;
	int rc;

	out->http_status = 500;
	while (!wire_msg_is_final(type)) {
		rc = wire_recv_msg(sock, &type, text, sizeof(text), e);
		if (rc < 0)
			return pst_fail(e, rc == -ECONNRESET ? EPIPE : -rc, "the release daemon "
					"stopped before answering: try the job again, or tell the "
					"server's admins");
		if (type == WIRE_MSG_STATUS)
			out->http_status = atoi(text) >= 400 && atoi(text) <= 599 ? atoi(text) : 500;
	}
	str_copy(out->text, sizeof(out->text), text);
	out->installed = type == WIRE_MSG_OK;
	if (out->installed) {
		out->http_status = 200;
		parse_installed(out);
	}
	return 0;
}

int ci_handoff_install(const struct ci_handoff *h, int upload_fd, const char *name, int sig_fd,
		       enum wire_signature sig, struct ci_handoff_answer *out, struct pst_err *e)
{
	struct wire_request r;
	int sock;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!request_fill(h, name, sig, &r))
		return pst_fail(e, EINVAL, "%s: a field of the request is too long for the daemon", name);
	sock = wire_connect(h->socket, "try the job again later, or tell the server's admins", e);
	if (sock < 0)
		return sock;
	/* A send the daemon cut short may still have its answer waiting (too many
	 * connections of this user): that answer is the one to give. */
	(void)wire_send_request(sock, &r, upload_fd, sig_fd, e);
	rc = read_answer(sock, out, e);
	close(sock);
	return rc;
}
