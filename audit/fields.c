/* Parses an audit record's key=value fields back as common/audit.c writes
 * them; it never accepts a byte that audit.c would have escaped. */
#include "fields.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "text_show.h"
#include "unicode.h"

static bool is_bare_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c != '\0' && strchr("._,:/@+%-[]", c) != NULL);
}

static bool is_lower_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

struct cursor {
	const unsigned char *s;
	size_t len;
	size_t pos;
	char *out;
	size_t out_len;
	struct pst_err *e;
};

static int refuse(struct cursor *c, const char *what)
{
	return pst_fail(c->e, EINVAL, "record byte %zu: %s", c->pos + 1, what);
}

static void emit(struct cursor *c, const void *bytes, size_t n)
{
	memcpy(c->out + c->out_len, bytes, n);
	c->out_len += n;
}

/* Why the character at the cursor is not allowed, or NULL if it is. */
static const char *unprintable_reason(const struct cursor *c)
{
	const unsigned char *p = c->s + c->pos;
	size_t n = utf8_seq_len(p, c->len - c->pos);

	if (n == 0)
		return "invalid UTF-8";
	if (n == 1)
		return "unescaped control character";
	return "unescaped invisible character (line separator, bidi, C1 or one that prints as nothing)";
}

static int parse_key(struct cursor *c)
{
	size_t start = c->pos;

	if (c->pos >= c->len || !(c->s[c->pos] >= 'a' && c->s[c->pos] <= 'z'))
		return refuse(c, "expected a key ([a-z][a-z0-9_]*)");
	while (c->pos < c->len && c->s[c->pos] != '=') {
		unsigned char ch = c->s[c->pos];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'))
			return refuse(c, "a key may only hold [a-z0-9_] and must be followed by '='");
		c->pos++;
	}
	if (c->pos >= c->len)
		return refuse(c, "key without '=value'");
	if (c->pos - start > FIELDS_KEY_MAX)
		return refuse(c, "over-long key");
	emit(c, c->s + start, c->pos - start);
	emit(c, "", 1);
	c->pos++;
	return 0;
}

static int parse_bare(struct cursor *c)
{
	size_t start = c->pos;

	while (c->pos < c->len && c->s[c->pos] != ' ') {
		if (!is_bare_char(c->s[c->pos])) {
			if (text_printable_len(c->s + c->pos, c->len - c->pos) == 0)
				return refuse(c, unprintable_reason(c));
			return refuse(c, "character not allowed in an unquoted value");
		}
		c->pos++;
	}
	if (c->pos == start)
		return refuse(c, "empty unquoted value (an empty value is written \"\")");
	emit(c, c->s + start, c->pos - start);
	return 0;
}

/* One escape after a backslash inside quotes; the cursor is on the '\'. */
static int parse_escape(struct cursor *c)
{
	const unsigned char *p = c->s + c->pos;
	size_t left = c->len - c->pos;

	if (left >= 2 && p[1] == '"') {
		emit(c, "\"", 1);
		c->pos += 2;
	} else if (left >= 2 && p[1] == '\\') {
		emit(c, "\\\\", 2);
		c->pos += 2;
	} else if (left >= 4 && p[1] == 'x' && is_lower_hex(p[2]) && is_lower_hex(p[3])) {
		emit(c, p, 4);
		c->pos += 4;
	} else {
		return refuse(c, "unknown escape (only \\\", \\\\ and \\xNN exist)");
	}
	return 0;
}

static int parse_quoted(struct cursor *c)
{
	size_t n;
	int rc;

	c->pos++;
	while (c->pos < c->len && c->s[c->pos] != '"') {
		if (c->s[c->pos] == '\\') {
			rc = parse_escape(c);
			if (rc != 0)
				return rc;
			continue;
		}
		if (c->s[c->pos] == '#')
			return refuse(c, "holds a raw '#', which audit.c always writes as \\x23");
		n = text_printable_len(c->s + c->pos, c->len - c->pos);
		if (n == 0)
			return refuse(c, unprintable_reason(c));
		emit(c, c->s + c->pos, n);
		c->pos += n;
	}
	if (c->pos >= c->len)
		return refuse(c, "unterminated quoted value");
	c->pos++;
	return 0;
}

static int parse_field(struct audit_fields *f, struct cursor *c)
{
	size_t value_start;
	int rc;

	if (f->count >= FIELDS_MAX)
		return refuse(c, "too many fields");
	f->key[f->count] = c->out + c->out_len;
	rc = parse_key(c);
	if (rc != 0)
		return rc;
	f->value[f->count] = c->out + c->out_len;
	value_start = c->pos;
	if (c->pos < c->len && c->s[c->pos] == '"')
		rc = parse_quoted(c);
	else
		rc = parse_bare(c);
	if (rc != 0)
		return rc;
	if (c->pos - value_start > FIELDS_VALUE_MAX)
		return refuse(c, "value longer than the 512 bytes a record may hold");
	emit(c, "", 1);
	f->count++;
	if (c->pos < c->len && c->s[c->pos] != ' ')
		return refuse(c, "expected a space between fields");
	return 0;
}

int fields_parse(struct audit_fields *f, const char *msg, size_t len,
		 struct pst_err *e)
{
	struct cursor c = { .s = (const unsigned char *)msg, .len = len, .e = e };
	int rc;

	memset(f, 0, sizeof(*f));
	if (len > FIELDS_RECORD_MAX)
		return pst_fail(e, EINVAL, "record of %zu bytes, longer than the %d an audit record may have",
				len, FIELDS_RECORD_MAX);
	f->text = malloc(len + 1);
	if (f->text == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	c.out = f->text;
	for (;;) {
		rc = parse_field(f, &c);
		if (rc != 0)
			return rc;
		if (c.pos == len)
			return 0;
		c.pos++;
		if (c.pos == len)
			return refuse(&c, "trailing space");
	}
}

void fields_free(struct audit_fields *f)
{
	free(f->text);
	memset(f, 0, sizeof(*f));
}

const char *fields_get(const struct audit_fields *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->count; i++) {
		if (strcmp(f->key[i], key) == 0)
			return f->value[i];
	}
	return NULL;
}
