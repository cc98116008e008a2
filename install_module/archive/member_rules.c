/*
 * The member rules (see member_rules.h for the table at a glance). Each
 * rule reads facts only (member_path.h measures the paths); the sentences
 * quote names through tarball_shown(), so a hostile name reaches no
 * terminal raw.
 */
#include "member_rules.h"

#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "member_path.h"
#include "text_show.h"

struct member_rule {
	enum member_stage stage;
	const char *name;
	bool (*allows)(const struct member_facts *f, struct decision *d);
};

const char *tarball_shown(const char *s, size_t len, char buf[TARBALL_SHOWN_SIZE])
{
	if (!text_safe_copy(buf, TARBALL_SHOWN_MAX + 1, s, len, TEXT_REPLACE))
		strcat(buf, "...");
	return buf;
}

/* Two names may be quoted in one sentence, so each gets its own buffer. */
struct shown {
	char member[TARBALL_SHOWN_SIZE];
	char other[TARBALL_SHOWN_SIZE];
};

static const char *member(const struct member_facts *f, struct shown *b)
{
	return tarball_shown(f->name, strlen(f->name), b->member);
}

static const char *other(const char *s, size_t len, struct shown *b)
{
	return tarball_shown(s, len, b->other);
}

static const char *link_target(const struct member_facts *f)
{
	return f->linkname != NULL ? f->linkname : "";
}

