/*
 * The per-member rule of a release tarball (see tarball.h).
 *
 * Design note. Nothing is extracted on the server, but mirrors and users
 * will extract these tarballs, so a member must not be able to write or
 * point outside "<module>-<version>/". The rule is lexical and errs on the
 * side of refusing: names are plain relative paths under the top
 * directory; symlink targets may climb with ".." only at their start, so
 * the climb is measured from the link's own directory (which the stream
 * check guarantees is a real directory, not an earlier symlink) and
 * cannot be redirected by a symlink met on the way down.
 */
#include "tarball.h"

#include <stdio.h>
#include <string.h>

#include "text.h"
#include "text_show.h"

/* Longest member name or link target we look at; tar tools agree on PATH_MAX. */
#define MEMBER_NAME_MAX 4096
const char *tarball_shown(const char *s, size_t len, char buf[TARBALL_SHOWN_SIZE])
{
	if (!text_safe_copy(buf, TARBALL_SHOWN_MAX + 1, s, len, TEXT_REPLACE))
		strcat(buf, "...");
	return buf;
}

static const char *shown(const char *name, char *buf)
{
	return tarball_shown(name, strlen(name), buf);
}

static const char *kind_name(enum tarball_member_kind kind)
{
	switch (kind) {
	case TARBALL_MEMBER_FILE:
		return "a file";
	case TARBALL_MEMBER_DIR:
		return "a directory";
	case TARBALL_MEMBER_SYMLINK:
		return "a symlink";
	case TARBALL_MEMBER_HARDLINK:
		return "a hard link";
	case TARBALL_MEMBER_CHARDEV:
		return "a character device";
	case TARBALL_MEMBER_BLOCKDEV:
		return "a block device";
	case TARBALL_MEMBER_FIFO:
		return "a FIFO";
	case TARBALL_MEMBER_SOCKET:
		return "a socket";
	case TARBALL_MEMBER_UNKNOWN:
		break;
	}
	return "of an unknown type";
}

/* Text rules shared by names and link targets; what says which ("name", "link target"). */
static bool text_check(const char *member, const char *what, const char *s, struct pst_err *why)
{
	char buf[TARBALL_SHOWN_SIZE];
	size_t len = strlen(s);

	if (len == 0)
		return pst_refuse(why, "member %s: its %s is empty",
				shown(member, buf), what);
	if (len > MEMBER_NAME_MAX)
		return pst_refuse(why, "member %s: its %s is longer than %d bytes",
				shown(member, buf), what, MEMBER_NAME_MAX);
	if (str_has_control(s) || !utf8_valid(s, len))
		return pst_refuse(why, "member %s: its %s contains control characters or is not UTF-8",
				shown(member, buf), what);
	if (s[0] == '/')
		return pst_refuse(why, "member %s: its %s is an absolute path (not allowed)",
				shown(member, buf), what);
	return true;
}

/* The length of the component starting at s (up to '/' or the end). */
static size_t component_len(const char *s)
{
	const char *slash = strchr(s, '/');

	return slash != NULL ? (size_t)(slash - s) : strlen(s);
}

static bool is_dots(const char *s, size_t len, size_t dots)
{
	return len == dots && strncmp(s, "..", dots) == 0;
}

/*
 * An archive path: "<top>" or "<top>/..." with no empty, "." or ".."
 * component (one trailing '/' allowed). *depth is the number of components
 * below top; member is the entry the path belongs to (for messages).
 */
static bool path_check(const char *member, const char *what, const char *path, const char *top,
		       size_t *depth, struct pst_err *why)
{
	char buf[TARBALL_SHOWN_SIZE];
	const char *p = path;
	size_t len, n = 0;

	if (!text_check(member, what, path, why))
		return false;
	for (;;) {
		len = component_len(p);
		if (is_dots(p, len, 2) || is_dots(p, len, 1))
			return pst_refuse(why, "member %s: '%.*s' components are not allowed",
					shown(member, buf), (int)len, p);
		if (len == 0 && p[0] == '/')
			return pst_refuse(why, "member %s: empty path components (//) are "
					"not allowed", shown(member, buf));
		p += len;
		if (*p == '\0' || (p[0] == '/' && p[1] == '\0'))
			break;
		p++;
		n++;
	}
	len = component_len(path);
	if (len != strlen(top) || strncmp(path, top, len) != 0)
		return pst_refuse(why, "member %s: its %s is not inside %s/ (a release tarball holds exactly "
				"one top directory, named <module>-<version>)",
				shown(member, buf), what, top);
	*depth = n;
	return true;
}

/*
 * A symlink target, resolved from the directory of the link, which is
 * link_depth - 1 levels below top. Leading ".." may climb at most that far.
 */
static bool symlink_target_check(const char *member, const char *target, size_t link_depth,
				 struct pst_err *why)
{
	char buf[TARBALL_SHOWN_SIZE], tbuf[TARBALL_SHOWN_SIZE];
	const char *p = target;
	size_t len, up = 0;
	bool climbing = true;

	if (!text_check(member, "link target", target, why))
		return false;
	for (; *p != '\0'; p += len + (p[len] == '/')) {
		len = component_len(p);
		if (!is_dots(p, len, 2)) {
			climbing = climbing && (len == 0 || is_dots(p, len, 1));
			continue;
		}
		if (!climbing)
			return pst_refuse(why, "member %s: symlink target %s has '..' after a directory "
					"name (write it with the '..' first, like ../../dir/file)",
					shown(member, buf),
					shown(target, tbuf));
		up++;
	}
	if (link_depth == 0 || up > link_depth - 1)
		return pst_refuse(why, "member %s: symlink target %s points outside the top directory",
				shown(member, buf), shown(target, tbuf));
	return true;
}

bool tarball_member_check(const char *name, enum tarball_member_kind kind, const char *linkname,
			  const char *module, const char *version, struct pst_err *why)
{
	char top[NAME_MODULE_MAX + RELEASE_VERSION_MAX + 2], buf[TARBALL_SHOWN_SIZE];
	size_t depth = 0, target_depth = 0;
	int n = snprintf(top, sizeof(top), "%s-%s", module, version);

	if (n < 0 || (size_t)n >= sizeof(top))
		return pst_refuse(why, "internal error: module and version too long");
	if (!path_check(name, "name", name, top, &depth, why))
		return false;
	switch (kind) {
	case TARBALL_MEMBER_DIR:
		return true;
	case TARBALL_MEMBER_FILE:
	case TARBALL_MEMBER_SYMLINK:
	case TARBALL_MEMBER_HARDLINK:
		if (depth > 0)
			break;
		return pst_refuse(why, "member %s: the top entry %s must be a directory, "
				"not %s", shown(name, buf), top, kind_name(kind));
	case TARBALL_MEMBER_CHARDEV:
	case TARBALL_MEMBER_BLOCKDEV:
	case TARBALL_MEMBER_FIFO:
	case TARBALL_MEMBER_SOCKET:
	case TARBALL_MEMBER_UNKNOWN:
		return pst_refuse(why, "member %s is %s; a release may only contain files, "
				"directories and links", shown(name, buf),
				kind_name(kind));
	}
	if (kind == TARBALL_MEMBER_SYMLINK)
		return symlink_target_check(name, linkname != NULL ? linkname : "", depth, why);
	if (kind == TARBALL_MEMBER_HARDLINK)
		return path_check(name, "hard link target", linkname != NULL ? linkname : "", top,
				  &target_depth, why);
	return true;
}
