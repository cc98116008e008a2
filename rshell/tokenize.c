/*
 * Design note. This is the first code that touches what a remote client
 * typed. It MUST NOT interpret anything: no variables, no globbing, no
 * tilde, no command substitution, no comments, no chaining. Rather than
 * quietly treating such characters as literals, it refuses them: a client
 * that sends them either attacks or expects a shell we are not, and either
 * way the honest answer is "no", naming the character. Restricted shells
 * were broken by parsers that accepted too much (lshell's literal newline,
 * rssh's option tricks); refusing early keeps the accepted language small.
 */
#include "tokenize.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "text.h"
#include "text_show.h"
#include "unicode.h"

struct meta {
	char c;
	const char *what;
};

/* Characters a POSIX shell (or bash) gives a meaning to outside quotes. */
static const struct meta shell_meta[] = {
	{ ';', "command separator" },
	{ '&', "background or chaining" },
	{ '|', "pipe" },
	{ '<', "redirection" },
	{ '>', "redirection" },
	{ '`', "command substitution" },
	{ '$', "expansion or substitution" },
	{ '(', "subshell" },
	{ ')', "subshell" },
	{ '{', "brace expansion" },
	{ '}', "brace expansion" },
	{ '*', "glob" },
	{ '?', "glob" },
	{ '[', "glob" },
	{ ']', "glob" },
	{ '~', "home directory expansion" },
	{ '#', "comment" },
	{ '!', "history or negation" },
	{ '^', "pipe in old shells" },
};

enum quoting { Q_NONE, Q_SINGLE, Q_DOUBLE };

struct splitter {
	const unsigned char *s;
	size_t len;
	size_t pos;
	struct shell_words *w;
	char *out;          /* next free byte in w->buf */
	bool in_word;
	size_t quote_at;    /* byte position of the open quote */
};

static const char *meta_meaning(unsigned char c)
{
	size_t i;

	for (i = 0; i < sizeof(shell_meta) / sizeof(shell_meta[0]); i++) {
		if ((unsigned char)shell_meta[i].c == c)
			return shell_meta[i].what;
	}
	return NULL;
}

static const char *control_name(unsigned cp)
{
	switch (cp) {
	case 0x00: return "NUL";
	case 0x09: return "TAB";
	case 0x0a: return "LF (newline)";
	case 0x0d: return "CR (carriage return)";
	case 0x1b: return "ESC";
	case 0x7f: return "DEL";
	default: return "control character";
	}
}

/* One pass over the raw bytes before any splitting: encoding and controls. */
static int check_characters(const unsigned char *s, size_t len, struct pst_err *e)
{
	size_t pos = 0;
	size_t n;
	unsigned cp;

	while (pos < len) {
		n = utf8_seq_len(s + pos, len - pos);
		if (n == 0)
			return pst_fail(e, EINVAL, "refused: invalid UTF-8 (byte 0x%02x at byte %zu)",
					s[pos], pos + 1);
		cp = utf8_decode(s + pos, n);
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
			return pst_fail(e, EINVAL, "refused: %s (U+%04X) at byte %zu: control characters are never accepted",
					control_name(cp), cp, pos + 1);
		/* C1 was refused above as a control character. */
		if (codepoint_is_hidden(cp))
			return pst_fail(e, EINVAL, "refused: invisible formatting character U+%04X at byte %zu",
					cp, pos + 1);
		pos += n;
	}
	return 0;
}

static int put_byte(struct splitter *sp, unsigned char c, struct pst_err *e)
{
	if (!sp->in_word) {
		if (sp->w->n == SHELL_WORDS_MAX)
			return pst_fail(e, EINVAL, "refused: more than %d words", SHELL_WORDS_MAX);
		sp->w->word[sp->w->n++] = sp->out;
		sp->in_word = true;
	}
	*sp->out++ = (char)c;
	return 0;
}

