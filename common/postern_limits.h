/*
 * Compile-time limits that several programs must agree on, in one place and
 * derived from each other; the static asserts stop a build in which one no
 * longer fits another. (Not named limits.h: with -Icommon it would hide the
 * C library's.) It must never hold a limit only one file uses.
 */
#ifndef POSTERN_LIMITS_H
#define POSTERN_LIMITS_H

#include <limits.h>

/* A module name and a user name (text.h checks both). */
#define NAME_MODULE_MAX 128
#define NAME_USER_MAX 32

/* A name in an incoming directory: one path component (NAME_MAX). */
#define INCOMING_NAME_MAX NAME_MAX

/* A release: "<module>-<version>.tar.<ext>", without the NUL. */
#define RELEASE_VERSION_MAX 64
#define RELEASE_FILE_MAX (NAME_MODULE_MAX + 1 + RELEASE_VERSION_MAX + 8)

_Static_assert(NAME_MAX == 255, "Linux's NAME_MAX: the shell, the wire and the client say 255");
_Static_assert(RELEASE_FILE_MAX <= INCOMING_NAME_MAX,
	       "every release name must also be a valid incoming name");

#endif
