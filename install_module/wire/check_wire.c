/*
 * Encoding and strict decoding of the daemon <-> checker records (see
 * check_wire.h). The verdict decoder reads what a possibly compromised
 * checker wrote: it must accept nothing it does not fully understand.
 */
#include "check_wire.h"

#include <errno.h>
#include <string.h>

struct cursor {
	unsigned char *w;           /* encoding */
	const unsigned char *r;     /* decoding */
	size_t off;
};

static void put_u32(struct cursor *c, uint32_t v)
{
	int i;

	for (i = 3; i >= 0; i--)
		c->w[c->off++] = (unsigned char)(v >> (8 * i));
}

static void put_u64(struct cursor *c, uint64_t v)
{
	put_u32(c, (uint32_t)(v >> 32));
	put_u32(c, (uint32_t)v);
}

/* A string in a NUL-padded field of size bytes; false if it does not fit. */
static bool put_str(struct cursor *c, const char *s, size_t size)
{
	size_t len = strnlen(s, size);

	if (len >= size)
		return false;
	memset(c->w + c->off, 0, size);
	memcpy(c->w + c->off, s, len);
	c->off += size;
	return true;
}

static uint32_t get_u32(struct cursor *c)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = (v << 8) | c->r[c->off++];
	return v;
}

static uint64_t get_u64(struct cursor *c)
{
	uint64_t hi = get_u32(c);

	return (hi << 32) | get_u32(c);
}

/* A NUL-terminated, NUL-padded field of valid UTF-8; newlines and tabs only when text. */
static bool get_str(struct cursor *c, size_t size, char *out, bool text)
{
	const unsigned char *f = c->r + c->off;
	size_t len = strnlen((const char *)f, size), i;

	c->off += size;
	if (len >= size)
		return false;
	for (i = len; i < size; i++)
		if (f[i] != 0)
			return false;
	for (i = 0; i < len; i++)
		if ((f[i] < 0x20 && !(text && (f[i] == '\n' || f[i] == '\t'))) || f[i] == 0x7f)
			return false;
	if (!utf8_valid((const char *)f, len))
		return false;
	memcpy(out, f, len + 1);
	return true;
}

bool check_request_encode(const struct check_request *r, unsigned char *buf)
{
	struct cursor c = { .w = buf };

	memcpy(buf, CHECK_REQUEST_MAGIC, CHECK_MAGIC_LEN);
	c.off = CHECK_MAGIC_LEN;
	if (!put_str(&c, r->module, sizeof(r->module)) ||
	    !put_str(&c, r->version, sizeof(r->version)))
		return false;
	put_u32(&c, (uint32_t)r->compression);
	put_u64(&c, r->limits.max_compressed);
	put_u64(&c, r->limits.max_uncompressed);
	put_u64(&c, r->limits.max_members);
	put_u32(&c, r->limits.max_ratio);
	put_u32(&c, r->limits.time_limit);
	put_u64(&c, r->limits.check_memory);
	put_u32(&c, (uint32_t)r->sig_kind);
	put_u32(&c, r->sig_max_age);
	return c.off == CHECK_REQUEST_SIZE;
}

int check_request_parse(const unsigned char *buf, size_t len, struct check_request *r,
			struct pst_err *e)
{
	struct cursor c = { .r = buf, .off = CHECK_MAGIC_LEN };
	uint32_t comp, sig_kind;

	memset(r, 0, sizeof(*r));
	if (len != CHECK_REQUEST_SIZE || memcmp(buf, CHECK_REQUEST_MAGIC, CHECK_MAGIC_LEN) != 0)
		return pst_fail(e, EBADMSG, "the request is not a checker request");
	if (!get_str(&c, sizeof(r->module), r->module, false) || !name_is_module(r->module) ||
	    !get_str(&c, sizeof(r->version), r->version, false) ||
	    release_version_check(r->version, e) < 0)
		return pst_fail(e, EBADMSG, "the request names no valid module and version");
	comp = get_u32(&c);
	if (comp > RELEASE_ZST)
		return pst_fail(e, EBADMSG, "the request names an unknown compression");
	r->compression = (enum release_compression)comp;
	r->limits.max_compressed = get_u64(&c);
	r->limits.max_uncompressed = get_u64(&c);
	r->limits.max_members = get_u64(&c);
	r->limits.max_ratio = get_u32(&c);
	r->limits.time_limit = get_u32(&c);
	r->limits.check_memory = get_u64(&c);
	if (!upload_limits_caps_set(&r->limits) || r->limits.check_memory == 0)
		return pst_fail(e, EBADMSG, "the request has a limit of 0");
	sig_kind = get_u32(&c);
	if (sig_kind > CHECK_SIG_TAR)
		return pst_fail(e, EBADMSG, "the request names an unknown signature kind");
	r->sig_kind = (enum check_signature_kind)sig_kind;
	r->sig_max_age = get_u32(&c);
	return 0;
}

