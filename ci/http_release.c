/*
 * POST /v1/release (http_release.h). libmicrohttpd calls on_request first
 * with the headers alone: everything that can be refused from them is
 * answered there, before a byte of body is read, because it may only
 * answer then or once the body is complete (0.9.75). The body goes to
 * multipart_store; a body that turns out bad is read to its end (within the
 * cap) and answered; one that grows past the cap closes the connection.
 * The files are then decided and handed off one tarball at a time
 * (release_files, release_one).
 *
 * A token's jti is recorded as soon as the token verified, whatever
 * happens to the body after: a token is used once, even by a request that
 * fails, so a copied token can never be tried twice.
 */
#define _GNU_SOURCE
#include "http_release.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pwd.h>
#include <sys/socket.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <cjose/cjose.h>
#include <jansson.h>
#include <microhttpd.h>

#include "audit.h"
#include "ci_rules.h"
#include "hex.h"
#include "installd_handoff.h"
#include "multipart_store.h"
#include "oidc_token.h"
#include "release_name.h"
#include "text.h"

#define CI_CONNECTIONS_MAX 32
/* Headers, with a token of up to OIDC_TOKEN_MAX bytes, and the read buffer. */
#define CI_CONNECTION_MEMORY (96 * 1024)

struct http_release {
	struct http_release_config cfg;
	uint64_t max_body;
	char user[AUDIT_USER_MAX + 1];   /* this process's user, for the audit records */
	struct MHD_Daemon *daemon;
};

/* One request, from its headers to its answer. */
struct request {
	struct multipart_store *store;
	int err;                         /* the body's first error, or 0 */
	struct pst_err why;
	uint64_t body;
	time_t started;
	const struct policy_ci_issuer *issuer;
	bool verified;                   /* job holds a verified token's claims */
	struct oidc_claims job;
	char from[64];
};

/* What became of one file of the request. */
struct outcome {
	const struct multipart_file *f;
	bool is_signature;
	bool decided;
	bool installed;
	unsigned status;
	const struct outcome *tarball;   /* a signature's tarball, or NULL */
	struct ci_handoff_answer answer;
};

static enum MHD_Result answer_json(struct MHD_Connection *c, unsigned status, json_t *j,
				   const char *auth)
{
	struct MHD_Response *r;
	enum MHD_Result rc;
	char *text = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	if (text == NULL)
		return MHD_NO;
	r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(text);
		return MHD_NO;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json") != MHD_YES ||
	    (status == MHD_HTTP_METHOD_NOT_ALLOWED &&
	     MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST") != MHD_YES) ||
	    (auth != NULL &&
	     MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, auth) != MHD_YES)) {
		MHD_destroy_response(r);
		return MHD_NO;
	}
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

/*
 * The ci_refused audit record (docs/AUDIT.md) of a refusal made here, before
 * the file reached postern-installd (which records its own). The job's
 * fields only from a token that verified; never the token.
 */
static void audit_refusal(const struct http_release *h, const struct request *r,
			  unsigned status, const char *reason, const char *file)
{
	const struct oidc_claims *j = r != NULL && r->verified ? &r->job : NULL;
	struct audit_session s;
	char st[8];

	audit_session_init(&s, h->user, NULL);
	str_copy(s.from, sizeof(s.from), r != NULL ? r->from : "-");
	str_copy(s.port, sizeof(s.port), "-");
	snprintf(st, sizeof(st), "%u", status);
	audit_emit(LOG_NOTICE, "ci_refused", &s, "status", st, "reason", reason,
		   "issuer", j ? r->issuer->name : NULL, "project", j ? j->project : NULL,
		   "ci_pipeline", j ? j->pipeline : NULL, "ci_job", j ? j->job : NULL,
		   "ci_user", j ? j->user : NULL, "file", file, NULL);
}

