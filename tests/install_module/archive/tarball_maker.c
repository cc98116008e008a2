/* Crafting release tarballs for the tests (see tarball_maker.h). */
#define _GNU_SOURCE /* memfd_create(), uselocale() */
#include "tarball_maker.h"

#include <archive.h>
#include <archive_entry.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

static size_t last_tar_size;

int maker_memfd(const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

unsigned char *maker_slurp(int fd, size_t *len)
{
	unsigned char *buf;
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	*len = (size_t)st.st_size;
	return buf;
}

static void write_all(int fd, const void *buf, size_t len)
{
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
}

static unsigned entry_type(char type)
{
	switch (type) {
	case 'd':
		return AE_IFDIR;
	case 'l':
		return AE_IFLNK;
	case 'c':
		return AE_IFCHR;
	case 'b':
		return AE_IFBLK;
	case 'p':
		return AE_IFIFO;
	default:
		return AE_IFREG;
	}
}

static void member_write(struct archive *a, const struct maker_member *m)
{
	struct archive_entry *e = archive_entry_new();
	size_t size = m->data != NULL ? strlen(m->data) : m->zeros;
	static const unsigned char zeros[65536];
	size_t left;

	archive_entry_set_pathname(e, m->name);
	archive_entry_set_perm(e, m->type == 'd' ? 0755 : 0644);
	archive_entry_set_mtime(e, 1700000000, 0);
	archive_entry_set_filetype(e, entry_type(m->type));
	if (m->type == 'l')
		archive_entry_set_symlink(e, m->link);
	if (m->type == 'h')
		archive_entry_set_hardlink(e, m->link);
	if (m->type == 'c' || m->type == 'b')
		archive_entry_set_rdev(e, 0x0103);
	if (m->type == 'f')
		archive_entry_set_size(e, (la_int64_t)size);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	if (m->type == 'f' && m->data != NULL)
		assert_int_equal(archive_write_data(a, m->data, size), (la_ssize_t)size);
	for (left = m->type == 'f' && m->data == NULL ? size : 0; left > 0;) {
		size_t n = left < sizeof(zeros) ? left : sizeof(zeros);

		assert_int_equal(archive_write_data(a, zeros, n), (la_ssize_t)n);
		left -= n;
	}
	archive_entry_free(e);
}

static int tar_build(const struct maker_spec *spec)
{
	struct archive *a = archive_write_new();
	int fd = maker_memfd("tar");
	/* Names are UTF-8; the tests themselves run in the C locale, like the daemon. */
	locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0), saved;
	unsigned char *junk;
	size_t i;

	assert_true(utf8 != (locale_t)0);
	saved = uselocale(utf8);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_fd(a, fd), ARCHIVE_OK);
	for (i = 0; i < spec->n_members; i++)
		member_write(a, &spec->members[i]);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	uselocale(saved);
	freelocale(utf8);
	if (spec->tar_trailing > 0) {
		junk = malloc(spec->tar_trailing);
		assert_non_null(junk);
		for (i = 0; i < spec->tar_trailing; i++)
			junk[i] = (unsigned char)(i * 7 + 1);
		write_all(fd, junk, spec->tar_trailing);
		free(junk);
	}
	return fd;
}

int maker_compress(int in, int filter)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int out = maker_memfd("compressed");
	unsigned char *buf;
	size_t len;

	buf = maker_slurp(in, &len);
	assert_int_equal(archive_write_add_filter(a, filter), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
	assert_int_equal(archive_write_set_bytes_in_last_block(a, 1), ARCHIVE_OK);
	assert_int_equal(archive_write_open_fd(a, out), ARCHIVE_OK);
	archive_entry_set_pathname(e, "data");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)len);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, buf, len), (la_ssize_t)len);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
	free(buf);
	close(in);
	return out;
}

int maker_build(const struct maker_spec *spec)
{
	static const unsigned char zeros[4096];
	int fd = tar_build(spec);
	size_t i, left, n;

	last_tar_size = (size_t)lseek(fd, 0, SEEK_END);
	for (i = 0; i < 3 && spec->filters[i] != ARCHIVE_FILTER_NONE; i++)
		fd = maker_compress(fd, spec->filters[i]);
	assert_true(lseek(fd, 0, SEEK_END) >= 0);
	for (left = spec->file_trailing; left > 0; left -= n) {
		n = left < sizeof(zeros) ? left : sizeof(zeros);
		write_all(fd, zeros, n);
	}
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

size_t maker_last_tar_size(void)
{
	return last_tar_size;
}