/* An empty quoted string ('' or "") still makes a word. */
static int start_word(struct splitter *sp, struct pst_err *e)
{
	if (sp->in_word)
		return 0;
	if (sp->w->n == SHELL_WORDS_MAX)
		return pst_fail(e, EINVAL, "refused: more than %d words", SHELL_WORDS_MAX);
	sp->w->word[sp->w->n++] = sp->out;
	sp->in_word = true;
	return 0;
}

static void end_word(struct splitter *sp)
{
	if (sp->in_word) {
		*sp->out++ = '\0';
		sp->in_word = false;
	}
}

static int refuse_meta(size_t pos, unsigned char c, const char *what, struct pst_err *e)
{
	return pst_fail(e, EINVAL,
			"refused: unquoted '%c' at byte %zu: shell syntax (%s) is not interpreted here",
			c, pos + 1, what);
}

static int step_unquoted(struct splitter *sp, enum quoting *q, struct pst_err *e)
{
	unsigned char c = sp->s[sp->pos];
	const char *what;

	if (c == ' ') {
		end_word(sp);
		sp->pos++;
		return 0;
	}
	if (c == '\'' || c == '"') {
		*q = c == '\'' ? Q_SINGLE : Q_DOUBLE;
		sp->quote_at = sp->pos++;
		return start_word(sp, e);
	}
	if (c == '\\') {
		if (sp->pos + 1 == sp->len)
			return pst_fail(e, EINVAL, "refused: a backslash at the end of the command escapes nothing");
		sp->pos += 2;
		return put_byte(sp, sp->s[sp->pos - 1], e);
	}
	what = meta_meaning(c);
	if (what != NULL)
		return refuse_meta(sp->pos, c, what, e);
	sp->pos++;
	return put_byte(sp, c, e);
}

static int step_double(struct splitter *sp, enum quoting *q, struct pst_err *e)
{
	unsigned char c = sp->s[sp->pos];
	unsigned char next = sp->pos + 1 < sp->len ? sp->s[sp->pos + 1] : 0;

	if (c == '"') {
		*q = Q_NONE;
		sp->pos++;
		return 0;
	}
	if (c == '$' || c == '`')
		return pst_fail(e, EINVAL,
				"refused: '%c' at byte %zu inside double quotes would be expanded by a shell (use single quotes)",
				c, sp->pos + 1);
	/* POSIX: inside double quotes a backslash escapes only these. */
	if (c == '\\' && next != 0 && strchr("$`\"\\", next) != NULL) {
		sp->pos += 2;
		return put_byte(sp, next, e);
	}
	sp->pos++;
	return put_byte(sp, c, e);
}

static int step_single(struct splitter *sp, enum quoting *q, struct pst_err *e)
{
	unsigned char c = sp->s[sp->pos++];

	if (c == '\'') {
		*q = Q_NONE;
		return 0;
	}
	return put_byte(sp, c, e);
}

int shell_tokenize(const char *cmd, size_t len, struct shell_words *w, struct pst_err *e)
{
	struct splitter sp = { (const unsigned char *)cmd, len, 0, w, w->buf, false, 0 };
	enum quoting q = Q_NONE;
	int rc;

	w->n = 0;
	w->word[0] = NULL;
	if (len > SHELL_CMD_MAX)
		return pst_fail(e, EINVAL, "refused: the command is %zu bytes, more than the limit of %d",
				len, SHELL_CMD_MAX);
	rc = check_characters(sp.s, len, e);
	while (rc == 0 && sp.pos < len) {
		switch (q) {
		case Q_NONE: rc = step_unquoted(&sp, &q, e); break;
		case Q_DOUBLE: rc = step_double(&sp, &q, e); break;
		case Q_SINGLE: rc = step_single(&sp, &q, e); break;
		}
	}
	if (rc == 0 && q != Q_NONE)
		rc = pst_fail(e, EINVAL, "refused: unterminated %s quote starting at byte %zu",
			      q == Q_SINGLE ? "single" : "double", sp.quote_at + 1);
	if (rc < 0) {
		w->n = 0;
		w->word[0] = NULL;
		return rc;
	}
	end_word(&sp);
	w->word[w->n] = NULL;
	return 0;
}