/* A refusal of the whole request: no file was looked at. */
static enum MHD_Result refuse(const struct http_release *h, struct MHD_Connection *c,
			      const struct request *r, unsigned status, const char *msg,
			      const char *auth)
{
	audit_refusal(h, r, status, msg, NULL);
	return answer_json(c, status, json_pack("{s:[],s:i,s:s}", "files", "http_status",
						(int)status, "message", msg), auth);
}

/* The unverified "iss" of a token, only to choose whose keys verify it. */
static const struct policy_ci_issuer *token_issuer(const struct policy *p, const char *tok,
						   size_t len)
{
	const struct policy_settings *s = policy_settings(p);
	const struct policy_ci_issuer *found = NULL;
	const char *a = memchr(tok, '.', len), *b;
	uint8_t *payload = NULL;
	size_t plen = 0, i;
	cjose_err cerr;
	json_t *j;
	const char *iss;

	if (a == NULL || (b = memchr(a + 1, '.', len - (size_t)(a + 1 - tok))) == NULL ||
	    !oidc_base64url_ok(a + 1, (size_t)(b - a - 1)) ||
	    !cjose_base64url_decode(a + 1, (size_t)(b - a - 1), &payload, &plen, &cerr))
		return NULL;
	j = json_loadb((const char *)payload, plen, JSON_REJECT_DUPLICATES, NULL);
	cjose_get_dealloc()(payload);
	iss = json_string_value(json_object_get(j, "iss"));
	for (i = 0; iss != NULL && i < s->ci_nissuers; i++)
		if (strcmp(s->ci_issuers[i].issuer, iss) == 0)
			found = &s->ci_issuers[i];
	json_decref(j);
	return found;
}

/* The issuer's keys, read now: the refresh timer may have replaced them. */
static int verify_with(const struct policy_ci_issuer *pi, const char *tok, size_t len,
		       struct oidc_claims *job, struct pst_err *e)
{
	const struct oidc_issuer is = {
		pi->name, pi->issuer, pi->audience,
		pi->forge == POLICY_CI_GITHUB ? OIDC_GITHUB : OIDC_GITLAB,
		CI_CLOCK_SKEW, pi->max_lifetime,
	};
	struct oidc_jwks keys;
	char *text = NULL;
	size_t tlen = 0;
	int rc;

	if (policy_read_trusted(pi->jwks, &text, &tlen, e) < 0)
		return -EIO;
	rc = oidc_jwks_parse(text, tlen, pi->jwks, &keys, e);
	free(text);
	if (rc < 0)
		return -EIO;
	rc = oidc_token_verify(tok, len, &is, &keys, time(NULL), job, e);
	oidc_jwks_free(&keys);
	return rc;
}

/*
 * The Bearer token: 0 with r's issuer and job filled and its jti recorded,
 * else the HTTP status (401, or 500 when the server itself failed).
 */
static unsigned token_check(const struct http_release *h, struct MHD_Connection *c,
			    struct request *r, struct pst_err *e)
{
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							MHD_HTTP_HEADER_AUTHORIZATION);
	const char *tok;
	size_t len;
	int rc;

	if (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0) {
		pst_fail(e, EACCES, "send the job's ID token as Authorization: Bearer TOKEN");
		return 401;
	}
	tok = auth + 7;
	len = strlen(tok);
	if (len == 0 || len > OIDC_TOKEN_MAX) {
		pst_fail(e, EACCES, "the token is empty or too long");
		return 401;
	}
	r->issuer = token_issuer(h->cfg.policy, tok, len);
	if (r->issuer == NULL) {
		pst_fail(e, EACCES, "the token is not from an issuer this server trusts (ci.issuers)");
		return 401;
	}
	rc = verify_with(r->issuer, tok, len, &r->job, e);
	if (rc == -EIO) {
		pst_err_prefix(e, "the keys of issuer %s cannot be used", r->issuer->name);
		return 500;
	}
	if (rc < 0)
		return 401;
	r->verified = true;
	rc = jti_store_use(h->cfg.jti, r->issuer->name, r->job.jti, r->job.exp, e);
	if (rc == -EEXIST) {
		pst_fail(e, EACCES, "this token was used before (a job's token releases once)");
		return 401;
	}
	return rc < 0 ? 500 : 0;
}

