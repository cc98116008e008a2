/*
 * One connection to postern-installd, in its own child process.
 *
 * MUST: take the asker's identity from SO_PEERCRED only; refuse and log a
 * malformed request (request_invalid) and close whatever fds came with
 * it; bound the time a client may take to send its request, and give one
 * that has sent nothing at all only a short while, so that idle
 * connections do not hold the slots of the accept loop.
 */
#define _GNU_SOURCE
#include "installd.h"

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "request_policy.h"
#include "text.h"
#include "wire_io.h"

#define REQUEST_TIMEOUT_SEC 10
/* The real client sends its request right after connect(); a silent one is idle. */
#define FIRST_BYTE_TIMEOUT_SEC 3
#define SEND_TIMEOUT_SEC 60

static void set_timeouts(int sock)
{
	struct timeval snd = { SEND_TIMEOUT_SEC, 0 };

	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof(snd));
}

static void invalid(const struct installd_peer *peer, const char *reason)
{
	audit_emit(LOG_NOTICE, "request_invalid", &peer->session, "reason", reason,
		   "peer_uid", peer->peer_uid, "peer_pid", peer->peer_pid, NULL);
	wire_send_msg(peer->sock, WIRE_MSG_ERROR, "invalid request: %s", reason);
}

/* Who is on the other end, from the kernel. False when it cannot be named. */
static bool identify(struct installd_peer *peer, struct pst_err *e)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct passwd pw;
	struct passwd *found = NULL;
	char buf[4096];

	audit_session_init(&peer->session, NULL, NULL);
	if (getsockopt(peer->sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred)) {
		pst_fail(e, errno, "no peer credentials");
		return false;
	}
	peer->uid = cred.uid;
	peer->pid = cred.pid;
	snprintf(peer->peer_uid, sizeof(peer->peer_uid), "%lu", (unsigned long)cred.uid);
	snprintf(peer->peer_pid, sizeof(peer->peer_pid), "%ld", (long)cred.pid);
	if (getpwuid_r(cred.uid, &pw, buf, sizeof(buf), &found) != 0 || found == NULL ||
	    !name_is_user(pw.pw_name)) {
		pst_fail(e, ENOENT, "uid %lu has no valid user name", (unsigned long)cred.uid);
		return false;
	}
	if (!str_copy(peer->user, sizeof(peer->user), pw.pw_name) ||
	    !str_copy(peer->session.user, sizeof(peer->session.user), pw.pw_name)) {
		pst_fail(e, ENAMETOOLONG, "uid %lu has a user name longer than postern allows",
			 (unsigned long)cred.uid);
		return false;
	}
	return true;
}

/* Whether the client sent something within FIRST_BYTE_TIMEOUT_SEC of being served. */
static bool spoke_soon(int sock)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int rc;

	do
		rc = poll(&p, 1, FIRST_BYTE_TIMEOUT_SEC * 1000);
	while (rc < 0 && errno == EINTR);
	return rc > 0;
}

/*
 * The session the client claims: logged for correlation, never trusted,
 * and marked as a claim (client_from, client_port, client_session); the
 * records' own from, port and sid stay the daemon's ("local", "-", this
 * connection's id).
 */
static void adopt_claimed_session(struct installd_peer *peer, const struct wire_request *req)
{
	struct audit_session *s = &peer->session;

	str_copy(s->client_from, sizeof(s->client_from), req->from[0] != '\0' ? req->from : "-");
	str_copy(s->client_port, sizeof(s->client_port), req->port[0] != '\0' ? req->port : "-");
	str_copy(s->client_session, sizeof(s->client_session), req->sid[0] != '\0' ? req->sid : "-");
}

/* A CI job's identity is believed only from the front-end that verified its token. */
static bool peer_is_ci_frontend(const struct installd *d, const struct installd_peer *peer)
{
	return d->ci_user != NULL && strcmp(peer->user, d->ci_user) == 0;
}

static bool dispatch(const struct installd *d, const struct installd_peer *peer,
		     const struct wire_request *req, const struct wire_fds *fds)
{
	struct pst_err e;

	if (req->op == WIRE_OP_CI_INSTALL && !peer_is_ci_frontend(d, peer)) {
		invalid(peer, "a CI release is taken only from postern-ci, the CI front-end; "
			"maintainers use install-module");
		return false;
	}
	if (!wire_op_installs(req->op) && fds->upload >= 0) {
		invalid(peer, "a file descriptor was passed with a request that takes none");
		return false;
	}
	/* No change without its audit record (common/audit_delivery.h). */
	if ((wire_op_installs(req->op) || req->op == WIRE_OP_DELETE) &&
	    audit_delivery_check("postern-installd", AUDIT_OP_CHANGE, d->set->audit_on_failure, &e) < 0) {
		wire_send_msg(peer->sock, WIRE_MSG_ERROR, "%s", e.msg);
		return false;
	}
	switch (req->op) {
	case WIRE_OP_INSTALL:
	case WIRE_OP_CI_INSTALL:
		return installd_op_install(d, peer, req, fds->upload, fds->sig);
	case WIRE_OP_DELETE:
		return installd_op_delete(d, peer, req);
	case WIRE_OP_LIST_MODULE:
		installd_op_list_module(d, peer, req->name);
		return false;
	case WIRE_OP_LIST_MINE:
		installd_op_list_mine(d, peer);
		return false;
	}
	invalid(peer, "unknown operation");
	return false;
}

bool installd_serve_connection(const struct installd *d, int sock)
{
	struct installd_peer peer;
	struct wire_request req;
	struct installd now;
	struct policy *policy;
	struct pst_err e;
	bool changed = false;
	struct wire_fds fds = { -1, -1 };

	memset(&peer, 0, sizeof(peer));
	peer.sock = sock;
	set_timeouts(sock);
	if (!identify(&peer, &e)) {
		invalid(&peer, e.msg);
		return false;
	}
	if (!spoke_soon(sock)) {
		snprintf(e.msg, sizeof(e.msg), "nothing was sent within %d seconds of connecting",
			 FIRST_BYTE_TIMEOUT_SEC);
		invalid(&peer, e.msg);
		return false;
	}
	if (wire_recv_request(sock, &req, &fds, REQUEST_TIMEOUT_SEC, &e) < 0) {
		invalid(&peer, e.msg);
		return false;
	}
	adopt_claimed_session(&peer, &req);
	if (request_policy_load(d, &peer, &now, &policy)) {
		changed = dispatch(&now, &peer, &req, &fds);
		policy_free(policy);
	}
	if (fds.upload >= 0)
		close(fds.upload);
	if (fds.sig >= 0)
		close(fds.sig);
	return changed;
}
