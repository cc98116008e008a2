/*
 * The DOAP parser: every file of the GNOME corpus (tests/policy/data/doap)
 * yields exactly the maintainers EXPECTED.tsv lists for it, in order; synthetic files cover the
 * rdf:RDF wrapper and a file without maintainers; XXE, external DTDs,
 * entity bombs (any DOCTYPE) are refused without anything outside being opened (an inotify
 * watch on the target file sees no open).
 *
 * Usage: test_policy_doap DOAP_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "doap.h"

static const char *doap_dir;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf = malloc(DOAP_FILE_MAX + 1);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, DOAP_FILE_MAX, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

struct expected {
	char module[128];
	char userid[64];
	char name[128];
};

static size_t read_expected(struct expected *rows, size_t max)
{
	char path[4096], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/EXPECTED.tsv", doap_dir);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));     /* header */
	while (fgets(line, sizeof(line), f) != NULL && n < max) {
		line[strcspn(line, "\n")] = '\0';
		assert_int_equal(sscanf(line, "%127[^\t]\t%63[^\t]\t%127[^\t]", rows[n].module,
					rows[n].userid, rows[n].name), 3);
		n++;
	}
	fclose(f);
	return n;
}

static void check_module(const char *module, const struct expected *rows, size_t nrows,
			 size_t *matched)
{
	struct doap_maintainers dm;
	struct pst_err e;
	char path[4096];
	size_t len, i, k = 0;
	char *buf;

	snprintf(path, sizeof(path), "%s/%s.doap", doap_dir, module);
	buf = slurp(path, &len);
	if (doap_parse(buf, len, path, &dm, &e) != 0)
		fail_msg("%s", e.msg);
	for (i = 0; i < nrows; i++) {
		if (strcmp(rows[i].module, module) != 0)
			continue;
		if (k >= dm.n)
			fail_msg("%s: missing maintainer %s", module, rows[i].userid);
		assert_string_equal(dm.v[k].userid ? dm.v[k].userid : "-", rows[i].userid);
		assert_string_equal(dm.v[k].name ? dm.v[k].name : "-", rows[i].name);
		k++;
	}
	if (k != dm.n)
		fail_msg("%s: %zu maintainers parsed, %zu expected", module, dm.n, k);
	*matched += k;
	doap_maintainers_free(&dm);
	free(buf);
}

static void test_corpus_matches_expected(void **state)
{
	static struct expected rows[512];
	size_t nrows = read_expected(rows, 512);
	size_t matched = 0, files = 0;
	struct dirent *de;
	DIR *d = opendir(doap_dir);

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		char module[128];
		if (len <= 5 || strcmp(de->d_name + len - 5, ".doap") != 0)
			continue;
		snprintf(module, sizeof(module), "%.*s", (int)(len - 5), de->d_name);
		check_module(module, rows, nrows, &matched);
		files++;
	}
	closedir(d);
	assert_int_equal(files, 40);
	assert_int_equal(nrows, 109);
	assert_int_equal(matched, nrows);
}

static void parse_ok(const char *text, struct doap_maintainers *dm)
{
	struct pst_err e;

	if (doap_parse(text, strlen(text), "t.doap", dm, &e) != 0)
		fail_msg("%s", e.msg);
}

#define HEAD "<Project xmlns=\"http://usefulinc.com/ns/doap#\" " \
	"xmlns:foaf=\"http://xmlns.com/foaf/0.1/\" " \
	"xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" " \
	"xmlns:gnome=\"http://api.gnome.org/doap-extensions#\">"

static void test_rdf_wrapper(void **state)
{
	static const char text[] =
		"<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
		HEAD "<maintainer><foaf:Person><foaf:name>A</foaf:name>"
		"<gnome:userid>auser</gnome:userid></foaf:Person></maintainer></Project>"
		"</rdf:RDF>";
	struct doap_maintainers dm;

	(void)state;
	parse_ok(text, &dm);
	assert_int_equal(dm.n, 1);
	assert_string_equal(dm.v[0].userid, "auser");
	doap_maintainers_free(&dm);
}

static void test_no_maintainer_and_authors_ignored(void **state)
{
	static const char text[] = HEAD
		"<author><foaf:Person><gnome:userid>writer</gnome:userid></foaf:Person></author>"
		"<!-- <maintainer><foaf:Person><gnome:userid>old</gnome:userid></foaf:Person>"
		"</maintainer> --></Project>";
	struct doap_maintainers dm;

	(void)state;
	parse_ok(text, &dm);
	assert_int_equal(dm.n, 0);
	doap_maintainers_free(&dm);
}

static void test_account_fallback_prefers_gitlab(void **state)
{
	static const char text[] = HEAD
		"<maintainer><foaf:Person><foaf:name>K</foaf:name>"
		"<foaf:account><foaf:OnlineAccount><foaf:accountServiceHomepage "
		"rdf:resource=\"https://github.com\"/><foaf:accountName>gh</foaf:accountName>"
		"</foaf:OnlineAccount></foaf:account>"
		"<foaf:account><foaf:OnlineAccount><foaf:accountServiceHomepage "
		"rdf:resource=\"https://gitlab.gnome.org\"/><foaf:accountName> gl </foaf:accountName>"
		"</foaf:OnlineAccount></foaf:account></foaf:Person></maintainer></Project>";
	struct doap_maintainers dm;

	(void)state;
	parse_ok(text, &dm);
	assert_int_equal(dm.n, 1);
	assert_string_equal(dm.v[0].userid, "gl");
	doap_maintainers_free(&dm);
}