static void client_address(struct MHD_Connection *c, char *out, size_t size)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	str_copy(out, size, "::");
	if (ci == NULL || ci->client_addr == NULL)
		return;
	if (getnameinfo(ci->client_addr, ci->client_addr->sa_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
			out, (socklen_t)size, NULL, 0, NI_NUMERICHOST) != 0)
		str_copy(out, size, "::");
}

/* The headers: refuse now, or make r for the body. */
static enum MHD_Result request_begin(struct http_release *h, struct MHD_Connection *c,
				     const char *url, const char *method, void **con_cls)
{
	struct request *r;
	struct pst_err e;
	unsigned status;
	int rc;

	if (strcmp(url, "/v1/release") != 0)
		return refuse(h, c, NULL, MHD_HTTP_NOT_FOUND, "no such resource: POST /v1/release", NULL);
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		return refuse(h, c, NULL, MHD_HTTP_METHOD_NOT_ALLOWED, "only POST is allowed here", NULL);
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return MHD_NO;
	*con_cls = r;
	r->started = time(NULL);
	client_address(c, r->from, sizeof(r->from));
	status = token_check(h, c, r, &e);
	/* RFC 6750 3.1: no error code when the request carried no token. */
	if (status == 401 && MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_AUTHORIZATION) == NULL)
		return refuse(h, c, r, status, e.msg, "Bearer realm=\"postern\"");
	if (status == 401)
		return refuse(h, c, r, status, e.msg, "Bearer realm=\"postern\", error=\"invalid_token\"");
	if (status != 0)
		return refuse(h, c, r, status, e.msg, NULL);
	rc = multipart_store_open(c, h->cfg.staging_fd, h->max_body,
				  policy_settings(h->cfg.policy)->limits.max_compressed, &r->store, &e);
	if (rc < 0)
		return refuse(h, c, r, multipart_http_status(rc), e.msg, NULL);
	return MHD_YES;
}

/* "installed"/"refused" entry of one file. */
static json_t *outcome_json(const struct outcome *o)
{
	char sha[65];

	hex_lower(o->f->sha256, sizeof(o->f->sha256), sha);
	if (o->installed)
		return json_pack("{s:s,s:s,s:s,s:s}", "file", o->f->name, "status", "installed",
				 "path", o->answer.path[0] ? o->answer.path : o->f->name,
				 "sha256", o->answer.sha256[0] ? o->answer.sha256 : sha);
	return json_pack("{s:s,s:s,s:i,s:s,s:s}", "file", o->f->name, "status", "refused",
			 "http_status", (int)o->status, "message", o->answer.text, "sha256", sha);
}

/* A file refused here, before postern-installd saw it. */
static void outcome_refuse(const struct http_release *h, const struct request *r,
			   struct outcome *o, unsigned status, const char *msg)
{
	audit_refusal(h, r, status, msg, o->f->name);
	o->decided = true;
	o->installed = false;
	o->status = status;
	snprintf(o->answer.text, sizeof(o->answer.text), "%s: refused: %s", o->f->name, msg);
}

static bool name_is_signature(const char *name)
{
	static const char *const ends[] = { ".asc", ".sig", ".tar.sign" };
	size_t len = strlen(name), i, n;

	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		n = strlen(ends[i]);
		if (len > n && strcmp(name + len - n, ends[i]) == 0)
			return true;
	}
	return false;
}

/* The signature sent with tarball o (FILE.asc, FILE.sig or .tar.sign, at
 * most one, as the shell takes it from incoming); false when two are. */
static bool signature_of(struct outcome *v, size_t n, struct outcome *o, struct outcome **sig,
			 enum wire_signature *form)
{
	static const enum wire_signature forms[] = { WIRE_SIG_ASC, WIRE_SIG_BIN, WIRE_SIG_TAR };
	char cand[NAME_MAX + 1];
	size_t i, k;

