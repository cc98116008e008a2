/*
 * The rules of checker/tarball_names.c: names that collide or alias '..'
 * on macOS, Windows and casefolding ext4, and the member modes a release
 * must not ship. Each case is checked as a whole tarball (through
 * tarball_check_copy, as the daemon runs it) and, where it is a per-member
 * rule, as a pure function; a near miss of each rule must pass.
 */
#define _GNU_SOURCE /* uselocale() */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tarball.h"
#include "tarball_maker.h"
#include "tarball_names.h"
#include "tarball_run.h"
#include "text_show.h"

#define DIR_(name) { name, 'd', NULL, NULL, 0 }
#define LINK_(name, target) { name, 'l', target, NULL, 0 }
#define HARD_(name, target) { name, 'h', target, NULL, 0 }

static void check_members(const struct maker_member *m, size_t n, struct run *r)
{
	struct maker_spec spec = { m, n, 0, 0, { ARCHIVE_FILTER_XZ } };

	check_fd(maker_build(&spec), r);
}

static void refused(const struct maker_member *m, size_t n, const char *why)
{
	struct run r;

	check_members(m, n, &r);
	if (r.rc != -EBADMSG || strstr(r.e.msg, why) == NULL)
		fail_msg("got %d '%s', want refusal '%s'", r.rc, r.rc != 0 ? r.e.msg : "", why);
}

static void accepted(const struct maker_member *m, size_t n)
{
	struct run r;

	check_members(m, n, &r);
	if (r.rc != 0)
		fail_msg("refused: %d %s", r.rc, r.e.msg);
	assert_int_equal(r.res.members, n);
}

static void test_case_collisions(void **state)
{
	const struct maker_member files[] = { TOP, FILE_("demo-1.0/README"), FILE_("demo-1.0/readme") };
	const struct maker_member dirs[] = {
		TOP, DIR_("demo-1.0/Src/"), FILE_("demo-1.0/src/a.c"), DIR_("demo-1.0/SRC/") };
	/* U+212A KELVIN SIGN folds to 'k'; U+00DF folds to "ss". */
	const struct maker_member kelvin[] = { TOP, FILE_("demo-1.0/kit"), FILE_("demo-1.0/\xe2\x84\xaait") };
	const struct maker_member sharp_s[] = { TOP, FILE_("demo-1.0/stra\xc3\x9f" "e"), FILE_("demo-1.0/STRASSE") };
	const struct maker_member distinct[] = {
		TOP, FILE_("demo-1.0/README"), FILE_("demo-1.0/README.md"), FILE_("demo-1.0/reader"),
		DIR_("demo-1.0/src/"), FILE_("demo-1.0/src/a.c"),
	};
	const struct maker_member twice[] = { TOP, FILE_("demo-1.0/a"), FILE_("demo-1.0/a") };
	const struct maker_member dir_as_file[] = { TOP, DIR_("demo-1.0/d/"), FILE_("demo-1.0/d") };
	const struct maker_member dir_twice[] = { TOP, DIR_("demo-1.0/d/"), DIR_("demo-1.0/d"), TOP };

	(void)state;
	refused(files, N(files), "member demo-1.0/readme and member demo-1.0/README have names "
		"that are the same file");
	refused(dirs, N(dirs), "member demo-1.0/SRC/ and member demo-1.0/Src");
	refused(kelvin, N(kelvin), "the same file on case-insensitive");
	refused(sharp_s, N(sharp_s), "the same file on case-insensitive");
	refused(twice, N(twice), "member demo-1.0/a appears twice in the archive");
	refused(dir_as_file, N(dir_as_file), "member demo-1.0/d appears twice");
	accepted(dir_twice, N(dir_twice));
	accepted(distinct, N(distinct));
}

