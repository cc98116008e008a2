/*
 * Reading install-module's lines (server_lines.h). A file counts as
 * installed only on an exact "installed as ... (sha256 <64 hex>)" line on
 * stdout; everything else is at most shown.
 */
#include "server_lines.h"

#include <string.h>

#include "text_show.h"

#define PREFIX "install-module: "

void server_text_printable(char *dst, size_t len, const char *src)
{
	text_safe_copy(dst, len, src, strlen(src), TEXT_REPLACE);
}

/* "(sha256 " then exactly 64 lowercase hex digits then ")". */
static bool find_sha256(const char *text, char out[65])
{
	const char *p = strstr(text, "(sha256 ");

	if (p == NULL)
		return false;
	p += strlen("(sha256 ");
	for (int i = 0; i < 64; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	if (p[64] != ')')
		return false;
	memcpy(out, p, 64);
	out[64] = '\0';
	return true;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void server_line_parse(const char *line, bool is_stderr, struct server_line *out)
{
	const char *name, *colon, *text;
	size_t nl;

	memset(out, 0, sizeof(*out));
	out->kind = SERVER_LINE_OTHER;
	if (!starts_with(line, PREFIX))
		return;
	name = line + strlen(PREFIX);
	colon = strstr(name, ": ");
	nl = colon != NULL ? (size_t)(colon - name) : 0;
	if (nl == 0 || nl > SERVER_FILE_MAX || memchr(name, ' ', nl) != NULL)
		return;
	memcpy(out->file, name, nl);
	out->file[nl] = '\0';
	text = colon + 2;
	if (is_stderr)
		out->kind = SERVER_LINE_REFUSED;
	else if (starts_with(text, "installed as ") && find_sha256(text, out->sha256))
		out->kind = SERVER_LINE_INSTALLED;
	else if (starts_with(text, "dry run: every check passed;") && find_sha256(text, out->sha256))
		out->kind = SERVER_LINE_WOULD;
	else
		out->kind = SERVER_LINE_STEP;
}
