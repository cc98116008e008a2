/*
 * The PAM service file reader (policy/pam_file.h): what the parser makes
 * of each kind of line and refuses, and pam_auth_check over files in a
 * throwaway directory: includes followed inside it only, and every problem
 * counted.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pam_file.h"

#define RULES_MAX 8

struct rules {
	struct pam_line l[RULES_MAX];
	size_t n;
};

static int keep(const struct pam_line *l, void *ctx)
{
	struct rules *r = ctx;

	assert_true(r->n < RULES_MAX);
	r->l[r->n++] = *l;
	return 0;
}

static int parse(const char *text, struct rules *r, struct pst_err *e)
{
	memset(r, 0, sizeof(*r));
	return pam_text_parse(text, strlen(text), keep, r, e);
}

static void test_rules_comments_continuations(void **state)
{
	struct rules r;
	struct pst_err e;

	(void)state;
	assert_int_equal(parse("# head\n\n auth\trequired pam_postern.so window=1 # why\n"
			       "-auth [success=1 default=ignore] pam_unix.so \\\n nullok\n"
			       "@include common-account\nSession Optional pam_x.so\n", &r, &e), 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.l[0].type, "auth");
	assert_int_equal(r.l[0].control, PAM_CTL_REQUIRED);
	assert_string_equal(r.l[0].module, "pam_postern.so");
	assert_int_equal(r.l[0].lineno, 3);
	assert_true(r.l[1].quiet);
	assert_int_equal(r.l[1].control, PAM_CTL_BRACKET);
	assert_string_equal(r.l[1].control_text, "[success=1 default=ignore]");
	assert_string_equal(r.l[1].module, "pam_unix.so");
	assert_int_equal(r.l[2].control, PAM_CTL_DIRECTIVE);
	assert_string_equal(r.l[2].module, "common-account");
	/* The continuation counted: the @include was on line 6. */
	assert_int_equal(r.l[2].lineno, 6);
	assert_string_equal(r.l[3].type, "Session");
	assert_int_equal(r.l[3].control, PAM_CTL_OPTIONAL);
}

static void test_malformed_refused(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
		{ "auth required\n", "line 1: no module after 'auth required'" },
		{ "\nfoo required pam_x.so\n", "line 2: 'foo' is no PAM type" },
		{ "auth perhaps pam_x.so\n", "line 1: no valid control after 'auth'" },
		{ "auth [success=ok pam_x.so\n", "line 1: a '[' control without its ']'" },
		{ "@include a b\n", "line 1: @include takes exactly one name" },
		{ "@include\n", "line 1: @include takes exactly one name" },
	};
	struct rules r;
	struct pst_err e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].text, &r, &e), -EINVAL);
		assert_non_null(strstr(e.msg, bad[i].msg));
	}
	assert_int_equal(pam_text_parse("auth required x\0y\n", 18, keep, &r, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "a NUL byte"));
}

static void test_names(void **state)
{
	(void)state;
	assert_true(pam_name_ok("common-auth"));
	assert_true(pam_name_ok("..hidden"));
	assert_false(pam_name_ok(""));
	assert_false(pam_name_ok("."));
	assert_false(pam_name_ok(".."));
	assert_false(pam_name_ok("../sshd"));
	assert_false(pam_name_ok("/etc/pam.d/sshd"));
}

struct seen {
	unsigned n;
	char last[1024];
};

static void note(void *ctx, const char *what, const char *fix)
{
	struct seen *s = ctx;

	(void)fix;
	s->n++;
	snprintf(s->last, sizeof(s->last), "%s", what);
}

static char dir[] = "/tmp/test_pam_file-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static unsigned check(const char *service, struct seen *s, bool *found)
{
	struct pam_auth_report r = { note, s, 0, false };
	unsigned n;

	memset(s, 0, sizeof(*s));
	n = pam_auth_check(dir, service, &r);
	assert_int_equal(n, s->n);
	*found = r.found;
	return n;
}

static void test_auth_walk(void **state)
{
	struct seen s;
	bool found;

	(void)state;
	put("ok", "account required pam_x.so\n@include sub\n");
	put("sub", "auth substack sub2\n");
	put("sub2", "auth requisite /lib/x86_64-linux-gnu/security/pam_postern.so\n"
		    "auth sufficient pam_after.so\n");
	assert_int_equal(check("ok", &s, &found), 0);
	assert_true(found);

	put("quiet", "-auth required pam_postern.so\n");
	assert_int_equal(check("quiet", &s, &found), 1);
	assert_false(found);
	assert_non_null(strstr(s.last, "'-auth' skips the line"));

	put("early", "auth [success=done default=ignore] pam_unix.so\n"
		     "auth required pam_postern.so\n");
	assert_int_equal(check("early", &s, &found), 1);
	assert_non_null(strstr(s.last, ":1: 'auth [success=done default=ignore] pam_unix.so' "
				       "comes before pam_postern.so"));

	put("none", "account required pam_postern.so\nauth include missing\n");
	assert_int_equal(check("none", &s, &found), 2);
	assert_non_null(strstr(s.last, "has no pam_postern.so"));

	put("broken", "auth required pam_postern.so\nauth\n");
	assert_int_equal(check("broken", &s, &found), 1);
	assert_non_null(strstr(s.last, "broken: line 2: no valid control"));

	assert_int_equal(check("absent", &s, &found), 1);
	assert_non_null(strstr(s.last, "absent does not exist: PAM runs"));
	assert_int_equal(check("../ok", &s, &found), 1);
	assert_non_null(strstr(s.last, "is not a file name"));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	static const char *const files[] = { "ok", "sub", "sub2", "quiet", "early", "none",
					     "broken" };
	char path[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_comments_continuations),
		cmocka_unit_test(test_malformed_refused),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_auth_walk),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
