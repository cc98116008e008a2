/*
 * Encodes and checks the shell <-> daemon messages (wire.h). Pure: it must never
 * accept a request whose every field it has not checked.
 */
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "safefile.h"
#include "text.h"

static void put_u16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_u32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static bool op_known(unsigned op)
{
	return op >= WIRE_OP_INSTALL && op <= WIRE_OP_CI_INSTALL;
}

bool wire_op_installs(enum wire_op op)
{
	return op == WIRE_OP_INSTALL || op == WIRE_OP_CI_INSTALL;
}

/* The ledger's and the release log's alphabet (ledger.h, log_entry.h). */
#define WIRE_WORD_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+,:/@-"


static bool chars_in(const char *s, const char *allowed)
{
	return s[strspn(s, allowed)] == '\0';
}

static int check_name(const struct wire_request *r, struct pst_err *e)
{
	switch (r->op) {
	case WIRE_OP_INSTALL:
	case WIRE_OP_CI_INSTALL:
	case WIRE_OP_DELETE:
		if (!sf_is_component(r->name) || !str_is_printable(r->name))
			return pst_fail(e, EPROTO, "the file name is not a plain printable file name");
		return 0;
	case WIRE_OP_LIST_MODULE:
		if (!name_is_module(r->name))
			return pst_fail(e, EPROTO, "the module name is not a valid module name");
		return 0;
	case WIRE_OP_LIST_MINE:
		if (r->name[0] != '\0')
			return pst_fail(e, EPROTO, "list of own releases takes no name");
		return 0;
	}
	return pst_fail(e, EPROTO, "unknown operation");
}

static int check_session(const struct wire_request *r, struct pst_err *e)
{
	if (r->from[0] == '\0' ||
	    !chars_in(r->from, "0123456789abcdefABCDEF.:%lo"))
		return pst_fail(e, EPROTO, "the session address is malformed");
	if (strcmp(r->port, "-") != 0 && !str_is_digits(r->port))
		return pst_fail(e, EPROTO, "the session port is malformed");
	if (r->sid[0] == '\0' || !chars_in(r->sid, "0123456789abcdef"))
		return pst_fail(e, EPROTO, "the session id is malformed");
	return 0;
}

static bool is_word(const char *s)
{
	return s[0] != '\0' && chars_in(s, WIRE_WORD_CHARS);
}

/* The job of a ci-install; every other op carries none. */
static int check_ci_job(const struct wire_request *r, struct pst_err *e)
{
	const struct wire_ci_job *c = &r->ci;
	const char *words[] = { c->issuer, c->project, c->ref_type, c->pipeline, c->job, c->sha,
				c->user };
	size_t i;

	if (r->op != WIRE_OP_CI_INSTALL) {
		if (c->issuer[0] || c->project[0] || c->ref[0] || c->ref_type[0] || c->ref_protected ||
		    c->pipeline[0] || c->job[0] || c->sha[0] || c->user[0])
			return pst_fail(e, EPROTO, "only a ci-install names a CI job");
		return 0;
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!is_word(words[i]))
			return pst_fail(e, EPROTO, "a field of the CI job is empty or not a plain word");
	if (c->ref[0] == '\0' || !str_is_printable(c->ref))
		return pst_fail(e, EPROTO, "the CI job's ref is empty or not printable");
	if (!str_is_digits(c->pipeline) || !str_is_digits(c->job))
		return pst_fail(e, EPROTO, "the CI job's pipeline and job are not numbers");
	if ((r->flags & WIRE_FLAG_FORCE) != 0)
		return pst_fail(e, EPROTO, "a CI release cannot replace one (--force is a maintainer's)");
	return 0;
}

static int check_request(const struct wire_request *r, struct pst_err *e)
{
	int rc;

	if (!op_known((unsigned)r->op))
		return pst_fail(e, EPROTO, "unknown operation %u", (unsigned)r->op);
	if ((r->flags & ~WIRE_FLAGS_KNOWN) != 0)
		return pst_fail(e, EPROTO, "unknown flags 0x%x", r->flags);
	if (r->flags != 0 && !wire_op_installs(r->op))
		return pst_fail(e, EPROTO, "flags are only meaningful for install");
	if ((unsigned)r->sig > WIRE_SIG_TAR)
		return pst_fail(e, EPROTO, "unknown signature kind %u", (unsigned)r->sig);
	if (r->sig != WIRE_SIG_NONE && !wire_op_installs(r->op))
		return pst_fail(e, EPROTO, "a signature is only meaningful for install");
	rc = check_name(r, e);
	if (rc == 0)
		rc = check_ci_job(r, e);
	if (rc < 0)
		return rc;
	return check_session(r, e);
}

#define WIRE_FIELDS 4
#define WIRE_CI_FIELDS 9

size_t wire_request_encode(const struct wire_request *r, uint8_t *buf, size_t cap)
{
	const struct wire_ci_job *c = &r->ci;
	const char *fields[WIRE_FIELDS + WIRE_CI_FIELDS] = {
		r->name, r->from, r->port, r->sid,
		c->issuer, c->project, c->ref, c->ref_type, c->ref_protected ? "yes" : "no",
		c->pipeline, c->job, c->sha, c->user };
	int nfields = r->op == WIRE_OP_CI_INSTALL ? WIRE_FIELDS + WIRE_CI_FIELDS : WIRE_FIELDS;
	size_t len = WIRE_HEADER_LEN;
	size_t n;
	int i;

	if (check_request(r, NULL) < 0 || cap < WIRE_HEADER_LEN)
		return 0;
	for (i = 0; i < nfields; i++) {
		n = strlen(fields[i]) + 1;
		if (len + n > cap || len + n > WIRE_REQUEST_MAX)
			return 0;
		memcpy(buf + len, fields[i], n);
		len += n;
	}
	memcpy(buf, WIRE_MAGIC, 4);
	buf[4] = WIRE_VERSION;
	buf[5] = (uint8_t)r->op;
	put_u16(buf + 6, r->flags | ((unsigned)r->sig << WIRE_SIG_SHIFT));
	put_u32(buf + 8, (uint32_t)(len - WIRE_HEADER_LEN));
	return len;
}

