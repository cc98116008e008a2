/*
 * Lexical facts about a member's name or link target, for the member rules
 * (member_rules.h): what a path is, never whether it is allowed, and no
 * sentences. Pure functions over NUL-terminated strings.
 */
#ifndef POSTERN_MEMBER_PATH_H
#define POSTERN_MEMBER_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Longest member name or link target we look at; tar tools agree on PATH_MAX. */
#define MEMBER_PATH_MAX 4096

enum member_text {
	MEMBER_TEXT_OK,
	MEMBER_TEXT_EMPTY,
	MEMBER_TEXT_LONG,          /* more than MEMBER_PATH_MAX bytes */
	MEMBER_TEXT_NOT_TEXT,      /* a control character, or not UTF-8 */
	MEMBER_TEXT_ABSOLUTE,
};

enum member_text member_path_text(const char *path);

/*
 * The first component of path that is ".", ".." or empty (between two
 * slashes), with *len its length; NULL when there is none. One trailing
 * '/' is not an empty component.
 */
const char *member_path_bad_component(const char *path, size_t *len);

/* path is "<top>" or starts with "<top>/". */
bool member_path_in_top(const char *path, const char *top);

/* Components below the first: 0 for "top" and "top/", 1 for "top/a". */
size_t member_path_depth(const char *path);

/* A symlink target's ".." components: how many, and whether all come first. */
size_t member_target_climb(const char *target);
bool member_target_climbs_first(const char *target);

enum member_portable {
	MEMBER_PORTABLE_OK,
	MEMBER_PORTABLE_BACKSLASH,  /* Windows reads it as a separator */
	MEMBER_PORTABLE_STREAM,     /* ":$", an explicit NTFS stream type */
	MEMBER_PORTABLE_ALIAS,      /* read as ".", ".." or nothing on HFS+ or NTFS */
	MEMBER_PORTABLE_SHORT_NAME, /* looks like an NTFS 8.3 short name */
};

/*
 * How macOS (HFS+) and Windows (NTFS) read path's components. On a
 * problem other than a backslash, *comp and *comp_len name the component.
 * Components that are exactly ".", ".." or empty are left to the other
 * facts.
 */
enum member_portable member_path_portable(const char *path, const char **comp, size_t *comp_len);

/* The component c (len bytes) without the code points HFS+ ignores, into out; its length. */
size_t member_component_visible(const char *c, size_t len, char *out);

/* len without the trailing dots and spaces NTFS strips from a component. */
size_t member_component_ntfs_len(const char *c, size_t len);

#endif
