/*
 * The CI release rules (ci/ci_rules.c), each row of the table: a job of a
 * bound project on a protected tag equal to the version is allowed, with
 * the uploader ci:<issuer>/<project>; each rule's failure is refused with
 * its own rule name, HTTP status and sentence; the first failing row wins.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ci_rules.h"

static const char config[] =
	"ci:\n  issuers:\n"
	"    gitlab: {issuer: https://gitlab.gnome.org, audience: https://master.gnome.org,\n"
	"             jwks: /etc/postern/ci/gitlab.jwks}\n"
	"modules:\n"
	"  gtk:\n    maintainers: [otte]\n    ci: [{issuer: gitlab, project: GNOME/gtk}]\n"
	"  glib: {maintainers: [pwithnall]}\n";

static struct policy *policy(void)
{
	struct policy *p = NULL;
	struct pst_err e;

	if (policy_parse(config, strlen(config), "postern.yaml", &p, &e) != 0)
		fail_msg("%s", e.msg);
	return p;
}

static struct oidc_claims tag_job(const char *ref)
{
	struct oidc_claims c;

	memset(&c, 0, sizeof(c));
	strcpy(c.project, "GNOME/gtk");
	strcpy(c.ref, ref);
	strcpy(c.ref_type, "tag");
	c.ref_protected = true;
	strcpy(c.pipeline, "812345");
	strcpy(c.job, "4455667");
	return c;
}

static void refused(const struct policy *p, const struct ci_release *r, const char *rule,
		    const char *words)
{
	struct ci_verdict v;

	ci_release_decide(p, r, &v);
	assert_false(v.allowed);
	assert_string_equal(v.rule, rule);
	assert_int_equal(v.http_status, 403);
	if (strstr(v.why, words) == NULL)
		fail_msg("'%s' does not say '%s'", v.why, words);
}

static void test_allowed(void **state)
{
	struct policy *p = policy();
	struct oidc_claims c = tag_job("4.16.0"), cv = tag_job("v4.16.0");
	struct ci_release r = { "gitlab", &c, "gtk", "4.16.0" };
	struct ci_verdict v;
	char who[CI_UPLOADER_MAX];

	(void)state;
	ci_release_decide(p, &r, &v);
	assert_true(v.allowed);
	assert_int_equal(v.http_status, 200);
	assert_null(v.rule);
	assert_string_equal(v.why, "CI job 812345/4455667 of project GNOME/gtk (issuer gitlab) "
			    "releases gtk 4.16.0 from protected tag 4.16.0");
	ci_uploader_name(&r, who, sizeof(who));
	assert_string_equal(who, "ci:gitlab/GNOME/gtk");
	r.job = &cv;
	ci_release_decide(p, &r, &v);
	assert_true(v.allowed);
	policy_free(p);
}

static void test_each_rule(void **state)
{
	struct policy *p = policy();
	struct oidc_claims c = tag_job("4.16.0");
	struct ci_release r = { "gitlab", &c, "glib", "4.16.0" };

	(void)state;
	refused(p, &r, "project", "project GNOME/gtk (issuer gitlab) may not release glib");
	r.module = "gtk";
	strcpy(c.project, "GNOME/gtk-fork");
	refused(p, &r, "project", "modules.gtk.ci in postern.yaml does not list it");
	strcpy(c.project, "GNOME/gtk");
	r.issuer = "github";
	refused(p, &r, "project", "(issuer github)");
	r.issuer = "gitlab";
	strcpy(c.ref_type, "branch");
	strcpy(c.ref, "main");
	refused(p, &r, "tag", "this job ran for branch main");
	strcpy(c.ref_type, "tag");
	strcpy(c.ref, "4.16.0");
	c.ref_protected = false;
	refused(p, &r, "protected", "tag 4.16.0 is not protected");
	c.ref_protected = true;
	r.version = "4.16.1";
	refused(p, &r, "version", "the tag 4.16.0 is not the release's version 4.16.1");
	strcpy(c.ref, "vv4.16.1");
	refused(p, &r, "version", "the tag vv4.16.1");
	policy_free(p);
}

static void test_first_failing_row_wins(void **state)
{
	struct policy *p = policy();
	struct oidc_claims c = tag_job("main");
	struct ci_release r = { "gitlab", &c, "glib", "1.0" };

	(void)state;
	strcpy(c.ref_type, "branch");
	c.ref_protected = false;
	refused(p, &r, "project", "may not release glib");
	refused(NULL, &r, "project", "may not release glib");
	policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed),
		cmocka_unit_test(test_each_rule),
		cmocka_unit_test(test_first_failing_row_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
