/*
 * Lexical facts about member paths (see member_path.h).
 *
 * Design note. Nothing is extracted on the server, but mirrors and users
 * will extract these tarballs, on Linux, macOS and Windows. The facts here
 * are what the member rules need to keep a member inside
 * "<module>-<version>/" as each of them reads names: byte for byte, and as
 * HFS+ (which ignores Default_Ignorable_Code_Point) and NTFS (which strips
 * trailing dots and spaces, and has streams and 8.3 short names) read a
 * component. Like git's protectHFS/protectNTFS (CVE-2014-9390), the rules
 * built on them err on the side of refusing.
 */
#include "member_path.h"

#include <string.h>

#include "text.h"
#include "unicode.h"

enum member_text member_path_text(const char *path)
{
	size_t len = strlen(path);

	if (len == 0)
		return MEMBER_TEXT_EMPTY;
	if (len > MEMBER_PATH_MAX)
		return MEMBER_TEXT_LONG;
	if (str_has_control(path) || !utf8_valid(path, len))
		return MEMBER_TEXT_NOT_TEXT;
	if (path[0] == '/')
		return MEMBER_TEXT_ABSOLUTE;
	return MEMBER_TEXT_OK;
}

/* The length of the component starting at s (up to '/' or the end). */
static size_t component_len(const char *s)
{
	const char *slash = strchr(s, '/');

	return slash != NULL ? (size_t)(slash - s) : strlen(s);
}

static bool is_exactly(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && memcmp(s, word, len) == 0;
}

/* The next component after the one at p (len bytes), or NULL at the end or a trailing '/'. */
static const char *next_component(const char *p, size_t len)
{
	if (p[len] == '\0' || (p[len] == '/' && p[len + 1] == '\0'))
		return NULL;
	return p + len + 1;
}

const char *member_path_bad_component(const char *path, size_t *len)
{
	const char *p;

	for (p = path; p != NULL; p = next_component(p, *len)) {
		*len = component_len(p);
		if (*len == 0 || is_exactly(p, *len, ".") || is_exactly(p, *len, ".."))
			return p;
	}
	return NULL;
}

bool member_path_in_top(const char *path, const char *top)
{
	size_t len = component_len(path);

	return len == strlen(top) && strncmp(path, top, len) == 0;
}

size_t member_path_depth(const char *path)
{
	const char *p = path;
	size_t n = 0;

	while ((p = next_component(p, component_len(p))) != NULL)
		n++;
	return n;
}

size_t member_target_climb(const char *target)
{
	const char *p;
	size_t len, up = 0;

	for (p = target; *p != '\0'; p += len + (p[len] == '/')) {
		len = component_len(p);
		up += is_exactly(p, len, "..");
	}
	return up;
}

/*
 * ".." only first: after a component that may itself be a symlink, ".."
 * would climb from wherever that symlink points, not from the link's own
 * directory.
 */
bool member_target_climbs_first(const char *target)
{
	const char *p;
	size_t len;
	bool climbing = true;

	for (p = target; *p != '\0'; p += len + (p[len] == '/')) {
		len = component_len(p);
		if (!is_exactly(p, len, ".."))
			climbing = climbing && (len == 0 || is_exactly(p, len, "."));
		else if (!climbing)
			return false;
	}
	return true;
}

size_t member_component_visible(const char *c, size_t len, char *out)
{
	size_t i = 0, o = 0, n;

	while (i < len) {
		n = utf8_seq_len((const unsigned char *)c + i, len - i);
		if (n == 0)
			n = 1;
		if (!codepoint_prints_nothing(utf8_decode((const unsigned char *)c + i, n))) {
			memcpy(out + o, c + i, n);
			o += n;
		}
		i += n;
	}
	return o;
}

size_t member_component_ntfs_len(const char *c, size_t len)
{
	while (len > 0 && (c[len - 1] == '.' || c[len - 1] == ' '))
		len--;
	return len;
}

/* True when NTFS may take c for an 8.3 short name: 1-6 characters, '~', digits, short extension. */
static bool looks_short_name(const char *c, size_t len)
{
	const char *tilde = memchr(c, '~', len), *dot;
	size_t i, base, digits = 0;

	if (tilde == NULL || tilde == c || tilde - c > 6)
		return false;
	for (i = 0; i < (size_t)(tilde - c); i++)
		if ((unsigned char)c[i] >= 0x80 || c[i] == '.')
			return false;
	for (i = (size_t)(tilde - c) + 1; i < len && c[i] >= '0' && c[i] <= '9'; i++)
		digits++;
	base = i;
	if (digits == 0 || c[(size_t)(tilde - c) + 1] == '0' || base > 8)
		return false;
	if (base == len)
		return true;
	dot = c + base;
	return *dot == '.' && len - base - 1 <= 3 && memchr(dot + 1, '.', len - base - 1) == NULL;
}

static bool has_stream_type(const char *c, size_t len)
{
	const char *colon;

	for (colon = memchr(c, ':', len); colon != NULL;
	     colon = memchr(colon + 1, ':', len - (size_t)(colon + 1 - c)))
		if ((size_t)(colon + 1 - c) < len && colon[1] == '$')
			return true;
	return false;
}

/* What HFS+ and NTFS make of one component that is not exactly ".", ".." or empty. */
static enum member_portable component_portable(const char *c, size_t len)
{
	char visible[MEMBER_PATH_MAX + 1];
	const char *colon = memchr(c, ':', len);
	size_t n;

	if (has_stream_type(c, len))
		return MEMBER_PORTABLE_STREAM;
	n = member_component_visible(c, colon != NULL ? (size_t)(colon - c) : len, visible);
	if (n == 0 || member_component_ntfs_len(visible, n) == 0 || is_exactly(visible, n, ".") ||
	    is_exactly(visible, n, ".."))
		return MEMBER_PORTABLE_ALIAS;
	if (looks_short_name(c, len))
		return MEMBER_PORTABLE_SHORT_NAME;
	return MEMBER_PORTABLE_OK;
}

enum member_portable member_path_portable(const char *path, const char **comp, size_t *comp_len)
{
	enum member_portable problem;
	const char *p;
	size_t len;

	if (strchr(path, '\\') != NULL)
		return MEMBER_PORTABLE_BACKSLASH;
	for (p = path; *p != '\0'; p += len + (p[len] == '/')) {
		len = component_len(p);
		if (len > MEMBER_PATH_MAX || len == 0 || is_exactly(p, len, ".") ||
		    is_exactly(p, len, ".."))
			continue;
		problem = component_portable(p, len);
		if (problem != MEMBER_PORTABLE_OK) {
			*comp = p;
			*comp_len = len;
			return problem;
		}
	}
	return MEMBER_PORTABLE_OK;
}
