/* The CI release rules (ci_rules.h): one function per row, in table order. */
#include "ci_rules.h"

#include <stdio.h>
#include <string.h>

typedef bool rule_fn(const struct policy *p, const struct ci_release *r, char *why, size_t size);

static bool rule_project(const struct policy *p, const struct ci_release *r, char *why, size_t size)
{
	if (policy_ci_may(p, r->issuer, r->job->project, r->module))
		return true;
	snprintf(why, size, "project %s (issuer %s) may not release %s: modules.%s.ci in "
		 "postern.yaml does not list it (ask the admins)", r->job->project, r->issuer,
		 r->module, r->module);
	return false;
}

static bool rule_tag(const struct policy *p, const struct ci_release *r, char *why, size_t size)
{
	(void)p;
	if (strcmp(r->job->ref_type, "tag") == 0)
		return true;
	snprintf(why, size, "releases come from tag pipelines; this job ran for %s %s (push a "
		 "tag named after the version)", r->job->ref_type, r->job->ref);
	return false;
}

static bool rule_protected(const struct policy *p, const struct ci_release *r, char *why,
			   size_t size)
{
	(void)p;
	if (r->job->ref_protected)
		return true;
	snprintf(why, size, "tag %s is not protected: protect release tags in the project's "
		 "settings, then tag again", r->job->ref);
	return false;
}

static bool rule_version(const struct policy *p, const struct ci_release *r, char *why,
			 size_t size)
{
	const char *tag = r->job->ref;

	(void)p;
	if (strcmp(tag, r->version) == 0 || (tag[0] == 'v' && strcmp(tag + 1, r->version) == 0))
		return true;
	snprintf(why, size, "the tag %s is not the release's version %s (tag %s or v%s)", tag,
		 r->version, r->version, r->version);
	return false;
}

static const struct { const char *name; rule_fn *fn; int http; } rules[] = {
	{ "project",   rule_project,   403 },
	{ "tag",       rule_tag,       403 },
	{ "protected", rule_protected, 403 },
	{ "version",   rule_version,   403 },
};

void ci_release_decide(const struct policy *p, const struct ci_release *r, struct ci_verdict *v)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (!rules[i].fn(p, r, v->why, sizeof(v->why))) {
			v->rule = rules[i].name;
			v->http_status = rules[i].http;
			return;
		}
	}
	v->allowed = true;
	v->http_status = 200;
	snprintf(v->why, sizeof(v->why), "CI job %s/%s of project %s (issuer %s) releases %s %s "
		 "from protected tag %s", r->job->pipeline, r->job->job, r->job->project, r->issuer,
		 r->module, r->version, r->job->ref);
}

void ci_uploader_name(const struct ci_release *r, char *out, size_t size)
{
	snprintf(out, size, "ci:%s/%s", r->issuer, r->job->project);
}
