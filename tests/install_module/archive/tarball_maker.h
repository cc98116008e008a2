/*
 * Crafting release tarballs for the tarball tests, with libarchive's write
 * API: a tar built from a member table, optional bytes after its end,
 * then compressed (or not, or twice) into a memfd.
 */
#ifndef POSTERN_TEST_TARBALL_MAKER_H
#define POSTERN_TEST_TARBALL_MAKER_H

#include <stddef.h>
#include <stdint.h>

struct maker_member {
	const char *name;
	char type;               /* 'f' file, 'd' dir, 'l' symlink, 'h' hard link, 'c' chardev, 'b' blockdev, 'p' FIFO */
	const char *link;        /* symlink target or hard link path */
	const char *data;        /* file content (NUL-terminated), or NULL */
	size_t zeros;            /* or this many zero bytes of content */
};

/* Filters as libarchive ARCHIVE_FILTER_* codes, applied first to last;
 * the list ends at the first ARCHIVE_FILTER_NONE (0), so {0} is a plain tar. */
struct maker_spec {
	const struct maker_member *members;
	size_t n_members;
	size_t tar_trailing;     /* garbage bytes appended to the tar before compression */
	size_t file_trailing;    /* zero bytes appended after compression */
	int filters[3];
};

/* A memfd holding the tarball, offset 0. Fails the test on any error. */
int maker_build(const struct maker_spec *spec);

/* Compress all of in (closed afterwards) with one filter, through
 * libarchive's "raw" format; returns the new memfd, offset at its end. */
int maker_compress(int in, int filter);

/* The size of the uncompressed tar maker_build() made last. */
size_t maker_last_tar_size(void);

/* An empty memfd for the staging copy. */
int maker_memfd(const char *name);

/* Whole content of fd into a malloc'd buffer; the file offset does not move. */
unsigned char *maker_slurp(int fd, size_t *len);

#endif
