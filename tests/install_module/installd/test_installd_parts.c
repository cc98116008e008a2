/*
 * Unit tests of the daemon's pure parts: the wire request codec, the ledger
 * line format, the indexes written for a module directory, the release mail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ledger.h"
#include "release_mail.h"
#include "tree_index.h"
#include "wire.h"

static void request(struct wire_request *r, enum wire_op op, unsigned flags, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->op = op;
	r->flags = flags;
	strcpy(r->name, name);
	strcpy(r->from, "192.0.2.7");
	strcpy(r->port, "50122");
	strcpy(r->sid, "3f9c0a7e51b2d4c8");
}

static void test_wire_round_trip(void **state)
{
	struct wire_request r;
	struct wire_request back;
	uint8_t buf[WIRE_REQUEST_MAX];
	size_t len;

	(void)state;
	request(&r, WIRE_OP_INSTALL, WIRE_FLAG_DRY_RUN | WIRE_FLAG_FORCE, "gtk-4.14.0.tar.xz");
	len = wire_request_encode(&r, buf, sizeof(buf));
	assert_true(len > WIRE_HEADER_LEN);
	assert_int_equal(wire_request_decode(buf, len, &back, NULL), 0);
	assert_int_equal(back.op, WIRE_OP_INSTALL);
	assert_int_equal(back.flags, WIRE_FLAG_DRY_RUN | WIRE_FLAG_FORCE);
	assert_string_equal(back.name, "gtk-4.14.0.tar.xz");
	assert_string_equal(back.sid, "3f9c0a7e51b2d4c8");
	/* Every prefix is refused, never read past. */
	while (--len > 0)
		assert_int_equal(wire_request_decode(buf, len, &back, NULL), -EPROTO);
}

static void test_wire_refusals(void **state)
{
	struct wire_request r;
	uint8_t buf[WIRE_REQUEST_MAX];
	struct pst_err e;
	size_t len;

	(void)state;
	request(&r, WIRE_OP_INSTALL, 0, "../etc/passwd");
	assert_int_equal(wire_request_encode(&r, buf, sizeof(buf)), 0);
	request(&r, WIRE_OP_LIST_MODULE, WIRE_FLAG_FORCE, "gtk");
	assert_int_equal(wire_request_encode(&r, buf, sizeof(buf)), 0);
	request(&r, WIRE_OP_DELETE, 0, "gtk-1.0.tar.xz");
	len = wire_request_encode(&r, buf, sizeof(buf));
	assert_true(len > 0);
	buf[WIRE_HEADER_LEN] = '\n';     /* a control character in the name */
	assert_int_equal(wire_request_decode(buf, len, &r, &e), -EPROTO);
	buf[WIRE_HEADER_LEN] = 'g';
	memcpy(buf + WIRE_HEADER_LEN + 1, "\xc2\x85", 2);   /* "g<NEL>-1.0.tar.xz": a C1 control */
	assert_int_equal(wire_request_decode(buf, len, &r, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "not a plain printable file name"));
	request(&r, WIRE_OP_DELETE, 0, "gtk-1.0.tar.xz");
	len = wire_request_encode(&r, buf, sizeof(buf));
	buf[5] = 9;                      /* unknown op */
	assert_int_equal(wire_request_decode(buf, len, &r, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "unknown operation"));
	memcpy(buf, "PSTX", 4);
	assert_int_equal(wire_request_decode(buf, len, &r, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "magic"));
}

