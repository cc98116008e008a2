/*
 * Release file names and versions: what install-module accepts as
 * "<module>-<version>.tar.<ext>", how versions sort, and which directory of
 * the tree a version goes to.
 *
 * Pure string functions: no I/O, no allocation. Every refusal fills the
 * struct pst_err with a sentence for the maintainer (what is wrong and what
 * to do); callers prefix it with the file name.
 *
 * Grammar
 *   file     = module "-" version ".tar." ext
 *   ext      = "xz" | "gz" | "bz2" | "zst"
 *   module   = name_is_module() (common/text.h)
 *   version  = number *( "." part )
 *   part     = number | word
 *   number   = "0" | %x31-39 *8 DIGIT   ; no leading zero
 *   word     = "alpha" | "beta" | "rc"    ; only right after a number
 *   at most RELEASE_VERSION_MAX bytes, at most RELEASE_VERSION_PARTS parts.
 *
 * The split is unambiguous: a version never contains '-', so the version
 * is everything after the LAST '-' of the stem and the module everything
 * before it. "gtk-4-demo-1.0.tar.xz" is module "gtk-4-demo", version "1.0";
 * "gtk-4.tar.xz" is module "gtk", version "4". (Equivalently: the version is
 * the longest suffix after a '-' that is a valid version, because no suffix
 * containing a '-' can be one.)
 *
 * Order (release_version_compare): part by part from the left; numbers
 * compare numerically; alpha < beta < rc < end-of-version < any number. So
 * 45.alpha < 45.beta < 45.rc < 45 < 45.0 < 45.1 < 45.10 < 46.alpha, and
 * 3.9 < 3.10.
 *
 * Aliases: a leading zero would let one version be spelled twice (1.2 and
 * 1.02), so a new name with one is refused. Files released before that rule
 * can still hold such versions; the *_released functions accept them, and
 * release_version_same() says when two spellings are one version (which the
 * daemon treats as already released). For a total order, versions that are
 * the same but spelled differently are ordered by their text, so only
 * identical strings compare equal.
 */
#ifndef POSTERN_RELEASE_NAME_H
#define POSTERN_RELEASE_NAME_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"
#include "text.h"

/* RELEASE_VERSION_MAX and RELEASE_FILE_MAX: postern_limits.h. */
#define RELEASE_VERSION_PARTS 8
/* Room for "MAJOR.MINOR" with two 9-digit numbers, plus the NUL. */
#define RELEASE_DIR_MAX 20

enum release_compression {
	RELEASE_XZ,
	RELEASE_GZ,
	RELEASE_BZ2,
	RELEASE_ZST,
};

struct release_name {
	char module[NAME_MODULE_MAX + 1];
	char version[RELEASE_VERSION_MAX + 1];
	enum release_compression compression;
};

/*
 * Split a bare file name (no '/') into module, version and compression.
 * Returns 0, or -EINVAL with e saying what is wrong, e.g.
 * "the name must end in .tar.xz, .tar.gz, .tar.bz2 or .tar.zst" or
 * "version 1.2-beta is not a release version: ...".
 */
int release_name_parse(const char *filename, struct release_name *out, struct pst_err *e);

/*
 * Parse the name of a file already in the tree: as release_name_parse, but
 * numbers with leading zeros are accepted (released before they were
 * refused). Never for a name a client sends.
 */
int release_name_parse_released(const char *filename, struct release_name *out,
				struct pst_err *e);

/* 0 when version follows the grammar above, else -EINVAL with the reason. */
int release_version_check(const char *version, struct pst_err *e);

/* The same, leading zeros allowed: for versions already in the tree. */
int release_version_check_released(const char *version, struct pst_err *e);

/*
 * True when a and b are one version, however spelled (1.2 and 1.02): both
 * pass release_version_check_released() and compare equal part by part.
 */
bool release_version_same(const char *a, const char *b);

/*
 * <0, 0 or >0 as a sorts before, equals or after b in release order. Both
 * must have passed release_version_check_released(); anything else sorts before
 * every valid version, in strcmp order among itself, so a sort never
 * breaks on stray names.
 */
int release_version_compare(const char *a, const char *b);

/*
 * The directory of the tree a version goes to: "MAJOR" for major >= 40
 * (GNOME's scheme since GNOME 40), else "MAJOR.MINOR". override is the
 * policy's version_dir: NULL (automatic), "major" or "major.minor".
 * Returns 0 with out filled, or -EINVAL with e: an unknown override, or a
 * version whose second part is not a number when MAJOR.MINOR is needed
 * ("3" or "3.alpha"; the message says to set version_dir: major).
 * outlen must be at least RELEASE_DIR_MAX.
 */
int release_version_dir(const char *version, const char *override, char *out, size_t outlen,
			struct pst_err *e);

/* "tar.xz", "tar.gz", "tar.bz2", "tar.zst": the suffix after "<module>-<version>.". */
const char *release_compression_suffix(enum release_compression c);

/* The compression's own name as messages and mail headers use it: "xz", "gzip", ... */
const char *release_compression_name(enum release_compression c);

/* Write "<module>-<version>.<suffix>" into out; false when it does not fit. */
bool release_file_name(const struct release_name *r, char *out, size_t outlen);

#endif
