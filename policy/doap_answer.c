/* The DOAP parser's answer (doap_answer.h): written by the confined child,
 * read strictly by its root parent. */
#include "doap_answer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "text_show.h"

static int put(char **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (*len + n > *cap) {
		size_t bigger = (*len + n) * 2;
		char *nb = realloc(*buf, bigger);
		if (nb == NULL)
			return -ENOMEM;
		*buf = nb;
		*cap = bigger;
	}
	memcpy(*buf + *len, p, n);
	*len += n;
	return 0;
}

static int put_field(char **buf, size_t *len, size_t *cap, const char *s)
{
	if (s == NULL)
		return put(buf, len, cap, "-", 1);
	if (put(buf, len, cap, "=", 1) < 0)
		return -ENOMEM;
	return put(buf, len, cap, s, strlen(s) + 1);
}

int doap_answer_encode(int rc, const struct doap_maintainers *dm, const struct pst_err *e,
		       char **out, size_t *len)
{
	size_t cap = 0, i;
	int bad = 0;

	*out = NULL;
	*len = 0;
	if (rc < 0)
		bad |= put(out, len, &cap, "E", 1) | put(out, len, &cap, e->msg, strlen(e->msg));
	else
		bad |= put(out, len, &cap, "M", 1);
	for (i = 0; rc == 0 && i < dm->n; i++)
		bad |= put_field(out, len, &cap, dm->v[i].userid) |
		       put_field(out, len, &cap, dm->v[i].name);
	if (bad != 0) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* One field at *pos; 1 read, 0 malformed, -ENOMEM. */
static int take_field(const char *buf, size_t len, size_t *pos, char **out)
{
	const char *end;

	*out = NULL;
	if (*pos >= len)
		return 0;
	if (buf[*pos] == '-') {
		(*pos)++;
		return 1;
	}
	if (buf[*pos] != '=')
		return 0;
	end = memchr(buf + *pos + 1, '\0', len - *pos - 1);
	if (end == NULL)
		return 0;
	*out = strdup(buf + *pos + 1);
	if (*out == NULL)
		return -ENOMEM;
	*pos = (size_t)(end - buf) + 1;
	return 1;
}

static int decode_refusal(const char *buf, size_t len, const char *name, struct pst_err *e)
{
	char shown[PST_ERR_MAX - 64];

	if (len == 0 || memchr(buf, '\0', len) != NULL)
		return pst_fail(e, EINVAL, "%s: the DOAP parser gave a malformed refusal", name);
	text_safe_copy(shown, sizeof(shown), buf, len, TEXT_REPLACE);
	return pst_fail(e, EINVAL, "%s", shown);
}

static int decode_people(const char *buf, size_t len, const char *name,
			 struct doap_maintainers *dm, struct pst_err *e)
{
	size_t pos = 0;
	int a = 1, b = 1;

	dm->v = calloc(DOAP_MAINTAINERS_MAX, sizeof(*dm->v));
	if (dm->v == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	while (pos < len && dm->n < DOAP_MAINTAINERS_MAX) {
		struct doap_person *p = &dm->v[dm->n];
		a = take_field(buf, len, &pos, &p->userid);
		b = a == 1 ? take_field(buf, len, &pos, &p->name) : 0;
		if (a == 1 || b == 1)
			dm->n++;
		if (a != 1 || b != 1)
			break;
	}
	if (a < 0 || b < 0)
		return pst_fail(e, ENOMEM, "out of memory");
	if (a == 1 && b == 1 && pos == len)
		return 0;
	return pst_fail(e, EINVAL, "%s: the DOAP parser gave a malformed answer%s", name,
			pos < len && dm->n == DOAP_MAINTAINERS_MAX ? " (too many maintainers)" : "");
}

int doap_answer_decode(const char *buf, size_t len, const char *name,
		       struct doap_maintainers *dm, struct pst_err *e)
{
	int rc;

	dm->v = NULL;
	dm->n = 0;
	if (len == 0 || len > DOAP_ANSWER_MAX)
		return pst_fail(e, EINVAL, "%s: the DOAP parser gave no answer or one too large",
				name);
	if (buf[0] == 'E')
		return decode_refusal(buf + 1, len - 1, name, e);
	if (buf[0] != 'M')
		return pst_fail(e, EINVAL, "%s: the DOAP parser gave a malformed answer", name);
	rc = decode_people(buf + 1, len - 1, name, dm, e);
	if (rc < 0)
		doap_maintainers_free(dm);
	return rc;
}