static void test_wire_signature(void **state)
{
	struct wire_request r;
	struct wire_request back;
	uint8_t buf[WIRE_REQUEST_MAX];
	char name[300];
	struct pst_err e;
	size_t len;

	(void)state;
	request(&r, WIRE_OP_INSTALL, WIRE_FLAG_DRY_RUN, "gtk-4.14.0.tar.xz");
	r.sig = WIRE_SIG_TAR;
	len = wire_request_encode(&r, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(buf[6], WIRE_SIG_TAR);       /* bits 8-9 of the flags */
	assert_int_equal(wire_request_decode(buf, len, &back, NULL), 0);
	assert_int_equal(back.sig, WIRE_SIG_TAR);
	assert_int_equal(back.flags, WIRE_FLAG_DRY_RUN);
	/* Only an install carries a signature. */
	request(&r, WIRE_OP_DELETE, 0, "gtk-4.14.0.tar.xz");
	r.sig = WIRE_SIG_ASC;
	assert_int_equal(wire_request_encode(&r, buf, sizeof(buf)), 0);
	r.sig = WIRE_SIG_NONE;
	len = wire_request_encode(&r, buf, sizeof(buf));
	buf[6] = 0x01;
	assert_int_equal(wire_request_decode(buf, len, &back, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "signature is only meaningful for install"));
	/* A bit above the signature field is still unknown. */
	buf[5] = WIRE_OP_INSTALL;
	buf[6] = 0x04;
	assert_int_equal(wire_request_decode(buf, len, &back, &e), -EPROTO);
	/* The names, derived from the upload's. */
	assert_true(wire_signature_name("gtk-4.14.0.tar.xz", WIRE_SIG_ASC, name, sizeof(name)));
	assert_string_equal(name, "gtk-4.14.0.tar.xz.asc");
	assert_true(wire_signature_name("gtk-4.14.0.tar.xz", WIRE_SIG_BIN, name, sizeof(name)));
	assert_string_equal(name, "gtk-4.14.0.tar.xz.sig");
	assert_true(wire_signature_name("gtk-4.tar.0.tar.gz", WIRE_SIG_TAR, name, sizeof(name)));
	assert_string_equal(name, "gtk-4.tar.0.tar.sign");
	assert_false(wire_signature_name("gtk-4.zip", WIRE_SIG_TAR, name, sizeof(name)));
	assert_false(wire_signature_name("gtk-4.tar.xz", WIRE_SIG_NONE, name, sizeof(name)));
	assert_false(wire_signature_name("gtk-4.tar.xz", WIRE_SIG_ASC, name, 12));
}

static void ci_request(struct wire_request *r)
{
	request(r, WIRE_OP_CI_INSTALL, WIRE_FLAG_DRY_RUN, "gtk-4.14.0.tar.xz");
	strcpy(r->ci.issuer, "gitlab");
	strcpy(r->ci.project, "GNOME/gtk");
	strcpy(r->ci.ref, "4.14.0");
	strcpy(r->ci.ref_type, "tag");
	r->ci.ref_protected = true;
	strcpy(r->ci.pipeline, "812345");
	strcpy(r->ci.job, "9912");
	memset(r->ci.sha, 'c', 40);
	strcpy(r->ci.user, "ebassi");
}

/* A ci-install carries the job; nothing else may, and its words stay words. */
static void test_wire_ci_install(void **state)
{
	struct wire_request r;
	struct wire_request back;
	uint8_t buf[WIRE_REQUEST_MAX];
	struct pst_err e;
	size_t len;

	(void)state;
	ci_request(&r);
	len = wire_request_encode(&r, buf, sizeof(buf));
	assert_true(len > WIRE_HEADER_LEN);
	assert_int_equal(wire_request_decode(buf, len, &back, &e), 0);
	assert_int_equal(back.op, WIRE_OP_CI_INSTALL);
	assert_true(wire_op_installs(back.op));
	assert_string_equal(back.ci.project, "GNOME/gtk");
	assert_string_equal(back.ci.user, "ebassi");
	assert_true(back.ci.ref_protected);
	assert_int_equal(strlen(back.ci.sha), 40);
	while (--len > 0)
		assert_int_equal(wire_request_decode(buf, len, &back, NULL), -EPROTO);
	/* The same bytes as an install: nine stray fields. */
	len = wire_request_encode(&r, buf, sizeof(buf));
	buf[5] = WIRE_OP_INSTALL;
	assert_int_equal(wire_request_decode(buf, len, &back, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "stray bytes"));
	/* An install may not name a job; a job's fields are words. */
	request(&r, WIRE_OP_INSTALL, 0, "gtk-4.14.0.tar.xz");
	strcpy(r.ci.project, "GNOME/gtk");
	assert_int_equal(wire_request_encode(&r, buf, sizeof(buf)), 0);
	ci_request(&r);
	strcpy(r.ci.user, "eve ci_user=root");
	assert_int_equal(wire_request_encode(&r, buf, sizeof(buf)), 0);
	ci_request(&r);
	strcpy(r.ci.pipeline, "12a");
	assert_int_equal(wire_request_encode(&r, buf, sizeof(buf)), 0);
	ci_request(&r);
	r.flags = WIRE_FLAG_FORCE;
	assert_int_equal(wire_request_encode(&r, buf, sizeof(buf)), 0);
	/* protected is yes or no, nothing else. */
	ci_request(&r);
	len = wire_request_encode(&r, buf, sizeof(buf));
	{
		uint8_t *yes = memmem(buf, len, "\0yes\0", 5);
		assert_non_null(yes);
		memcpy(yes + 1, "yep", 3);
	}
	assert_int_equal(wire_request_decode(buf, len, &back, &e), -EPROTO);
	assert_non_null(strstr(e.msg, "protected: yes or no"));
}

static void test_ledger_round_trip(void **state)
{
	struct ledger_record r = { 0 };
	struct ledger_record back;
	char line[LEDGER_LINE_MAX];

	(void)state;
	r.when = 1796280000;
	strcpy(r.op, "install");
	strcpy(r.user, "alice");
	strcpy(r.module, "gtk");
	strcpy(r.version, "4.14.0");
	strcpy(r.file, "gtk-4.14.0.tar.xz");
	memset(r.sha256, 'a', 64);
	strcpy(r.maintainer, "yes");
	strcpy(r.basis, "maintainer");
	strcpy(r.dir, "4.14");
	strcpy(r.forced, "no");
	strcpy(r.attic, "-");
	strcpy(r.signature, "gtk-4.14.0.tar.xz.asc");
	strcpy(r.signer, "0123456789ABCDEF0123456789ABCDEF01234567");
	assert_true(ledger_format(&r, line, sizeof(line)));
	assert_non_null(strstr(line, "time=2026-12-03T"));
	assert_true(ledger_parse(line, &back));
	assert_int_equal(back.when, r.when);
	assert_string_equal(back.file, r.file);
	assert_string_equal(back.sha256, r.sha256);
	assert_string_equal(back.signature, r.signature);
	assert_string_equal(back.signer, r.signer);
	assert_true(ledger_signed(&back));
	/* A line written before signatures existed reads as unsigned. */
	assert_true(ledger_parse("time=2026-12-03T06:40:00Z op=install user=alice module=gtk "
				 "version=4.14.0 file=gtk-4.14.0.tar.xz", &back));
	assert_string_equal(back.signature, "-");
	assert_string_equal(back.signer, "-");
	assert_false(ledger_signed(&back));
	/* A CI release: the job's fields follow, and come back. */
	strcpy(r.ci, "ci:gitlab/GNOME/gtk");
	strcpy(r.ci_pipeline, "812345");
	strcpy(r.ci_job, "9912");
	memset(r.ci_sha, 'c', 40);
	strcpy(r.ci_user, "ebassi");
	assert_true(ledger_format(&r, line, sizeof(line)));
	assert_non_null(strstr(line, " ci=ci:gitlab/GNOME/gtk ci_pipeline=812345 ci_job=9912 ci_sha=ccc"));
	assert_non_null(strstr(line, " ci_user=ebassi\n"));
	assert_true(ledger_parse(line, &back));
	assert_string_equal(back.ci, r.ci);
	assert_string_equal(back.ci_user, "ebassi");
	strcpy(r.ci_user, "eve forged=1");
	assert_false(ledger_format(&r, line, sizeof(line)));
	memset(r.ci, 0, sizeof(r.ci));
	/* A value that could forge a field is refused by the writer. */
	strcpy(r.user, "alice op=delete");
	assert_false(ledger_format(&r, line, sizeof(line)));
	strcpy(r.user, "alice\nforged");
	assert_false(ledger_format(&r, line, sizeof(line)));
}

/* A ledger line naming a user longer than any valid one is refused, not cut. */
static void test_ledger_user_fits_or_is_refused(void **state)
{
	char name[NAME_USER_MAX + 2];
	char line[LEDGER_LINE_MAX];
	struct ledger_record r;

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[NAME_USER_MAX] = '\0';
	snprintf(line, sizeof(line), "time=2026-12-03T06:40:00Z op=install user=%s file=gtk-4.tar.xz", name);
	assert_true(ledger_parse(line, &r));
	assert_string_equal(r.user, name);
	name[NAME_USER_MAX] = 'a';
	name[NAME_USER_MAX + 1] = '\0';
	snprintf(line, sizeof(line), "time=2026-12-03T06:40:00Z op=install user=%s file=gtk-4.tar.xz", name);
	assert_false(ledger_parse(line, &r));
}

static void put(int dir, const char *path, const char *text)
{
	int fd = openat(dir, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static char *slurp(int dir, const char *path)
{
	static char buf[4096];
	int fd = openat(dir, path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

static void test_reindex(void **state)
{
	char tmpl[] = "/tmp/postern-reindex-XXXXXX";
	char target[64];
	struct pst_err e;
	int sources;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	sources = open(tmpl, O_RDONLY | O_DIRECTORY);
	assert_true(sources >= 0);
	assert_int_equal(mkdirat(sources, "gtk", 0755), 0);
	assert_int_equal(mkdirat(sources, "gtk/4.14", 0755), 0);
	assert_int_equal(mkdirat(sources, "gtk/3.24", 0755), 0);
	put(sources, "gtk/4.14/gtk-4.14.0.tar.xz", "a");
	put(sources, "gtk/4.14/gtk-4.14.10.tar.xz", "b");
	put(sources, "gtk/4.14/gtk-4.14.2.tar.gz", "c");
	put(sources, "gtk/3.24/gtk-3.24.9.tar.xz", "d");
	put(sources, "gtk/3.24/README \"quoted\"", "e");
	assert_int_equal(symlinkat("gtk-4.14.0.tar.xz", sources, "gtk/4.14/LATEST-IS-4.14.0"), 0);
	assert_int_equal(tree_reindex(sources, "gtk", &e), 0);
	assert_string_equal(slurp(sources, "gtk/cache.json"),
		"[4, {\"gtk\": {"
		"\"3.24.9\": {\"tar.xz\": \"3.24/gtk-3.24.9.tar.xz\", \"sha256sum\": \"3.24/gtk-3.24.9.sha256sum\"}, "
		"\"4.14.0\": {\"tar.xz\": \"4.14/gtk-4.14.0.tar.xz\", \"sha256sum\": \"4.14/gtk-4.14.0.sha256sum\"}, "
		"\"4.14.2\": {\"tar.gz\": \"4.14/gtk-4.14.2.tar.gz\", \"sha256sum\": \"4.14/gtk-4.14.2.sha256sum\"}, "
		"\"4.14.10\": {\"tar.xz\": \"4.14/gtk-4.14.10.tar.xz\", \"sha256sum\": \"4.14/gtk-4.14.10.sha256sum\"}}}, "
		"{\"gtk\": [\"3.24.9\", \"4.14.0\", \"4.14.2\", \"4.14.10\"]}, "
		"{\"3.24\": [\"README \\\"quoted\\\"\"]}]\n");
	/* sha256("a") */
	assert_string_equal(slurp(sources, "gtk/4.14/gtk-4.14.0.sha256sum"),
		"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  gtk-4.14.0.tar.xz\n");
	n = readlinkat(sources, "gtk/4.14/LATEST-IS-4.14.10", target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "gtk-4.14.10.tar.xz");
	assert_int_equal(faccessat(sources, "gtk/4.14/LATEST-IS-4.14.0", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	char cmd[64];

	close(sources);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	assert_int_equal(system(cmd), 0);
}

static void test_release_mail(void **state)
{
	struct policy_settings set = { 0 };
	struct installd d = { 0 };
	struct hook_facts f = {
		.module = "gtk", .version = "4.14.0", .user = "bob", .file = "gtk-4.14.0.tar.xz",
		.dir = "4.14", .sha256 = "abc123", .maintainer = false,
		.news_head = "Overview of changes in 4.14.0\n- faster",
	};
	struct strbuf b = { 0 };

	(void)state;
	set.mail_to = "release-announce@example.org";
	set.mail_from = "postern@example.org";
	d.set = &set;
	release_mail_format(&d, &f, &b);
	assert_false(b.failed);
	assert_non_null(strstr(b.s, "From: postern@example.org\nTo: release-announce@example.org\n"));
	assert_non_null(strstr(b.s, "\nX-Module-Name: gtk\nX-Module-Version: 4.14.0\n"));
	assert_non_null(strstr(b.s, "\nX-Maintainer-Upload: no\nX-Module-SHA256-tar.xz: abc123\n"));
	assert_non_null(strstr(b.s, "\n\ngtk 4.14.0 was released by bob (not a maintainer of the module)."));
	assert_non_null(strstr(b.s, "NEWS (top):\n\nOverview of changes in 4.14.0\n- faster\n"));
	assert_non_null(strstr(b.s, "  not signed\n"));
	assert_null(strstr(b.s, "X-Module-Signer"));
	strbuf_free(&b);
	/* A signed release names its signature and signer. */
	memset(&b, 0, sizeof(b));
	f.signature = "gtk-4.14.0.tar.xz.asc";
	f.signer = "0123456789ABCDEF0123456789ABCDEF01234567";
	release_mail_format(&d, &f, &b);
	assert_false(b.failed);
	assert_non_null(strstr(b.s, "\nX-Module-Signer: 0123456789ABCDEF0123456789ABCDEF01234567\n"));
	assert_non_null(strstr(b.s, "  signature: sources/gtk/4.14/gtk-4.14.0.tar.xz.asc\n"
				    "  signed by OpenPGP key 0123456789ABCDEF0123456789ABCDEF01234567\n"));
	strbuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_round_trip),
		cmocka_unit_test(test_wire_refusals),
		cmocka_unit_test(test_wire_signature),
		cmocka_unit_test(test_wire_ci_install),
		cmocka_unit_test(test_ledger_round_trip),
		cmocka_unit_test(test_ledger_user_fits_or_is_refused),
		cmocka_unit_test(test_reindex),
		cmocka_unit_test(test_release_mail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