bool check_verdict_encode(const struct check_verdict *v, unsigned char *buf)
{
	struct cursor c = { .w = buf };

	memcpy(buf, CHECK_VERDICT_MAGIC, CHECK_MAGIC_LEN);
	c.off = CHECK_MAGIC_LEN;
	put_u32(&c, (uint32_t)v->outcome);
	put_u64(&c, v->compressed);
	put_u64(&c, v->uncompressed);
	put_u64(&c, v->members);
	put_u32(&c, v->has_news ? 1 : 0);
	if (!put_str(&c, v->message, sizeof(v->message)) || !put_str(&c, v->news, sizeof(v->news)) ||
	    !put_str(&c, v->signer, sizeof(v->signer)))
		return false;
	return c.off == CHECK_VERDICT_SIZE;
}

bool check_fingerprint_valid(const char *s)
{
	size_t len = strlen(s), i;

	if (len != 40 && len != 64)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

/* The excerpt must be exactly what the daemon itself would make of it. */
static bool news_clean(const char *news)
{
	char again[RELEASE_NEWS_MAX + 1];

	release_news_excerpt(news, strlen(news), again);
	return strcmp(again, news) == 0;
}

int check_verdict_parse(const unsigned char *buf, size_t len, struct check_verdict *v,
			struct pst_err *e)
{
	struct cursor c = { .r = buf, .off = CHECK_MAGIC_LEN };
	uint32_t outcome, has_news;

	memset(v, 0, sizeof(*v));
	if (len != CHECK_VERDICT_SIZE)
		return pst_fail(e, EBADMSG, "the verdict is %zu bytes, not %d", len,
				CHECK_VERDICT_SIZE);
	if (memcmp(buf, CHECK_VERDICT_MAGIC, CHECK_MAGIC_LEN) != 0)
		return pst_fail(e, EBADMSG, "the verdict has no verdict magic");
	outcome = get_u32(&c);
	if (outcome < CHECK_PASS || outcome > CHECK_INTERNAL)
		return pst_fail(e, EBADMSG, "the verdict has an unknown outcome %u", outcome);
	v->outcome = (enum check_outcome)outcome;
	v->compressed = get_u64(&c);
	v->uncompressed = get_u64(&c);
	v->members = get_u64(&c);
	has_news = get_u32(&c);
	if (has_news > 1)
		return pst_fail(e, EBADMSG, "the verdict's NEWS flag is neither 0 nor 1");
	v->has_news = has_news == 1;
	if (!get_str(&c, sizeof(v->message), v->message, false))
		return pst_fail(e, EBADMSG, "the verdict's message is not clean text");
	if ((v->outcome == CHECK_PASS) != (v->message[0] == '\0'))
		return pst_fail(e, EBADMSG, "the verdict's message does not match its outcome");
	if (!get_str(&c, sizeof(v->news), v->news, true) || !news_clean(v->news) ||
	    (!v->has_news && v->news[0] != '\0'))
		return pst_fail(e, EBADMSG, "the verdict's NEWS excerpt is not clean text");
	if (!get_str(&c, sizeof(v->signer), v->signer, false) ||
	    (v->signer[0] != '\0' && !check_fingerprint_valid(v->signer)))
		return pst_fail(e, EBADMSG, "the verdict's signer is not a fingerprint in upper-case hex");
	if (v->signer[0] != '\0' && v->outcome != CHECK_PASS)
		return pst_fail(e, EBADMSG, "the verdict names a signer but is no pass");
	return 0;
}
