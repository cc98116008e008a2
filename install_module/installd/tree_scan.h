/*
 * Reading what one module has in the public tree:
 * <tree>/sources/<module>/<dir>/ holds <module>-<version>.tar.<ext> release
 * files, their <module>-<version>.sha256sum, a detached OpenPGP signature
 * (<file>.asc, <file>.sig or <module>-<version>.tar.sign), one
 * LATEST-IS-<version> symlink, and possibly other files an admin put there. The tree is the
 * truth; every index is derived from a scan.
 */
#ifndef POSTERN_TREE_SCAN_H
#define POSTERN_TREE_SCAN_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "errmsg.h"
#include "release_name.h"

#define TREE_PROOF_SUFFIX ".tlog-proof"

enum tree_kind {
	TREE_RELEASE,      /* a release tarball of the module */
	TREE_SHA256SUM,    /* <module>-<version>.sha256sum */
	TREE_SIGNATURE,    /* <release>.asc, <release>.sig, <module>-<version>.tar.sign */
	TREE_PROOF,        /* <release>.tlog-proof: its entry's inclusion proof (not logged) */
	TREE_LATEST,       /* a LATEST-IS-* symlink */
	TREE_OTHER,        /* anything else (listed as "not a release" in cache.json) */
};

struct tree_entry {
	enum tree_kind kind;
	char dir[NAME_MAX + 1];   /* version directory; "." for the module directory itself */
	char name[NAME_MAX + 1];
	struct release_name rn;   /* TREE_RELEASE and TREE_PROOF; version also set for
				   * TREE_SHA256SUM and TREE_SIGNATURE */
	off_t size;
	time_t mtime;
};

struct tree_module {
	struct tree_entry *entries;
	size_t n;
	size_t cap;
};

/*
 * Scan the module directory open at module_fd. Releases come out sorted by
 * version (release_version_compare), then by file name. Returns 0 or -errno.
 */
int tree_scan_module(int module_fd, const char *module, struct tree_module *out,
		     struct pst_err *e);

/* The release of module/version in any format, however spelled
 * (release_version_same: 1.02 is 1.2), or NULL. */
const struct tree_entry *tree_find_version(const struct tree_module *m, const char *version);

/* The release whose file name is name, or NULL. */
const struct tree_entry *tree_find_file(const struct tree_module *m, const char *name);

void tree_module_free(struct tree_module *m);

/*
 * Open <sources>/<module> without following symlinks; with create, make
 * it (0755) when missing. -ENOENT when missing and !create.
 */
int tree_module_open(int sources_fd, const char *module, int create, struct pst_err *e);

/* Open <sources>/<module>/<dir> (a release's directory) without following symlinks. */
int tree_release_dir_open(int sources_fd, const char *module, const char *dir, struct pst_err *e);

#endif