static void test_normalisation_collisions(void **state)
{
	/* "é" composed (U+00E9) and decomposed (e + U+0301). */
	const struct maker_member nfc_nfd[] = {
		TOP, FILE_("demo-1.0/caf\xc3\xa9"), FILE_("demo-1.0/cafe\xcc\x81") };
	const struct maker_member ntfs_dot[] = { TOP, FILE_("demo-1.0/x"), FILE_("demo-1.0/x.") };
	const struct maker_member ntfs_space[] = { TOP, FILE_("demo-1.0/x"), FILE_("demo-1.0/x  ") };
	const struct maker_member ignorable[] = {
		TOP, FILE_("demo-1.0/Makefile"), FILE_("demo-1.0/Make\xe2\x80\x8c" "file") };
	const struct maker_member one_nfd[] = { TOP, FILE_("demo-1.0/cafe\xcc\x81") };

	(void)state;
	/* libarchive reads pax names NFC normalised: it sees the same name twice. */
	refused(nfc_nfd, N(nfc_nfd), "member demo-1.0/caf\xc3\xa9 appears twice");
	refused(ntfs_dot, N(ntfs_dot), "member demo-1.0/x. and member demo-1.0/x");
	refused(ntfs_space, N(ntfs_space), "and member demo-1.0/x have");
	refused(ignorable, N(ignorable), "and member demo-1.0/Makefile have");
	accepted(one_nfd, N(one_nfd));
}

static void test_folded_symlinks(void **state)
{
	const struct maker_member through_case[] = {
		TOP, DIR_("demo-1.0/sub/"), LINK_("demo-1.0/link", "sub"), FILE_("demo-1.0/LINK/evil") };
	const struct maker_member through_nfd[] = {
		TOP, DIR_("demo-1.0/sub/"), LINK_("demo-1.0/\xc3\xa9", "sub"),
		FILE_("demo-1.0/e\xcc\x81/evil") };
	const struct maker_member hard_to_link[] = {
		TOP, DIR_("demo-1.0/a/"), LINK_("demo-1.0/a/l", "../x"), HARD_("demo-1.0/h", "demo-1.0/A/L") };
	const struct maker_member hard_under_link[] = {
		TOP, DIR_("demo-1.0/sub/"), FILE_("demo-1.0/sub/f"), LINK_("demo-1.0/d", "sub"),
		HARD_("demo-1.0/h", "demo-1.0/D/f") };
	const struct maker_member fine[] = {
		TOP, DIR_("demo-1.0/sub/"), FILE_("demo-1.0/sub/f"), LINK_("demo-1.0/d", "sub"),
		HARD_("demo-1.0/h", "demo-1.0/sub/f"), FILE_("demo-1.0/dd/x") };

	(void)state;
	refused(through_case, N(through_case), "member demo-1.0/LINK/evil goes through the symlink "
		"demo-1.0/link on case-insensitive");
	/* libarchive reads pax names NFC normalised: the symlink is met byte for byte. */
	refused(through_nfd, N(through_nfd), "goes through the symlink demo-1.0/\xc3\xa9");
	refused(hard_to_link, N(hard_to_link), "member demo-1.0/h goes through the symlink demo-1.0/a/l");
	refused(hard_under_link, N(hard_under_link), "member demo-1.0/h goes through the symlink demo-1.0/d");
	accepted(fine, N(fine));
}