	*sig = NULL;
	*form = WIRE_SIG_NONE;
	for (k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
		if (!wire_signature_name(o->f->name, forms[k], cand, sizeof(cand)))
			continue;
		for (i = 0; i < n; i++) {
			if (!v[i].is_signature || strcmp(v[i].f->name, cand) != 0)
				continue;
			if (*sig != NULL)
				return false;
			*sig = &v[i];
			*form = forms[k];
		}
	}
	return true;
}

/* Decide and hand off one tarball (o) with its signature. */
static void release_one(const struct http_release *h, const struct request *r,
			struct outcome *o, struct outcome *sig, enum wire_signature form)
{
	const struct ci_handoff hand = {
		policy_settings(h->cfg.policy)->socket, r->issuer->name, &r->job, r->from, false,
	};
	struct release_name rn;
	struct ci_verdict v;
	struct pst_err e;
	struct ci_release cr;

	if (release_name_parse(o->f->name, &rn, &e) < 0) {
		outcome_refuse(h, r, o, 422, e.msg);
		return;
	}
	cr = (struct ci_release){ r->issuer->name, &r->job, rn.module, rn.version };
	ci_release_decide(h->cfg.policy, &cr, &v);
	if (!v.allowed) {
		outcome_refuse(h, r, o, v.http_status >= 400 ? (unsigned)v.http_status : 403, v.why);
		return;
	}
	if (ci_handoff_install(&hand, o->f->fd, o->f->name, sig ? sig->f->fd : -1, form,
			       &o->answer, &e) < 0) {
		outcome_refuse(h, r, o, 503, e.msg);
		return;
	}
	o->decided = true;
	o->installed = o->answer.installed;
	o->status = o->installed ? 200 : o->answer.http_status >= 400 ?
		    (unsigned)o->answer.http_status : 500;
}

/* Every tarball, then every signature after its tarball's fate. */
static void release_files(const struct http_release *h, const struct request *r,
			  struct outcome *v, size_t n)
{
	enum wire_signature form;
	struct outcome *sig;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].is_signature)
			continue;
		if (!signature_of(v, n, &v[i], &sig, &form)) {
			outcome_refuse(h, r, &v[i], 422, "two signatures of it were sent: send only one");
			continue;
		}
		if (sig != NULL)
			sig->tarball = &v[i];
		release_one(h, r, &v[i], sig, form);
	}
	for (i = 0; i < n; i++) {
		if (!v[i].is_signature)
			continue;
		if (v[i].tarball == NULL) {
			outcome_refuse(h, r, &v[i], 422, "a signature without its tarball in this request");
		} else if (v[i].tarball->installed) {
			v[i].decided = v[i].installed = true;
			v[i].status = 200;
		} else {
			/* It went with its tarball: the daemon or the lines above
			 * recorded the refusal. */
			v[i].decided = true;
			v[i].status = v[i].tarball->status;
			snprintf(v[i].answer.text, sizeof(v[i].answer.text),
				 "%s: refused: its tarball was refused", v[i].f->name);
		}
	}
}

/* The answer: 200 when all installed, else the first refusal's status. */
static enum MHD_Result request_answer(struct http_release *h, struct MHD_Connection *c,
				      struct request *r)
{
	size_t n = multipart_store_count(r->store), i;
	struct outcome *v = calloc(n, sizeof(*v));
	unsigned status = 200;
	json_t *files;

