/*
 * The release log's entries (log_entry.h). Parsing re-formats what it read
 * and compares: only the canonical spelling is an entry.
 */
#define _GNU_SOURCE  /* strptime, timegm */
#include "log_entry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORD_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+,:/@-"

static bool is_word(const char *s)
{
	return s[0] != '\0' && strlen(s) <= LOG_WORD_MAX && s[strspn(s, WORD_CHARS)] == '\0';
}

static bool is_sha256(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* A path inside the tree: words separated by single '/', none "." or "..". */
static bool is_tree_path(const char *s)
{
	const char *p = s;

	if (!is_word(s) || s[0] == '/' || s[strlen(s) - 1] == '/' || strstr(s, "//") != NULL)
		return false;
	while (p != NULL) {
		if (strncmp(p, "./", 2) == 0 || strcmp(p, ".") == 0 || strncmp(p, "../", 3) == 0 ||
		    strcmp(p, "..") == 0)
			return false;
		p = strchr(p, '/');
		if (p != NULL)
			p++;
	}
	return true;
}

static bool op_known(const char *op)
{
	return strcmp(op, "install") == 0 || strcmp(op, "delete") == 0 ||
	       strcmp(op, "withdraw") == 0;
}

static int check(const struct log_entry *le, struct pst_err *e)
{
	const char *words[] = {le->module, le->version, le->uploader, le->signer, le->attic};
	size_t i;

	if (!op_known(le->op))
		return pst_fail(e, EINVAL, "log entry: unknown operation '%s'", le->op);
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!is_word(words[i]))
			return pst_fail(e, EINVAL, "log entry: a value is not a plain word");
	if (strcmp(le->forced, "yes") != 0 && strcmp(le->forced, "no") != 0)
		return pst_fail(e, EINVAL, "log entry: forced must be yes or no");
	if (le->nfiles == 0 || le->nfiles > LOG_ENTRY_FILES_MAX)
		return pst_fail(e, EINVAL, "log entry: a change names 1 to %d files",
				LOG_ENTRY_FILES_MAX);
	for (i = 0; i < le->nfiles; i++)
		if (!is_tree_path(le->files[i].path) || !is_sha256(le->files[i].sha256))
			return pst_fail(e, EINVAL, "log entry: file %zu is not a tree path and a "
					"lowercase SHA-256", i + 1);
	return 0;
}

int log_entry_format(const struct log_entry *le, char *out, size_t outlen, struct pst_err *e)
{
	char when[32];
	struct tm tm;
	size_t used, i;
	int w, rc = check(le, e);

	if (rc < 0)
		return rc;
	if (gmtime_r(&le->when, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return pst_fail(e, EINVAL, "log entry: the time cannot be written");
	w = snprintf(out, outlen,
		     "postern-entry %d\nop %s\ntime %s\nmodule %s\nversion %s\nuploader %s\n"
		     "signer %s\nforced %s\nattic %s\n",
		     LOG_ENTRY_VERSION, le->op, when, le->module, le->version, le->uploader,
		     le->signer, le->forced, le->attic);
	for (i = 0; w > 0 && (size_t)w < outlen && i < le->nfiles; i++) {
		used = (size_t)w;
		w = snprintf(out + used, outlen - used, "%s %s %s\n",
			     le->files[i].gone ? "gone" : "file", le->files[i].path,
			     le->files[i].sha256);
		w = w < 0 ? w : w + (int)used;
	}
	if (w < 0 || (size_t)w >= outlen || (size_t)w > LOG_ENTRY_TEXT_MAX)
		return pst_fail(e, E2BIG, "log entry: more than %d bytes", LOG_ENTRY_TEXT_MAX);
	return w;
}

/* "key value\n" at *p with value copied into dst (at most max - 1 bytes). */
static bool take_line(const char **p, const char *end, const char *key, char *dst, size_t max)
{
	size_t kl = strlen(key);
	const char *nl;

	if ((size_t)(end - *p) <= kl + 1 || memcmp(*p, key, kl) != 0 || (*p)[kl] != ' ')
		return false;
	nl = memchr(*p + kl + 1, '\n', (size_t)(end - *p - (ptrdiff_t)kl - 1));
	if (nl == NULL || (size_t)(nl - *p) - kl - 1 >= max)
		return false;
	memcpy(dst, *p + kl + 1, (size_t)(nl - *p) - kl - 1);
	dst[(size_t)(nl - *p) - kl - 1] = '\0';
	*p = nl + 1;
	return true;
}

static bool parse_time(const char *s, time_t *out)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (end == NULL || *end != '\0')
		return false;
	*out = timegm(&tm);
	return *out != (time_t)-1;
}

static bool take_file(const char **p, const char *end, struct log_file *f)
{
	char line[LOG_WORD_MAX + 80], *sp;
	const char *key = (size_t)(end - *p) > 5 && memcmp(*p, "gone ", 5) == 0 ? "gone" : "file";

	if (!take_line(p, end, key, line, sizeof(line)) || (sp = strchr(line, ' ')) == NULL ||
	    (size_t)(sp - line) > LOG_WORD_MAX || strlen(sp + 1) > 64)
		return false;
	f->gone = strcmp(key, "gone") == 0;
	memcpy(f->path, line, (size_t)(sp - line));
	f->path[sp - line] = '\0';
	strcpy(f->sha256, sp + 1);
	return true;
}

int log_entry_parse(const char *text, size_t len, struct log_entry *le, struct pst_err *e)
{
	const char *p = text, *end = text + len;
	char head[16], when[32], again[LOG_ENTRY_TEXT_MAX + 1];
	int n;

	memset(le, 0, sizeof(*le));
	if (len > LOG_ENTRY_TEXT_MAX || !take_line(&p, end, "postern-entry", head, sizeof(head)) ||
	    strcmp(head, "1") != 0)
		return pst_fail(e, EINVAL, "not a postern log entry of version %d", LOG_ENTRY_VERSION);
	if (!take_line(&p, end, "op", le->op, sizeof(le->op)) ||
	    !take_line(&p, end, "time", when, sizeof(when)) || !parse_time(when, &le->when) ||
	    !take_line(&p, end, "module", le->module, sizeof(le->module)) ||
	    !take_line(&p, end, "version", le->version, sizeof(le->version)) ||
	    !take_line(&p, end, "uploader", le->uploader, sizeof(le->uploader)) ||
	    !take_line(&p, end, "signer", le->signer, sizeof(le->signer)) ||
	    !take_line(&p, end, "forced", le->forced, sizeof(le->forced)) ||
	    !take_line(&p, end, "attic", le->attic, sizeof(le->attic)))
		return pst_fail(e, EINVAL, "log entry: a required line is missing or out of order");
	while (p < end && le->nfiles < LOG_ENTRY_FILES_MAX)
		if (!take_file(&p, end, &le->files[le->nfiles++]))
			return pst_fail(e, EINVAL, "log entry: line %zu is not \"file|gone <path> "
					"<sha256>\"", le->nfiles + 9);
	if (p != end)
		return pst_fail(e, EINVAL, "log entry: more than %d files", LOG_ENTRY_FILES_MAX);
	n = log_entry_format(le, again, sizeof(again), e);
	if (n < 0)
		return n;
	if ((size_t)n != len || memcmp(again, text, len) != 0)
		return pst_fail(e, EINVAL, "log entry: not in its one canonical spelling");
	return 0;
}