static void test_dotdot_aliases(void **state)
{
	/* Symlink targets climbing with a '..' that only HFS+ or NTFS read as '..'. */
	const struct maker_member hfs[] = {
		TOP, DIR_("demo-1.0/a/"), LINK_("demo-1.0/a/l", "../.\xe2\x80\x8c./x") };
	const struct maker_member ntfs_dots[] = { TOP, LINK_("demo-1.0/l", ".../x") };
	const struct maker_member ntfs_space[] = { TOP, LINK_("demo-1.0/l", ".. /etc") };
	const struct maker_member stream[] = { TOP, LINK_("demo-1.0/l", "..:x/etc") };
	/* A member whose name is '..' to HFS+ or NTFS. */
	const struct maker_member name_hfs[] = { TOP, FILE_("demo-1.0/\xe2\x80\x8b../x") };
	const struct maker_member name_ntfs[] = { TOP, FILE_("demo-1.0/.. /x") };
	const struct maker_member backslash[] = { TOP, FILE_("demo-1.0/..\\..\\x") };
	const struct maker_member link_backslash[] = { TOP, LINK_("demo-1.0/l", "..\\..\\x") };
	const struct maker_member data_stream[] = { TOP, FILE_("demo-1.0/x::$DATA") };
	const struct maker_member short_name[] = {
		TOP, LINK_("demo-1.0/longlinkname", "."), FILE_("demo-1.0/LONGLI~1/evil") };
	const struct maker_member fine[] = {
		TOP, DIR_("demo-1.0/a/"), LINK_("demo-1.0/a/l", "../b/x"), FILE_("demo-1.0/.hidden"),
		FILE_("demo-1.0/Foo::Bar.3pm"), FILE_("demo-1.0/backup~"), FILE_("demo-1.0/v1.0~rc1.txt"),
		FILE_("demo-1.0/..data") };

	(void)state;
	refused(hfs, N(hfs), "which macOS or Windows read as '.', '..' or nothing");
	refused(ntfs_dots, N(ntfs_dots), "its link target has the component '...'");
	refused(ntfs_space, N(ntfs_space), "its link target has the component '.. '");
	refused(stream, N(stream), "its link target has the component '..:x'");
	refused(name_hfs, N(name_hfs), "which macOS or Windows read as");
	refused(name_ntfs, N(name_ntfs), "its name has the component '.. '");
	refused(backslash, N(backslash), "its name holds a backslash");
	refused(link_backslash, N(link_backslash), "its link target holds a backslash");
	refused(data_stream, N(data_stream), "an NTFS stream type");
	refused(short_name, N(short_name), "'LONGLI~1', which looks like a Windows 8.3 short name");
	accepted(fine, N(fine));
}

/* A tar whose members carry the given permission bits, compressed with xz. */
static int moded_tarball(const char *name, unsigned type, unsigned perm, const char *link)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int fd = maker_memfd("tar"), out;

	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_fd(a, fd), ARCHIVE_OK);
	archive_entry_set_pathname(e, "demo-1.0/");
	archive_entry_set_filetype(e, AE_IFDIR);
	archive_entry_set_perm(e, 0755);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	archive_entry_clear(e);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, link);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
	out = maker_compress(fd, ARCHIVE_FILTER_XZ);
	assert_int_equal(lseek(out, 0, SEEK_SET), 0);
	return out;
}

static void mode_case(const char *name, unsigned type, unsigned perm, const char *link,
		      const char *why)
{
	struct run r;

	check_fd(moded_tarball(name, type, perm, link), &r);
	if (why == NULL && r.rc != 0)
		fail_msg("%s %04o refused: %s", name, perm, r.e.msg);
	if (why != NULL && (r.rc != -EBADMSG || strstr(r.e.msg, why) == NULL))
		fail_msg("%s %04o: got %d '%s', want '%s'", name, perm, r.rc, r.rc != 0 ? r.e.msg : "",
			 why);
}

/* Two files in GNU tar format, whose names libarchive reads as raw bytes (no pax, no NFC). */
static int gnutar_two_files(const char *a_name, const char *b_name)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	const char *names[] = { "demo-1.0/", a_name, b_name };
	int fd = maker_memfd("tar"), out;
	size_t i;

	assert_int_equal(archive_write_set_format_gnutar(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_fd(a, fd), ARCHIVE_OK);
	for (i = 0; i < N(names); i++) {
		archive_entry_clear(e);
		archive_entry_copy_pathname(e, names[i]);
		archive_entry_set_filetype(e, i == 0 ? AE_IFDIR : AE_IFREG);
		archive_entry_set_perm(e, i == 0 ? 0755 : 0644);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);
	out = maker_compress(fd, ARCHIVE_FILTER_XZ);
	assert_int_equal(lseek(out, 0, SEEK_SET), 0);
	return out;
}