int wire_header_body_len(const uint8_t *hdr, size_t len, size_t *body_len,
			 struct pst_err *e)
{
	uint32_t n;

	if (len < WIRE_HEADER_LEN)
		return pst_fail(e, EPROTO, "request shorter than its header (%zu bytes)", len);
	if (memcmp(hdr, WIRE_MAGIC, 4) != 0)
		return pst_fail(e, EPROTO, "not a postern request (bad magic)");
	if (hdr[4] != WIRE_VERSION)
		return pst_fail(e, EPROTO, "protocol version %u, expected %u", hdr[4], WIRE_VERSION);
	n = get_u32(hdr + 8);
	if (n > WIRE_BODY_MAX)
		return pst_fail(e, EPROTO, "request body of %lu bytes, limit %d",
				(unsigned long)n, WIRE_BODY_MAX);
	*body_len = n;
	return 0;
}

/* Take the next NUL-terminated string of body into dst; false if missing or too long. */
static bool take_string(const uint8_t **p, const uint8_t *end, char *dst, size_t dstlen)
{
	const uint8_t *nul = memchr(*p, '\0', (size_t)(end - *p));
	size_t n;

	if (nul == NULL)
		return false;
	n = (size_t)(nul - *p);
	if (n >= dstlen)
		return false;
	memcpy(dst, *p, n + 1);
	*p = nul + 1;
	return true;
}

/* The nine strings of a ci-install's job. */
static bool take_ci_job(const uint8_t **p, const uint8_t *end, struct wire_ci_job *c)
{
	char protected[4];

	if (!take_string(p, end, c->issuer, sizeof(c->issuer)) ||
	    !take_string(p, end, c->project, sizeof(c->project)) ||
	    !take_string(p, end, c->ref, sizeof(c->ref)) ||
	    !take_string(p, end, c->ref_type, sizeof(c->ref_type)) ||
	    !take_string(p, end, protected, sizeof(protected)) ||
	    !take_string(p, end, c->pipeline, sizeof(c->pipeline)) ||
	    !take_string(p, end, c->job, sizeof(c->job)) ||
	    !take_string(p, end, c->sha, sizeof(c->sha)) ||
	    !take_string(p, end, c->user, sizeof(c->user)))
		return false;
	if (strcmp(protected, "yes") != 0 && strcmp(protected, "no") != 0)
		return false;
	c->ref_protected = strcmp(protected, "yes") == 0;
	return true;
}

int wire_request_decode(const uint8_t *buf, size_t len, struct wire_request *r,
			struct pst_err *e)
{
	const uint8_t *p = buf + WIRE_HEADER_LEN;
	const uint8_t *end = buf + len;
	size_t body_len;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = wire_header_body_len(buf, len, &body_len, e);
	if (rc < 0)
		return rc;
	if (body_len != len - WIRE_HEADER_LEN)
		return pst_fail(e, EPROTO, "request body is %zu bytes, header says %zu",
				len - WIRE_HEADER_LEN, body_len);
	r->op = (enum wire_op)buf[5];
	r->flags = ((unsigned)buf[6] << 8) | buf[7];
	r->sig = (enum wire_signature)((r->flags & WIRE_SIG_MASK) >> WIRE_SIG_SHIFT);
	r->flags &= ~WIRE_SIG_MASK;
	if (!take_string(&p, end, r->name, sizeof(r->name)) ||
	    !take_string(&p, end, r->from, sizeof(r->from)) ||
	    !take_string(&p, end, r->port, sizeof(r->port)) ||
	    !take_string(&p, end, r->sid, sizeof(r->sid)))
		return pst_fail(e, EPROTO, "request body is not four terminated fields of allowed length");
	if (r->op == WIRE_OP_CI_INSTALL && !take_ci_job(&p, end, &r->ci))
		return pst_fail(e, EPROTO, "the CI job is not nine terminated fields of allowed length "
				"(protected: yes or no)");
	if (p != end)
		return pst_fail(e, EPROTO, "%zu stray bytes after the request", (size_t)(end - p));
	return check_request(r, e);
}

bool wire_msg_is_final(int type)
{
	return type == WIRE_MSG_OK || type == WIRE_MSG_REFUSED || type == WIRE_MSG_ERROR;
}


bool wire_signature_name(const char *file, enum wire_signature sig, char *out, size_t outlen)
{
	const char *tar = NULL;
	const char *p;
	int n;

	switch (sig) {
	case WIRE_SIG_ASC:
		n = snprintf(out, outlen, "%s.asc", file);
		break;
	case WIRE_SIG_BIN:
		n = snprintf(out, outlen, "%s.sig", file);
		break;
	case WIRE_SIG_TAR:
		for (p = strstr(file, ".tar."); p != NULL; p = strstr(p + 1, ".tar."))
			tar = p;
		if (tar == NULL)
			return false;
		n = snprintf(out, outlen, "%.*s.tar.sign", (int)(tar - file), file);
		break;
	case WIRE_SIG_NONE:
	default:
		return false;
	}
	return n > 0 && (size_t)n < outlen;
}