static bool is_link(enum tarball_member_kind kind)
{
	return kind == TARBALL_MEMBER_SYMLINK || kind == TARBALL_MEMBER_HARDLINK;
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

/* The text rules, for a name or a link target (what says which). */
static bool text_allows(const struct member_facts *f, const char *what, const char *path,
			struct decision *d)
{
	struct shown b;

	switch (member_path_text(path)) {
	case MEMBER_TEXT_OK:
		return true;
	case MEMBER_TEXT_EMPTY:
		return decision_refuse(d, "member %s: its %s is empty", member(f, &b), what);
	case MEMBER_TEXT_LONG:
		return decision_refuse(d, "member %s: its %s is longer than %d bytes",
				       member(f, &b), what, MEMBER_PATH_MAX);
	case MEMBER_TEXT_NOT_TEXT:
		return decision_refuse(d, "member %s: its %s contains control characters or is not UTF-8",
				       member(f, &b), what);
	case MEMBER_TEXT_ABSOLUTE:
		break;
	}
	return decision_refuse(d, "member %s: its %s is an absolute path (not allowed)",
			       member(f, &b), what);
}

static bool components_allow(const struct member_facts *f, const char *path, struct decision *d)
{
	struct shown b;
	size_t len;
	const char *bad = member_path_bad_component(path, &len);

	if (bad == NULL)
		return true;
	if (len == 0)
		return decision_refuse(d, "member %s: empty path components (//) are not allowed",
				       member(f, &b));
	return decision_refuse(d, "member %s: '%.*s' components are not allowed", member(f, &b),
			       (int)len, bad);
}

static bool inside_top_allows(const struct member_facts *f, const char *what, const char *path,
			      struct decision *d)
{
	struct shown b;

	if (member_path_in_top(path, f->top))
		return true;
	return decision_refuse(d, "member %s: its %s is not inside %s/ (a release tarball holds "
			       "exactly one top directory, named <module>-<version>)",
			       member(f, &b), what, f->top);
}

static bool portable_allows(const struct member_facts *f, const char *what, const char *path,
			    struct decision *d)
{
	struct shown b;
	const char *c = NULL;
	size_t len = 0;

	switch (member_path_portable(path, &c, &len)) {
	case MEMBER_PORTABLE_OK:
		return true;
	case MEMBER_PORTABLE_BACKSLASH:
		return decision_refuse(d, "member %s: its %s holds a backslash, which Windows reads "
				       "as a directory separator; rename it", member(f, &b), what);
	case MEMBER_PORTABLE_STREAM:
		return decision_refuse(d, "member %s: its %s has '%s', an NTFS stream type "
				       "(\"x::$DATA\" is \"x\" itself on Windows); rename it",
				       member(f, &b), what, other(c, len, &b));
	case MEMBER_PORTABLE_ALIAS:
		return decision_refuse(d, "member %s: its %s has the component '%s', which macOS "
				       "or Windows read as '.', '..' or nothing (invisible characters, "
				       "trailing dots or spaces, or a ':' stream); rename it",
				       member(f, &b), what, other(c, len, &b));
	case MEMBER_PORTABLE_SHORT_NAME:
		break;
	}
	return decision_refuse(d, "member %s: its %s has the component '%s', which looks like a "
			       "Windows 8.3 short name and may name another member there (like "
			       "GIT~1 for .git); rename it", member(f, &b), what, other(c, len, &b));
}

static bool through_allows(const struct member_facts *f, const char *symlink, bool exact,
			   struct decision *d)
{
	struct shown b;

	if (symlink == NULL)
		return true;
	return decision_refuse(d, "member %s goes through the symlink %s%s: a symlink may not "
			       "stand for a directory or a file of the archive", member(f, &b),
			       other(symlink, strlen(symlink), &b),
			       exact ? "" : " on case-insensitive or Unicode-normalising file "
			       "systems (macOS, Windows)");
}

static bool has_name(const struct member_facts *f, struct decision *d)
{
	if (f->name == NULL)
		return decision_refuse(d, "a member has no usable name");
	return true;
}

static bool name_text(const struct member_facts *f, struct decision *d)
{
	return text_allows(f, "name", f->name, d);
}

static bool name_components(const struct member_facts *f, struct decision *d)
{
	return components_allow(f, f->name, d);
}

static bool name_inside_top(const struct member_facts *f, struct decision *d)
{
	return inside_top_allows(f, "name", f->name, d);
}

static bool kind_allowed(const struct member_facts *f, struct decision *d)
{
	struct shown b;

	if (f->kind == TARBALL_MEMBER_FILE || f->kind == TARBALL_MEMBER_DIR || is_link(f->kind))
		return true;
	return decision_refuse(d, "member %s is %s; a release may only contain files, directories "
			       "and links", member(f, &b), kind_name(f->kind));
}

static bool top_is_directory(const struct member_facts *f, struct decision *d)
{
	struct shown b;

	if (f->kind == TARBALL_MEMBER_DIR || member_path_depth(f->name) > 0)
		return true;
	return decision_refuse(d, "member %s: the top entry %s must be a directory, not %s",
			       member(f, &b), f->top, kind_name(f->kind));
}

static bool symlink_target_text(const struct member_facts *f, struct decision *d)
{
	if (f->kind != TARBALL_MEMBER_SYMLINK)
		return true;
	return text_allows(f, "link target", link_target(f), d);
}

static bool symlink_target_climbs_first(const struct member_facts *f, struct decision *d)
{
	struct shown b;

	if (f->kind != TARBALL_MEMBER_SYMLINK || member_target_climbs_first(f->linkname))
		return true;
	return decision_refuse(d, "member %s: symlink target %s has '..' after a directory name "
			       "(write it with the '..' first, like ../../dir/file)", member(f, &b),
			       other(f->linkname, strlen(f->linkname), &b));
}

/* Resolved from the link's directory, depth - 1 levels below the top one. */
static bool symlink_target_inside(const struct member_facts *f, struct decision *d)
{
	struct shown b;
	size_t depth;

	if (f->kind != TARBALL_MEMBER_SYMLINK)
		return true;
	depth = member_path_depth(f->name);
	if (depth > 0 && member_target_climb(f->linkname) <= depth - 1)
		return true;
	return decision_refuse(d, "member %s: symlink target %s points outside the top directory",
			       member(f, &b), other(f->linkname, strlen(f->linkname), &b));
}

static bool hardlink_target_text(const struct member_facts *f, struct decision *d)
{
	if (f->kind != TARBALL_MEMBER_HARDLINK)
		return true;
	return text_allows(f, "hard link target", link_target(f), d);
}

static bool hardlink_target_components(const struct member_facts *f, struct decision *d)
{
	if (f->kind != TARBALL_MEMBER_HARDLINK)
		return true;
	return components_allow(f, f->linkname, d);
}

static bool hardlink_target_inside(const struct member_facts *f, struct decision *d)
{
	if (f->kind != TARBALL_MEMBER_HARDLINK)
		return true;
	return inside_top_allows(f, "hard link target", f->linkname, d);
}

/* Whoever unpacks a release as root would get these bits; a symlink's mode means nothing. */
static bool mode_safe(const struct member_facts *f, struct decision *d)
{
	struct shown b;
	const char *what = NULL;

	if ((f->perm & S_ISUID) != 0)
		what = "set-uid";
	else if ((f->perm & S_ISGID) != 0)
		what = "set-gid";
	else if ((f->perm & S_IWOTH) != 0 && f->kind != TARBALL_MEMBER_SYMLINK)
		what = "world-writable";
	if (what == NULL)
		return true;
	return decision_refuse(d, "member %s has mode %04o (%s): a release may not hold set-uid, "
			       "set-gid or world-writable members, which whoever unpacks it as "
			       "root would get (chmod u-s,g-s,o-w and make the tarball again)",
			       member(f, &b), f->perm & 07777, what);
}

static bool name_portable(const struct member_facts *f, struct decision *d)
{
	return portable_allows(f, "name", f->name, d);
}

static bool link_target_portable(const struct member_facts *f, struct decision *d)
{
	if (!is_link(f->kind))
		return true;
	return portable_allows(f, f->kind == TARBALL_MEMBER_SYMLINK ? "link target" :
			       "hard link target", f->linkname, d);
}

static bool not_through_symlink(const struct member_facts *f, struct decision *d)
{
	return through_allows(f, f->seen.symlink, f->seen.symlink_exact, d);
}

/* A hard link to a symlink would move the symlink's relative target to another directory. */
static bool link_not_through_symlink(const struct member_facts *f, struct decision *d)
{
	if (f->kind != TARBALL_MEMBER_HARDLINK)
		return true;
	return through_allows(f, f->seen.link_symlink, f->seen.link_symlink_exact, d);
}

/*
 * libarchive reads pax names NFC normalised, so two members it reports
 * with the same name may be two spellings that GNU tar writes as two files
 * on Linux and one elsewhere. Only a directory may be repeated (tar
 * --append, hand-made archives): two spellings of one directory merge, and
 * what each holds is checked member by member.
 */
static bool not_repeated(const struct member_facts *f, struct decision *d)
{
	const struct member_seen *s = &f->seen;
	struct shown b;

	if (s->same == NULL ||
	    (s->same_bytes && f->kind == TARBALL_MEMBER_DIR && s->same_kind == TARBALL_MEMBER_DIR))
		return true;
	if (s->same_bytes)
		return decision_refuse(d, "member %s appears twice in the archive (perhaps spelled in "
				       "two Unicode forms, which tar programs read differently); a "
				       "release holds each member once", member(f, &b));
	return decision_refuse(d, "member %s and member %s have names that are the same file on "
			       "case-insensitive or Unicode-normalising file systems (macOS, "
			       "Windows); rename one of them", member(f, &b),
			       other(s->same, strlen(s->same), &b));
}

static const struct member_rule rules[] = {
	{ MEMBER_STAGE_HEADER, "has_name", has_name },
	{ MEMBER_STAGE_HEADER, "name_text", name_text },
	{ MEMBER_STAGE_HEADER, "name_components", name_components },
	{ MEMBER_STAGE_HEADER, "name_inside_top", name_inside_top },
	{ MEMBER_STAGE_HEADER, "kind_allowed", kind_allowed },
	{ MEMBER_STAGE_HEADER, "top_is_directory", top_is_directory },
	{ MEMBER_STAGE_HEADER, "symlink_target_text", symlink_target_text },
	{ MEMBER_STAGE_HEADER, "symlink_target_climbs_first", symlink_target_climbs_first },
	{ MEMBER_STAGE_HEADER, "symlink_target_inside", symlink_target_inside },
	{ MEMBER_STAGE_HEADER, "hardlink_target_text", hardlink_target_text },
	{ MEMBER_STAGE_HEADER, "hardlink_target_components", hardlink_target_components },
	{ MEMBER_STAGE_HEADER, "hardlink_target_inside", hardlink_target_inside },
	{ MEMBER_STAGE_HEADER, "mode_safe", mode_safe },
	{ MEMBER_STAGE_HEADER, "name_portable", name_portable },
	{ MEMBER_STAGE_HEADER, "link_target_portable", link_target_portable },
	{ MEMBER_STAGE_EARLIER, "not_through_symlink", not_through_symlink },
	{ MEMBER_STAGE_EARLIER, "link_not_through_symlink", link_not_through_symlink },
	{ MEMBER_STAGE_EARLIER, "not_repeated", not_repeated },
};

bool member_rules_check(enum member_stage stage, const struct member_facts *f,
			struct decision *d)
{
	size_t i;

	decision_allow(d);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].stage == stage && !rules[i].allows(f, d)) {
			d->rule = rules[i].name;
			return false;
		}
	return true;
}