static void test_raw_nfd_collision(void **state)
{
	struct run r;

	(void)state;
	check_fd(gnutar_two_files("demo-1.0/caf\xc3\xa9", "demo-1.0/cafe\xcc\x81"), &r);
	assert_int_equal(r.rc, -EBADMSG);
	assert_non_null(strstr(r.e.msg, "member demo-1.0/cafe\xcc\x81 and member "
				"demo-1.0/caf\xc3\xa9 have names that are the same file"));
	check_fd(gnutar_two_files("demo-1.0/caf\xc3\xa9", "demo-1.0/cafe"), &r);
	if (r.rc != 0)
		fail_msg("refused: %s", r.e.msg);
}

/*
 * A hostile member name through the whole check, as the maintainer reads
 * the refusal: C1 CSI as UTF-8 (U+009B), as a stray byte, ESC, and a bidi
 * override next to a control. Each is refused, and the sentence quotes the name with '?'
 * for what a terminal would act on (common/text_show.h).
 */
static void test_hostile_names_quoted_clean(void **state)
{
	static const struct {
		const char *name;
		const char *quoted;
	} table[] = {
		{ "demo-1.0/x\xc2\x9b" "2J", "member demo-1.0/x??2J:" },
		{ "demo-1.0/x\x9b" "2J", "member demo-1.0/x?2J:" },
		{ "demo-1.0/x\x1b[2J", "member demo-1.0/x?[2J:" },
		/* (a bidi override alone is a legal name; with a control it is quoted) */
		{ "demo-1.0/\xe2\x80\xae" "exe\x01", "member demo-1.0/???exe?:" },
	};
	char escaped[4 * PST_ERR_MAX + 1];
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < N(table); i++) {
		check_fd(gnutar_two_files(table[i].name, "demo-1.0/README"), &r);
		text_safe_copy(escaped, sizeof(escaped), r.e.msg, strlen(r.e.msg), TEXT_ESCAPE);
		if (r.rc != -EBADMSG || !text_printable(r.e.msg, strlen(r.e.msg)) ||
		    strstr(r.e.msg, table[i].quoted) == NULL)
			fail_msg("row %zu: got %d '%s', want a refusal quoting '%s'", i, r.rc, escaped,
				 table[i].quoted);
	}
}

static void test_modes(void **state)
{
	(void)state;
	mode_case("demo-1.0/su", AE_IFREG, 04755, NULL,
		  "member demo-1.0/su has mode 4755 (set-uid)");
	mode_case("demo-1.0/sg", AE_IFREG, 02755, NULL,
		  "member demo-1.0/sg has mode 2755 (set-gid)");
	mode_case("demo-1.0/sgdir/", AE_IFDIR, 02775, NULL,
		  "member demo-1.0/sgdir/ has mode 2775 (set-gid)");
	mode_case("demo-1.0/ww", AE_IFREG, 0666, NULL,
		  "member demo-1.0/ww has mode 0666 (world-writable)");
	mode_case("demo-1.0/tmp/", AE_IFDIR, 01777, NULL,
		  "member demo-1.0/tmp/ has mode 1777 (world-writable)");
	mode_case("demo-1.0/exe", AE_IFREG, 0755, NULL, NULL);
	mode_case("demo-1.0/group", AE_IFREG, 0664, NULL, NULL);
	mode_case("demo-1.0/l", AE_IFLNK, 0777, "exe", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_collisions),
		cmocka_unit_test(test_normalisation_collisions),
		cmocka_unit_test(test_raw_nfd_collision),
		cmocka_unit_test(test_hostile_names_quoted_clean),
		cmocka_unit_test(test_folded_symlinks),
		cmocka_unit_test(test_dotdot_aliases),
		cmocka_unit_test(test_modes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
