/*
 * Parses the text of a PAM service file the way Linux-PAM reads it, closely
 * enough for pam_auth.c: '#' comments, "\\\n" continuations, "-type",
 * "[...]" controls, @include. It sees bytes only, never a file; anything it
 * cannot read is an error, never a rule skipped.
 */
#define _GNU_SOURCE
#include "pam_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PAM_LINE_MAX 4096

/* The next logical line: comments cut, "\\\n" joined. Returns its length, -1 at the end. */
static int logical_line(const char *text, size_t len, size_t *pos, unsigned *lineno,
			char *line, struct pst_err *e)
{
	size_t n = 0;
	bool comment = false;

	if (*pos >= len)
		return -1;
	for (; *pos < len; (*pos)++) {
		char c = text[*pos];

		if (c == '\0')
			return pst_fail(e, EINVAL, "line %u: a NUL byte", *lineno);
		if (c == '\\' && *pos + 1 < len && text[*pos + 1] == '\n' && !comment) {
			(*pos)++;
			(*lineno)++;
			c = ' ';
		} else if (c == '\n') {
			(*pos)++;
			break;
		} else if (c == '#') {
			comment = true;
		}
		if (comment)
			continue;
		if (n + 1 >= PAM_LINE_MAX)
			return pst_fail(e, EINVAL, "line %u: longer than %d bytes", *lineno,
					PAM_LINE_MAX - 1);
		line[n++] = c == '\t' || c == '\r' ? ' ' : c;
	}
	line[n] = '\0';
	return (int)n;
}

/*
 * The next word of *p into out; with bracket (the control), a '[' word runs
 * to its ']'. 0, 1 (none left) or -EINVAL.
 */
static int next_word(const char **p, bool bracket, char *out, size_t cap, unsigned lineno,
		     struct pst_err *e)
{
	const char *s = *p + strspn(*p, " ");
	size_t n;

	if (*s == '\0')
		return 1;
	if (bracket && *s == '[') {
		const char *close = strchr(s, ']');
		if (close == NULL)
			return pst_fail(e, EINVAL, "line %u: a '[' control without its ']'", lineno);
		n = (size_t)(close - s) + 1;
	} else {
		n = strcspn(s, " ");
	}
	if (n >= cap)
		return pst_fail(e, EINVAL, "line %u: a word longer than %zu bytes", lineno, cap - 1);
	memcpy(out, s, n);
	out[n] = '\0';
	*p = s + n;
	return 0;
}

static bool type_known(const char *t)
{
	static const char *const types[] = { "auth", "account", "session", "password" };
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(t, types[i]) == 0)
			return true;
	return false;
}

static int control_of(const char *c, enum pam_control *out)
{
	static const struct {
		const char *word;
		enum pam_control control;
	} words[] = {
		{ "required", PAM_CTL_REQUIRED },   { "requisite", PAM_CTL_REQUISITE },
		{ "sufficient", PAM_CTL_SUFFICIENT }, { "optional", PAM_CTL_OPTIONAL },
		{ "include", PAM_CTL_INCLUDE },     { "substack", PAM_CTL_SUBSTACK },
	};
	size_t i;

	if (c[0] == '[') {
		*out = PAM_CTL_BRACKET;
		return 0;
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcasecmp(c, words[i].word) == 0) {
			*out = words[i].control;
			return 0;
		}
	}
	return -EINVAL;
}

static int directive_parse(const char *rest, struct pam_line *l, struct pst_err *e)
{
	char extra[2];

	int rc = next_word(&rest, false, l->module, sizeof(l->module), l->lineno, e);

	if (rc < 0)
		return rc;
	if (rc > 0 || next_word(&rest, false, extra, sizeof(extra), l->lineno, NULL) != 1)
		return pst_fail(e, EINVAL, "line %u: @include takes exactly one name", l->lineno);
	l->control = PAM_CTL_DIRECTIVE;
	strcpy(l->control_text, "@include");
	return 0;
}

/* One logical line, not empty, into l. */
static int rule_parse(const char *line, struct pam_line *l, struct pst_err *e)
{
	char type[PAM_WORD_MAX];
	const char *p = line;
	int rc = next_word(&p, false, type, sizeof(type), l->lineno, e);

	if (rc != 0)
		return rc < 0 ? rc : pst_fail(e, EINVAL, "line %u: empty", l->lineno);
	if (strcmp(type, "@include") == 0)
		return directive_parse(p, l, e);
	l->quiet = type[0] == '-';
	if (!type_known(type + l->quiet))
		return pst_fail(e, EINVAL, "line %u: '%.40s' is no PAM type (auth, account, "
				"session, password)", l->lineno, type);
	snprintf(l->type, sizeof(l->type), "%s", type + l->quiet);
	rc = next_word(&p, true, l->control_text, sizeof(l->control_text), l->lineno, e);
	if (rc < 0)
		return rc;
	if (rc > 0 || control_of(l->control_text, &l->control) < 0)
		return pst_fail(e, EINVAL, "line %u: no valid control after '%s' (required, "
				"requisite, sufficient, optional, include, substack or [...])",
				l->lineno, type);
	rc = next_word(&p, false, l->module, sizeof(l->module), l->lineno, e);
	if (rc < 0)
		return rc;
	if (rc > 0)
		return pst_fail(e, EINVAL, "line %u: no module after '%s %s'", l->lineno, type,
				l->control_text);
	return 0;
}

int pam_text_parse(const char *text, size_t len,
		   int (*fn)(const struct pam_line *l, void *ctx), void *ctx,
		   struct pst_err *e)
{
	char line[PAM_LINE_MAX];
	size_t pos = 0;
	unsigned lineno = 1;
	int n, rc;

	for (;;) {
		struct pam_line l = { .lineno = lineno };

		n = logical_line(text, len, &pos, &lineno, line, e);
		if (n == -1)
			return 0;
		if (n < 0)
			return n;
		lineno++;
		if (line[strspn(line, " ")] == '\0')
			continue;
		rc = rule_parse(line, &l, e);
		if (rc == 0)
			rc = fn(&l, ctx);
		if (rc < 0)
			return rc;
	}
}

bool pam_name_ok(const char *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}