/* Parse text and assert it is refused with a message containing want. */
static void refused(const char *text, const char *want)
{
	struct doap_maintainers dm;
	struct pst_err e;

	assert_int_not_equal(doap_parse(text, strlen(text), "evil.doap", &dm, &e), 0);
	assert_null(dm.v);
	assert_int_equal(dm.n, 0);
	if (strstr(e.msg, want) == NULL)
		fail_msg("'%s' does not contain '%s'", e.msg, want);
	assert_true(strncmp(e.msg, "evil.doap:", 10) == 0);
}

/* A file outside that hostile DOAP files point at, watched for any open. */
struct watched {
	char dir[64];
	char path[128];
	int inotify;
};

static void watch_start(struct watched *w)
{
	int fd;

	strcpy(w->dir, "/tmp/ptpol-xxe-XXXXXX");
	assert_non_null(mkdtemp(w->dir));
	snprintf(w->path, sizeof(w->path), "%s/secret", w->dir);
	fd = open(w->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "SECRET\n", 7), 7);
	close(fd);
	w->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(w->inotify >= 0);
	assert_true(inotify_add_watch(w->inotify, w->path, IN_OPEN | IN_ACCESS) >= 0);
}

static void watch_end_untouched(struct watched *w)
{
	char buf[4096];

	assert_int_equal(read(w->inotify, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
	close(w->inotify);
	unlink(w->path);
	rmdir(w->dir);
}

static void test_xxe_refused(void **state)
{
	struct watched w;
	char text[2048];

	(void)state;
	watch_start(&w);
	snprintf(text, sizeof(text), "<?xml version=\"1.0\"?>\n"
		 "<!DOCTYPE Project [\n  <!ENTITY xxe SYSTEM \"file://%s\">\n]>\n" HEAD
		 "<maintainer><foaf:Person><gnome:userid>&xxe;</gnome:userid></foaf:Person>"
		 "</maintainer></Project>", w.path);
	refused(text, "a DOCTYPE is not allowed in a DOAP file (it could declare entities)");
	snprintf(text, sizeof(text), "<!DOCTYPE Project [<!ENTITY %% p SYSTEM \"file://%s\"> %%p;]>"
		 HEAD "</Project>", w.path);
	refused(text, "a DOCTYPE is not allowed in a DOAP file (it could declare entities)");
	snprintf(text, sizeof(text), "<!DOCTYPE Project SYSTEM \"file://%s\">" HEAD "</Project>",
		 w.path);
	refused(text, "a DOCTYPE naming an external DTD is not allowed");
	refused("<!DOCTYPE Project>" HEAD "</Project>", "evil.doap:1:");
	refused("<!DOCTYPE Project [<!ATTLIST maintainer x CDATA \"y\">]>" HEAD "</Project>",
		"a DOCTYPE is not allowed");
	snprintf(text, sizeof(text), HEAD "<xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" "
		 "href=\"file://%s\" parse=\"text\"/></Project>", w.path);
	{
		struct doap_maintainers dm;
		parse_ok(text, &dm);          /* XInclude is never processed */
		assert_int_equal(dm.n, 0);
		doap_maintainers_free(&dm);
	}
	watch_end_untouched(&w);
}

static void test_billion_laughs_refused(void **state)
{
	static const char text[] =
		"<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n"
		" <!ENTITY lol \"lol\">\n"
		" <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
		" <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;\">\n"
		" <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
		" <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n"
		" <!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;\">\n"
		" <!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;\">\n"
		" <!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;\">\n"
		" <!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;\">\n"
		" <!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;\">\n"
		"]>\n" HEAD "<maintainer><foaf:Person><gnome:userid>&lol9;</gnome:userid>"
		"</foaf:Person></maintainer></Project>";

	(void)state;
	refused(text, "evil.doap:2:");
	refused(text, "a DOCTYPE is not allowed in a DOAP file (it could declare entities)");
}

static void test_malformed_and_oversized(void **state)
{
	char *big;

	(void)state;
	refused(HEAD "<maintainer></Project>", "evil.doap:1:");
	refused("<foo/>", "not a doap:Project");
	refused("", "evil.doap");
	refused(HEAD "&undeclared;</Project>", "undeclared");
	big = malloc(DOAP_FILE_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', DOAP_FILE_MAX + 1);
	big[DOAP_FILE_MAX + 1] = '\0';
	refused(big, "larger than");
	free(big);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus_matches_expected),
		cmocka_unit_test(test_rdf_wrapper),
		cmocka_unit_test(test_no_maintainer_and_authors_ignored),
		cmocka_unit_test(test_account_fallback_prefers_gitlab),
		cmocka_unit_test(test_xxe_refused),
		cmocka_unit_test(test_billion_laughs_refused),
		cmocka_unit_test(test_malformed_and_oversized),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_policy_doap DOAP_DIR\n");
		return 2;
	}
	doap_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