	if (v == NULL)
		return refuse(h, c, r, 500, "out of memory", NULL);
	for (i = 0; i < n; i++) {
		v[i].f = multipart_store_file(r->store, i);
		v[i].is_signature = name_is_signature(v[i].f->name);
	}
	release_files(h, r, v, n);
	files = json_array();
	for (i = 0; i < n; i++) {
		if (status == 200 && !v[i].installed)
			status = v[i].decided ? v[i].status : 500;
		if (json_array_append_new(files, outcome_json(&v[i])) != 0)
			status = 500;
	}
	free(v);
	return answer_json(c, status, json_pack("{s:o}", "files", files), NULL);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *size, void **con_cls)
{
	struct http_release *h = cls;
	struct request *r = *con_cls;

	(void)version;
	if (r == NULL)
		return request_begin(h, c, url, method, con_cls);
	if (time(NULL) - r->started > CI_REQUEST_SECONDS)
		return MHD_NO;
	if (*size != 0) {
		/* Past the cap nothing is read any more, not even to answer. */
		if (*size > h->max_body - r->body)
			return MHD_NO;
		r->body += *size;
		if (r->err == 0)
			r->err = multipart_store_feed(r->store, data, *size, &r->why);
		*size = 0;
		return MHD_YES;
	}
	if (r->err == 0)
		r->err = multipart_store_finish(r->store, &r->why);
	if (r->err != 0)
		return refuse(h, c, r, multipart_http_status(r->err), r->why.msg, NULL);
	return request_answer(h, c, r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct request *r = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (r == NULL)
		return;
	multipart_store_free(r->store);
	free(r);
	*con_cls = NULL;
}

/* ADDR:PORT or [ADDR6]:PORT, numeric only: a name would need a resolver. */
static int listen_address(const char *listen, struct sockaddr_storage *ss, struct pst_err *e)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(listen, ':');
	struct addrinfo hints, *ai = NULL;
	size_t hl;

	if (listen[0] == '/')
		return pst_fail(e, EINVAL, "ci.listen: %s: a Unix socket is not supported by this "
				"version of postern-ci: listen on 127.0.0.1:PORT behind the proxy", listen);
	if (colon == NULL || colon == listen || colon[1] == '\0')
		return pst_fail(e, EINVAL, "ci.listen: %s: expected ADDR:PORT", listen);
	hl = (size_t)(colon - listen);
	if (listen[0] == '[' && hl > 2 && listen[hl - 1] == ']') {
		listen++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return pst_fail(e, EINVAL, "ci.listen: %s: expected ADDR:PORT", listen);
	memcpy(host, listen, hl);
	host[hl] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || ai == NULL ||
	    ai->ai_addrlen > sizeof(*ss)) {
		if (ai != NULL)
			freeaddrinfo(ai);
		return pst_fail(e, EINVAL, "ci.listen: %s: expected a numeric ADDR:PORT", listen);
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* This process's user name ("-" when it has none), for the records. */
static void process_user(char *out, size_t size)
{
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &res) != 0 || res == NULL ||
	    !str_copy(out, size, res->pw_name))
		str_copy(out, size, "-");
}

int http_release_start(const struct http_release_config *cfg, struct http_release **out,
		       struct pst_err *e)
{
	const struct policy_settings *s = policy_settings(cfg->policy);
	struct sockaddr_storage ss;
	struct http_release *h;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_AUTO | MHD_USE_ERROR_LOG;

	*out = NULL;
	if (cfg->listen == NULL)
		return pst_fail(e, EINVAL, "ci.listen is not set in the configuration");
	if (listen_address(cfg->listen, &ss, e) < 0)
		return -EINVAL;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	h->cfg = *cfg;
	process_user(h->user, sizeof(h->user));
	h->max_body = s->limits.max_compressed + CI_BODY_SLACK;
	/* jansson seeds its hash function on first use; do it before the threads. */
	json_object_seed(0);
	h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CI_IDLE_SECONDS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CI_CONNECTION_MEMORY,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)CI_CONNECTIONS_MAX,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_END);
	if (h->daemon == NULL) {
		free(h);
		return pst_fail(e, EADDRNOTAVAIL, "cannot listen on %s (in use, or not an address "
				"of this host)", cfg->listen);
	}
	*out = h;
	return 0;
}

void http_release_stop(struct http_release *h)
{
	if (h == NULL)
		return;
	MHD_stop_daemon(h->daemon);
	free(h);
}
