/*
 * pax global headers in an uploaded tar stream.
 *
 * libarchive reads a global header ('g') and ignores it, but GNU tar
 * applies its keywords to every member after it: a global path= renames
 * them all, a global linkpath= retargets every symlink. The member check
 * sees libarchive's view only, so a tarball could pass it and still unpack
 * elsewhere with GNU tar. tar_global_feed() closes that gap: every 512-byte
 * block of the tar stream that a tar reader could take for a global header
 * (typeflag 'g' and a matching checksum) must have a body of at most one
 * block holding only keywords that name no path (comment, which git
 * archive writes; times; owners).
 *
 * The same goes for the GNU long name and long link headers ('L', 'K'):
 * when one comes before a pax extended header ('x') in front of the same
 * member, libarchive takes the long name and GNU tar the pax path. No tar
 * tool writes both kinds for one member, so such a chain is refused: from
 * every L/K header (and every extended header chained after one), the
 * header GNU tar would read next, right after the body, must not be 'x'.
 *
 * Likewise a header whose magic starts "ustar" but is neither "ustar\0"
 * nor GNU's "ustar  \0" is refused: libarchive joins its prefix field to
 * the name, GNU tar does not ("demo-1.0/.bashrc" against ".bashrc").
 *
 * And a header whose checksum or size is not a plain octal number is
 * refused: GNU tar skips such a header and takes the next block that looks
 * like one, which libarchive may have read as member data.
 *
 * The records of a pax extended header ('x') must be well formed, a size=
 * plain decimal digits (libarchive reads "512X" as 512, GNU tar ignores it
 * and reads the data as headers) and no GNU.sparse.* keyword is accepted;
 * nor is an old GNU sparse header ('S'): sparse maps are read differently
 * enough by tar programs that a release has no business holding one.
 *
 * Every block is looked at, member data included, and none is skipped as
 * "body", so a header cannot hide inside another one's body; a block of
 * member data that happens to be such a header is refused too (it takes a
 * tar file inside the release whose own global header sets a path).
 */
#ifndef POSTERN_TARBALL_GLOBAL_H
#define POSTERN_TARBALL_GLOBAL_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"

#define TAR_BLOCK 512
/* L/K header chains followed at once; real archives have one at a time. */
#define TAR_LONG_CHAINS 16
/* The largest pax extended header body accepted (a long path and link take 8 KiB). */
#define TAR_PAX_MAX (16 * 1024)

struct tar_global_scan {
	unsigned char block[TAR_BLOCK];  /* a block cut between two feeds */
	size_t have;                     /* bytes of it so far (= stream offset mod 512) */
	unsigned char body[TAR_PAX_MAX]; /* the body of the pax header being read */
	size_t body_have, body_want;     /* body_want 0: none */
	char body_type;                  /* 'g', 'x' or 'X' */
	uint64_t offset;                 /* stream offset of the block being looked at */
	uint64_t after_long[TAR_LONG_CHAINS];  /* where headers chained after L/K come */
	size_t n_after_long;
};

/*
 * Feed the next len bytes of the decompressed tar stream (from its start,
 * in order). Returns 0, or -EBADMSG with why filled when a global header
 * sets anything but the allowed keywords, is malformed or is too large.
 */
int tar_global_feed(struct tar_global_scan *g, const void *buf, size_t len, struct pst_err *why);

#endif
